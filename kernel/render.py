"""Turn code-mode results into Jupyter IOPub message contents.

Mapping: an ``input_text`` item becomes a ``stream`` stdout message of one
line (text + ``"\\n"``); an ``input_image`` item a ``display_data`` with the image's MIME type
(from its data URL, base64 payload) plus ``text/plain``; an ``input_audio`` item a
``display_data`` with the audio MIME type, an HTML ``<audio>`` player and ``text/plain``.
The notebook profile's items (``codemode-host --profile notebook``; the strict profile never
sends them, and nothing here depends on the profile): a ``stream`` item becomes a ``stream``
message on its ``name`` (``stdout`` or ``stderr``) with its text as is (``console.log`` lines
end with ``"\n"`` already); a ``display_data`` item a ``display_data`` message with its
``data`` and ``metadata``; an ``execute_result`` item (the cell's value) an ``execute_result``
message with the execution count of the request that ran the cell, and a ``display_data``
message with the same bundle where it is shown under another request (a ``%wait`` or
``%terminate`` of a cell that yielded): an ``execute_result`` belongs to its own execute
request, and under another one Jupyter front ends would number the value with the magic's
``Out[n]``.
A ``Result`` with ``error_text`` becomes an ``error`` message (see :func:`parse_error_text`);
a ``Terminated`` response an ``error`` named ``CellTerminated``.

Every function here is pure: it returns ``(msg_type, content)`` pairs and sends nothing.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from dataclasses import dataclass
from typing import Any

Message = tuple[str, dict[str, Any]]

TERMINATED_ENAME = "CellTerminated"
"""``ename`` of the error shown when a cell was terminated (interrupt or ``%terminate``)."""

THROWN_VALUE_ENAME = "Error"
"""``ename`` used when the script threw something that is not an Error object (a string, a
number, ...). Codex's helpers throw bare strings (``store key must be a string``), so this is
common; ``Error`` keeps such failures looking like any other JavaScript error."""

_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]*)(?P<params>(;[^;,]*)*),(?P<data>.*)$", re.S)
_ERROR_HEAD = re.compile(r"^(?P<name>(?:[A-Za-z_$][\w$]*)?(?:Error|Exception|Warning)):(?: (?P<msg>.*))?$")
_BARE_ERROR_NAME = re.compile(r"^(?:[A-Za-z_$][\w$]*)?(?:Error|Exception)$")
_STACK_LINE = re.compile(r"^\s+(at |--> |--- )")


@dataclass
class ErrorParts:
    """An error message's fields: ``ename``, ``evalue`` and ``traceback`` (list of lines)."""

    ename: str
    evalue: str
    traceback: list[str]

    def content(self) -> dict[str, Any]:
        """The ``error`` IOPub content (and the error fields of an execute_reply)."""
        return {"ename": self.ename, "evalue": self.evalue, "traceback": list(self.traceback)}


def parse_error_text(error_text: str) -> ErrorParts:
    """Split a cell's ``error_text`` into ``ename``, ``evalue`` and ``traceback``.

    ``error_text`` is the thrown value's ``stack`` (``Name: message`` then ``    at ...``
    lines) or ``String(value)``, as Codex's host reports an uncaught value:

    - ``TypeError: x is not a function\\n    at exec_main.mjs:1:1`` -> ``TypeError``,
      ``x is not a function``; a message spanning several lines keeps them all in ``evalue``;
    - ``Error`` alone (``new Error("")``) -> ``Error`` with an empty value;
    - anything else (a thrown string such as ``store key must be a string``, ``42``,
      ``[object Object]``) -> :data:`THROWN_VALUE_ENAME` with the whole text as value.

    ``traceback`` is always every line of ``error_text``, so consoles that print only the
    traceback still show the complete message.
    """
    lines = error_text.splitlines() or [""]
    traceback = list(lines)
    head = _ERROR_HEAD.match(lines[0])
    if head is None and _BARE_ERROR_NAME.match(lines[0]):
        return ErrorParts(lines[0], "", traceback)
    if head is None:
        return ErrorParts(THROWN_VALUE_ENAME, error_text.strip("\n"), traceback)
    message_lines = [head.group("msg") or ""]
    for line in lines[1:]:
        if _STACK_LINE.match(line):
            break
        message_lines.append(line)
    return ErrorParts(head.group("name"), "\n".join(message_lines), traceback)


CONSOLE_HINT = "Hint: cells have no console, as in Codex's code mode; print with text(...), e.g. text(value)."
"""The line added to the error of a cell that used ``console`` (see :func:`with_hint`)."""


def with_hint(parts: ErrorParts) -> ErrorParts:
    """``parts`` with one more traceback line for an error a newcomer meets first: Codex's
    ``ReferenceError: console is not defined`` gets :data:`CONSOLE_HINT` (the name and message
    stay Codex's, and so does the runtime's error text). Other errors are returned unchanged."""
    if (parts.ename, parts.evalue) != ("ReferenceError", "console is not defined"):
        return parts
    return ErrorParts(parts.ename, parts.evalue, [*parts.traceback, CONSOLE_HINT])


def terminated_error(cell_id: str | None, note: str | None = None) -> ErrorParts:
    """The error shown for a terminated cell; ``cell_id`` None for an execute interrupted
    before its cell existed (while the code-mode session or its tools were starting). ``note``
    (a sentence: the host was restarted to stop the cell, ``HostLosses.restart_note``) is added."""
    if cell_id is None:
        text = "The cell was terminated before it started (the code-mode session was starting); nothing ran."
    else:
        text = f"Cell {cell_id} was terminated; output it produced before that is shown above."
    if note:
        text = f"{text} {note}"
    return ErrorParts(TERMINATED_ENAME, text, [f"{TERMINATED_ENAME}: {text}"])


def plain_error(ename: str, evalue: str) -> ErrorParts:
    """An error without a stack: the traceback is the single line ``ename: evalue``."""
    return ErrorParts(ename, evalue, [f"{ename}: {evalue}"])


def split_data_url(url: str) -> tuple[str, str, bool] | None:
    """``(mime, payload, is_base64)`` of a ``data:`` URL, or None for any other URL."""
    match = _DATA_URL.match(url)
    if match is None:
        return None
    params = [p.strip().lower() for p in match.group("params").split(";") if p.strip()]
    mime = match.group("mime").strip().lower() or "text/plain"
    return mime, match.group("data"), "base64" in params


def _as_base64(payload: str, is_base64: bool) -> str | None:
    """The payload as clean base64 text, or None when it does not decode."""
    from urllib.parse import unquote_to_bytes

    try:
        if is_base64:
            raw = base64.b64decode("".join(unquote_to_bytes(payload).decode("ascii").split()), validate=True)
        else:
            raw = unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None
    if is_base64 and not raw:
        return None
    return base64.b64encode(raw).decode("ascii")


def image_message(item: dict[str, Any]) -> Message:
    """``display_data`` for an ``input_image`` item.

    A data URL gives ``{<its mime>: <base64>, "text/plain": "<image mime, N bytes>"}``; an
    undecodable or non-data URL gives ``text/plain`` only (Codex shows the text
    ``image content omitted because it could not be processed`` in that case).
    """
    url = str(item.get("image_url", ""))
    parts = split_data_url(url)
    detail = item.get("detail")
    metadata: dict[str, Any] = {"codemode": {"detail": detail}} if detail else {}
    if parts is not None:
        mime, payload, is_b64 = parts
        encoded = _as_base64(payload, is_b64)
        if encoded is not None and mime.startswith("image/"):
            size = len(base64.b64decode(encoded))
            if mime == "image/svg+xml":
                data = {mime: base64.b64decode(encoded).decode("utf-8", "replace")}
            else:
                data = {mime: encoded}
            data["text/plain"] = f"<image {mime}, {size} bytes>"
            return "display_data", {"data": data, "metadata": metadata}
    text = "image content omitted because it could not be processed"
    return "display_data", {"data": {"text/plain": text}, "metadata": metadata}


def audio_message(item: dict[str, Any]) -> Message:
    """``display_data`` for an ``input_audio`` item.

    A decodable ``data:audio/...`` URL gives the audio MIME type (base64), an HTML
    ``<audio controls>`` player (JupyterLab renders HTML, not ``audio/*``) and ``text/plain``;
    anything else gives ``text/plain`` only.
    """
    url = str(item.get("audio_url", ""))
    parts = split_data_url(url)
    if parts is not None:
        mime, payload, is_b64 = parts
        encoded = _as_base64(payload, is_b64)
        if encoded is not None and mime.startswith("audio/"):
            size = len(base64.b64decode(encoded))
            source = html.escape(f"data:{mime};base64,{encoded}", quote=True)
            data = {
                mime: encoded,
                "text/html": f'<audio controls src="{source}"></audio>',
                "text/plain": f"<audio {mime}, {size} bytes>",
            }
            return "display_data", {"data": data, "metadata": {}}
    return "display_data", {
        "data": {"text/plain": "audio content omitted because it could not be processed"},
        "metadata": {},
    }


STREAM_NAMES = ("stdout", "stderr")
"""The names a ``stream`` item may have (any other is shown on ``stdout``)."""


def bundle_content(item: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` and ``metadata`` of a ``display_data`` / ``execute_result`` item (a
    ``data`` that is not an object becomes its ``text/plain`` repr, a ``metadata`` that is not
    one is left out)."""
    data = item.get("data")
    metadata = item.get("metadata")
    return {
        "data": dict(data) if isinstance(data, dict) else {"text/plain": repr(data)},
        "metadata": dict(metadata) if isinstance(metadata, dict) else {},
    }


def item_message(item: dict[str, Any], execution_count: int | None = None) -> Message:
    """The IOPub message for one content item (unknown item types become ``text/plain``).
    ``execution_count``: the count of the request that ran the cell, when the item is shown
    under that request; None shows an ``execute_result`` item as ``display_data`` (module
    docstring)."""
    kind = item.get("type")
    if kind == "input_text":
        return "stream", {"name": "stdout", "text": f"{item.get('text', '')}\n"}
    if kind == "input_image":
        return image_message(item)
    if kind == "input_audio":
        return audio_message(item)
    if kind == "stream":
        name = item.get("name")
        return "stream", {"name": name if name in STREAM_NAMES else "stdout", "text": str(item.get("text", ""))}
    if kind == "display_data" or (kind == "execute_result" and execution_count is None):
        return "display_data", bundle_content(item)
    if kind == "execute_result":
        return "execute_result", {"execution_count": execution_count, **bundle_content(item)}
    return "display_data", {"data": {"text/plain": repr(item)}, "metadata": {}}


def item_messages(items: list[dict[str, Any]], execution_count: int | None = None) -> list[Message]:
    """The IOPub messages for content items, in emission order (``execution_count`` as for
    :func:`item_message`)."""
    return [item_message(item, execution_count) for item in items]


def coalesced_messages(items: list[dict[str, Any]], execution_count: int | None = None) -> list[Message]:
    """:func:`item_messages` with each run of consecutive ``stream`` messages of one name joined
    into one (its text unbounded: the caller splits it; an empty run gives an empty text).

    An ``input_text`` item adds its line to the run without a message of its own being built:
    a cell may print 100 000 lines, and a message each took most of the kernel's time."""
    messages: list[Message] = []
    parts: list[str] = []
    name: str | None = None
    for item in items:
        if item.get("type") == "input_text":
            part_name, text = "stdout", f"{item.get('text', '')}\n"  # as item_message writes it
        else:
            msg_type, content = item_message(item, execution_count)
            if msg_type != "stream":
                if name is not None:
                    messages.append(("stream", {"name": name, "text": "".join(parts)}))
                    parts, name = [], None
                messages.append((msg_type, content))
                continue
            part_name, text = content["name"], content["text"]
        if part_name != name:
            if name is not None:
                messages.append(("stream", {"name": name, "text": "".join(parts)}))
            parts, name = [], part_name
        parts.append(text)
    if name is not None:
        messages.append(("stream", {"name": name, "text": "".join(parts)}))
    return messages
