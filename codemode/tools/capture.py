"""Bounded capture of a command's output for ``exec_command``.

A command may print without end (``yes``) or far more than a reply frame holds (64 MiB, the
host protocol's frame limit). Codex hands JS only the output cut to the call's
``max_output_tokens`` (with its ``truncate_code_mode_result`` texts), and that cut needs
only the text's first and last few bytes and its size and line count. :class:`OutputCapture`
keeps exactly that while the bytes stream in, so its memory is bounded by the budget whatever
the command prints, and renders the result with :func:`codemode.wire.truncation.truncated_text` (the
same algorithm and texts as for a cell's own output).
"""

from __future__ import annotations

import codecs
import math

from codemode.wire.truncation import BYTES_PER_TOKEN, head_bytes_needed, line_count, tail_bytes_needed, truncated_text


class OutputCapture:
    """The head, tail, size and line count of a byte stream decoded as UTF-8.

    ``max_tokens`` is the truncation budget (tokens of 4 bytes; negative counts as 0). Bytes
    are decoded as they arrive with invalid sequences replaced by U+FFFD, exactly as decoding
    the whole output at once would (``bytes.decode("utf-8", "replace")``); sizes and the kept
    ends are those of the decoded text's UTF-8 form, so :meth:`render` equals Codex's
    truncation of the whole decoded text.

    Memory: at most ``head_bytes_needed`` + 2 x ``tail_bytes_needed`` bytes plus one fed chunk
    (:attr:`buffered_bytes`), about 1.5 x ``max_tokens * 4`` bytes in steady state.
    """

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max(0, max_tokens)
        self._head_limit = head_bytes_needed(self.max_tokens)
        self._tail_limit = tail_bytes_needed(self.max_tokens)
        self._head = bytearray()
        self._tail = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = False
        self.total_bytes = 0
        """Size of the decoded text so far, in UTF-8 bytes."""
        self.newlines = 0
        """``\\n`` characters so far."""
        self._last = b""

    @property
    def buffered_bytes(self) -> int:
        """Bytes held right now (head and tail buffers)."""
        return len(self._head) + len(self._tail)

    @property
    def truncated(self) -> bool:
        """True when the text so far is over the budget."""
        return self.total_bytes > self.max_tokens * BYTES_PER_TOKEN

    @property
    def original_token_count(self) -> int:
        """Codex's token estimate of the whole text: ``ceil(bytes / 4)``."""
        return math.ceil(self.total_bytes / BYTES_PER_TOKEN)

    def feed(self, chunk: bytes) -> None:
        """Add raw output bytes (any split, even inside a character)."""
        if not self._pending and chunk.isascii():
            data = chunk  # the common case: nothing to decode or replace
        else:
            data = self._decoder.decode(chunk).encode("utf-8")
            self._pending = bool(self._decoder.getstate()[0])
        self._add(data)

    def feed_text(self, text: str) -> None:
        """Add text (a note the tool appends, such as the time-out message); first completes
        any character left unfinished by the bytes fed so far, as the end of the stream."""
        self.finish()
        self._add(text.encode("utf-8", "surrogatepass"))

    def finish(self) -> None:
        """End of the byte stream: an unfinished character becomes U+FFFD."""
        if self._pending:
            self._add(self._decoder.decode(b"", final=True).encode("utf-8"))
            self._decoder.reset()
            self._pending = False

    def _add(self, data: bytes) -> None:
        if not data:
            return
        self.total_bytes += len(data)
        self.newlines += data.count(b"\n")
        self._last = data[-1:]
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
        if self._tail_limit:
            self._tail += data
            if len(self._tail) > 2 * self._tail_limit:
                del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def line_count(self) -> int:
        """Lines of the text so far, as Codex counts them (:func:`codemode.wire.truncation.line_count`)."""
        return line_count(self.newlines, self.total_bytes, self._last == b"\n")

    def render(self) -> str:
        """The whole text when it fits the budget, else Codex's ``Warning: truncated output
        ...`` text (:func:`codemode.wire.truncation.truncated_text`). Call :meth:`finish` first."""
        return truncated_text(bytes(self._head), bytes(self._tail), self.total_bytes, self.line_count, self.max_tokens)
