"""The two failures a request can end in.

:class:`FatalConnectionError` ends the whole connection (Codex's host does the same for a
frame that does not decode or match its schema); :class:`ProtocolError` fails one request
with ``{"status": "error", "message": ...}`` and the connection goes on.
"""

from __future__ import annotations


class FatalConnectionError(Exception):
    """The connection must end; the message is the ``Caused by`` text printed on stderr."""


class HelloNotWritten(Exception):
    """The handshake's answer could not be written (the client stopped reading before it): the
    host ends at once, as Codex's host does (``runtime/stdio.py`` prints why)."""


class ProtocolError(Exception):
    """A request failed; the message is sent back as ``{"status": "error"}``."""
