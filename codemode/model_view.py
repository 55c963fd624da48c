"""What the model saw: a cell's answer rendered as Codex returns it to the model.

Codex answers each ``exec`` (a ``custom_tool_call_output``) and ``wait`` (a
``function_call_output``) with one output built from the runtime's answer
(:class:`~codemode.responses.RuntimeResponse`) by ``handle_runtime_response`` in Codex's
``codex-rs/core/src/tools/code_mode/mod.rs``:

1. the items of the answer (``input_text`` per ``text()``, ``input_image`` per ``image()``),
   and for a failed ``Result`` one more last item ``Script error:\\n<error_text>``;
2. Codex's output budget (``truncate_code_mode_result``; default 10 000 tokens): all-text
   output that does not fit is merged into ONE item ``Warning: truncated output (original
   token count: N)\\nTotal output lines: M\\n\\n<head>…K tokens truncated…<tail>``
   (:func:`codemode.wire.truncation.truncate_content_items`, reused here);
3. a first item, the header ``"<status>\\nWall time X.Y seconds\\nOutput:\\n"``
   (``prepend_script_status``): ``Script running with cell ID <id>`` (``Yielded``),
   ``Script terminated``, ``Script completed`` or ``Script failed`` (``format_script_status``);
   the wall time is rounded to one decimal (``((secs * 10).round() / 10)`` printed ``{:.1}``);
4. an output of exactly one text item is sent as that plain string, not a list
   (``function_tool_response`` in ``codex-rs/core/src/tools/context.rs``): a header alone is
   ``"Script running with cell ID 2\\nWall time 0.2 seconds\\nOutput:\\n"``.

The token estimate is Codex's ``estimate_item_token_count``
(``codex-rs/core/src/context_manager/history.rs``): bytes / 4 rounded up, an image counted
as ``RESIZED_IMAGE_BYTES_ESTIMATE`` = 7373 bytes (about 1844 tokens). Codex counts the
serialized item; this counts the items' texts (UTF-8) and audio URLs, so it is a little lower.

Image items pass through as the runtime gave them (their ``detail`` included). Codex 0.171.0
recorded ``detail: "original"`` on every image and sent none to a model without that
capability; that depends on the model, not on the cell. Items of codemode's notebook profile
(``stream``, ``display_data``, ``execute_result``) are never in Codex's output; they pass
through with codemode's budget rules.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from codemode.responses import ResponseKind, RuntimeResponse
from codemode.wire.truncation import BUNDLE_KINDS, DEFAULT_MAX_OUTPUT_TOKENS, bundle_tokens, truncate_content_items

ContentItem = dict[str, Any]
ModelOutput = str | list[ContentItem]
"""An output as the model received it: a plain string, or a list of content items."""

IMAGE_BYTES_ESTIMATE = 7373
"""What Codex counts for one image (``RESIZED_IMAGE_BYTES_ESTIMATE``)."""

BYTES_PER_TOKEN = 4

COMPLETED = "Script completed"
FAILED = "Script failed"
TERMINATED = "Script terminated"
RUNNING_PREFIX = "Script running with cell ID "
SCRIPT_ERROR_PREFIX = "Script error:\n"

_HEADER = re.compile(
    r"\A(?P<status>Script completed|Script failed|Script terminated|Script running with cell ID (?P<cell_id>[^\n]+))"
    r"\nWall time (?P<wall>\d+\.\d) seconds\nOutput:\n"
)
_TRUNCATION = re.compile(r"\AWarning: truncated output \(original token count: (\d+)\)\nTotal output lines: (\d+)\n")


@dataclass(frozen=True)
class ModelView:
    """One answer as the model saw it.

    ``output``: a plain string when the answer has only its header, else the list of content
    items, header first (JSON-ready dicts). ``tokens``: Codex's approximate token count of it
    (:func:`estimate_tokens`)."""

    output: ModelOutput
    tokens: int

    def to_json(self) -> dict[str, Any]:
        """``{"output": <string or items>, "tokens": <int>}``."""
        return {"output": self.output, "tokens": self.tokens}


@dataclass(frozen=True)
class Header:
    """A parsed header item: ``status`` is one of :data:`COMPLETED`, :data:`FAILED`,
    :data:`TERMINATED` or ``"Script running"``; ``cell_id`` is set for a running cell;
    ``wall_time`` is the text ``"X.Y"`` as written."""

    status: str
    cell_id: str | None
    wall_time: str

    @property
    def name(self) -> str:
        """The status as one word: ``completed``, ``running``, ``failed`` or ``terminated``."""
        return self.status.removeprefix("Script ")


@dataclass(frozen=True)
class Truncation:
    """Codex's truncation warning at the start of an item: ``Warning: truncated output
    (original token count: N)\\nTotal output lines: L`` (``truncate_content_items``)."""

    original_token_count: int
    total_output_lines: int


def status_line(response: RuntimeResponse) -> str:
    """Codex's ``format_script_status`` of ``response``."""
    if response.kind == "Yielded":
        return f"{RUNNING_PREFIX}{response.cell_id}"
    if response.kind == "Terminated":
        return TERMINATED
    return COMPLETED if response.error_text is None else FAILED


def format_wall_time(seconds: float) -> str:
    """Seconds as Codex prints them in the header: rounded to a tenth, half away from zero
    (Rust's ``f32::round``), one decimal: ``1.149`` -> ``"1.1"``, ``0.05`` -> ``"0.1"``."""
    tenths = math.floor(max(0.0, seconds) * 10 + 0.5)
    return f"{tenths // 10}.{tenths % 10}"


def header_text(status: str, wall_time_s: float) -> str:
    """The header item's text: ``"<status>\\nWall time X.Y seconds\\nOutput:\\n"``."""
    return f"{status}\nWall time {format_wall_time(wall_time_s)} seconds\nOutput:\n"


def split_header(text: str) -> tuple[Header, str] | None:
    """The :class:`Header` that ``text`` starts with and the text after it (``""`` for a header
    item as Codex 0.171.0 writes it; older Codex versions wrote the header and the texts as one
    string); None when ``text`` does not start with a header."""
    match = _HEADER.match(text)
    if match is None:
        return None
    cell_id = match.group("cell_id")
    status = "Script running" if cell_id is not None else match.group("status")
    return Header(status, cell_id, match.group("wall")), text[match.end() :]


def parse_header(text: str) -> Header | None:
    """The :class:`Header` of a header item's text, None when ``text`` is not exactly one."""
    split = split_header(text)
    return split[0] if split is not None and split[1] == "" else None


def parse_truncation(items: list[ContentItem]) -> Truncation | None:
    """The :class:`Truncation` of the first text item that starts with Codex's warning, else None."""
    for item in items:
        match = _TRUNCATION.match(str(item.get("text", ""))) if item.get("type") == "input_text" else None
        if match is not None:
            return Truncation(int(match.group(1)), int(match.group(2)))
    return None


@dataclass(frozen=True)
class ParsedOutput:
    """A recorded output read back: its :class:`Header`, the items after it (the error item
    left out), the error text of a failed script (None otherwise) and Codex's truncation
    warning (None when the output was not cut)."""

    header: Header
    items: list[ContentItem]
    error_text: str | None
    truncation: Truncation | None = None

    def response(self) -> RuntimeResponse:
        """The runtime answer the output stands for (cell id ``""`` unless the cell was running;
        a truncated output stands for its merged item). ``render(parsed.response(),
        float(parsed.header.wall_time))`` gives the output back."""
        kind: ResponseKind = "Result"
        if self.header.status == "Script running":
            kind = "Yielded"
        elif self.header.status == TERMINATED:
            kind = "Terminated"
        return RuntimeResponse(kind, self.header.cell_id or "", list(self.items), self.error_text)


def parse(output: ModelOutput) -> ParsedOutput | None:
    """Read an exec or wait output as Codex recorded it (a plain string or a list of items);
    None when its first text does not start with a header. Text after the header in the same
    item (older Codex versions wrote the whole output as one string) becomes the first item.
    The last item of a ``Script failed`` output is taken as the error when it starts with
    ``Script error:\n`` (Codex adds that item only to a failed ``Result``; another status
    keeps such a text as an item: the program wrote it). This is the one reader of the header:
    :func:`codemode.replay.rollout.parse_result` uses it for session files."""
    items = [{"type": "input_text", "text": output}] if isinstance(output, str) else list(output)
    if not items or items[0].get("type") != "input_text":
        return None
    split = split_header(str(items[0].get("text", "")))
    if split is None:
        return None
    header, after = split
    rest: list[ContentItem] = ([{"type": "input_text", "text": after}] if after else []) + items[1:]
    error_text = None
    last = rest[-1].get("text") if rest and rest[-1].get("type") == "input_text" else None
    if header.status == FAILED and isinstance(last, str) and last.startswith(SCRIPT_ERROR_PREFIX):
        error_text = last.removeprefix(SCRIPT_ERROR_PREFIX)
        rest = rest[:-1]
    return ParsedOutput(header, rest, error_text, parse_truncation(rest))


def estimate_tokens(output: ModelOutput) -> int:
    """Codex's approximate token count of an output: ``ceil(bytes / 4)`` where texts count
    their UTF-8 bytes, each image 7373 bytes and audio its URL's length (a notebook profile's
    ``display_data`` / ``execute_result`` counts as its largest text representation,
    :func:`codemode.wire.truncation.bundle_tokens`)."""
    if isinstance(output, str):
        return math.ceil(len(output.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)
    total = 0
    for item in output:
        kind = item.get("type")
        if kind == "input_image":
            total += IMAGE_BYTES_ESTIMATE
        elif kind == "input_audio":
            total += len(str(item.get("audio_url", "")))
        elif kind in BUNDLE_KINDS:
            total += bundle_tokens(item) * BYTES_PER_TOKEN
        else:
            total += len(str(item.get("text", "")).encode("utf-8", "surrogatepass"))
    return math.ceil(total / BYTES_PER_TOKEN)


def model_items(response: RuntimeResponse, max_output_tokens: int | None = None) -> list[ContentItem]:
    """The answer's items after Codex's error item and budget, without the header.

    ``max_output_tokens``: the exec pragma's ``max_output_tokens`` or the wait's
    ``max_tokens``; None means Codex's default (10 000)."""
    items = list(response.content_items)
    if response.kind == "Result" and response.error_text is not None:
        items.append({"type": "input_text", "text": f"{SCRIPT_ERROR_PREFIX}{response.error_text}"})
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_output_tokens is None else max_output_tokens
    return truncate_content_items(items, budget)


def refused(text: str) -> ModelView:
    """A call Codex refused before any cell ran (a bad ``// @exec:`` pragma): the model gets
    the message alone as a plain string, no header (``FunctionCallError::RespondToModel`` in
    Codex's ``codex-rs/core/src/tools/code_mode/execute_handler.rs``)."""
    return ModelView(text, estimate_tokens(text))


def render(response: RuntimeResponse, wall_time_s: float, max_output_tokens: int | None = None) -> ModelView:
    """``response`` as Codex hands it to the model (see the module docstring).

    ``wall_time_s``: seconds from the exec or wait call to this answer (Codex times the
    handler, so the header of a ``wait`` counts only the wait). ``max_output_tokens`` as in
    :func:`model_items`. Example: a ``Yielded`` answer of cell ``"2"`` with no items after
    0.2 s gives ``ModelView("Script running with cell ID 2\\nWall time 0.2 seconds\\nOutput:\\n", 15)``.
    """
    header = {"type": "input_text", "text": header_text(status_line(response), wall_time_s)}
    items = [header, *model_items(response, max_output_tokens)]
    output: ModelOutput = header["text"] if len(items) == 1 else items
    return ModelView(output, estimate_tokens(output))


__all__ = [
    "COMPLETED",
    "FAILED",
    "Header",
    "ModelOutput",
    "ModelView",
    "ParsedOutput",
    "RUNNING_PREFIX",
    "SCRIPT_ERROR_PREFIX",
    "TERMINATED",
    "Truncation",
    "estimate_tokens",
    "format_wall_time",
    "header_text",
    "model_items",
    "parse",
    "parse_header",
    "parse_truncation",
    "refused",
    "render",
    "split_header",
    "status_line",
]
