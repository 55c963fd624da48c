"""The two failures a request can end in.

:class:`FatalConnectionError` ends the whole connection (Codex's host does the same for a
frame that does not decode or match its schema); :class:`ProtocolError` fails one request
with ``{"status": "error", "message": ...}`` and the connection goes on.
"""

from __future__ import annotations

READING_HELLO = "failed to read code-mode client hello"
READING_MESSAGE = "failed to read code-mode client message"


class FatalConnectionError(Exception):
    """The connection must end; the message is the cause printed on stderr.

    ``context`` is what failed (Codex's ``anyhow`` context: :data:`READING_HELLO` for the
    first frame, :data:`READING_MESSAGE` for later ones), or None for an error Codex's host
    reports on its own (``duplicate code-mode request ID RequestId(1)``).
    """

    def __init__(self, cause: str, context: str | None = READING_MESSAGE) -> None:
        super().__init__(cause)
        self.context = context

    def report(self) -> str:
        """The host's stderr text, as Codex's host prints the error it exits with:
        ``Error: <context>``, a blank line, ``Caused by:`` and the cause, each line indented; or
        ``Error: <cause>`` alone."""
        if self.context is None:
            return f"Error: {self}\n"
        cause = str(self).replace("\n", "\n    ")  # anyhow indents each line of a cause
        return f"Error: {self.context}\n\nCaused by:\n    {cause}\n"


class HelloNotWritten(Exception):
    """The handshake's answer could not be written (the client stopped reading before it): the
    host ends at once, as Codex's host does (``runtime/stdio.py`` prints why)."""


class ProtocolError(Exception):
    """A request failed; the message is sent back as ``{"status": "error"}``."""
