"""Errors of the client side of code mode.

Messages are complete sentences or Codex's exact texts, e.g. ``code mode session is shutting down`` or
``cell g1:3 belongs to a stale code-mode host generation``.
"""

from __future__ import annotations


class CodeModeError(Exception):
    """An execute / wait / terminate / shutdown could not be carried out; ``str(e)`` is the text
    to show (Codex hands the model such errors as plain text)."""


class StaleCellError(CodeModeError):
    """A wait or terminate named a cell id of another host generation than the current one
    (``cell <id> belongs to a stale code-mode host generation``, Codex's text): no live cell
    has that id."""


class HostConnectionError(CodeModeError):
    """The connection to the runtime host died (the host exited or was killed, closed its
    stdout, broke the protocol, timed out, or was closed by the client).

    ``str(e)`` and :attr:`reason` are Codex's reason text unchanged (e.g.
    ``code-mode host closed its stdout``, ``code-mode host exited with status signal: 9
    (SIGKILL)``, ``code-mode host stopped responding: …``). :attr:`generation` is the host generation
    the connection belonged to (1 for the first host, + 1 per rebuild; ``None`` when the
    connection was not made by a :class:`~codemode.session.HostProvider`). Every cell of that
    generation is gone; the next call starts a new host.
    """

    def __init__(self, reason: str, generation: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.generation = generation


class ToolCallError(Exception):
    """A nested tool call failed; the JavaScript promise rejects with ``str(e)`` (a plain string,
    as with Codex's host)."""
