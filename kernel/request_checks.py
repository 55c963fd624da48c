"""Checking the content of shell and control requests before ipykernel's handlers run.

ipykernel's handlers read the fields they need with ``content["code"]`` and friends; a signed
request whose content is malformed (``code`` a number, ``cursor_pos`` a string, no ``restart``
in a shutdown request) makes the handler fail or log "Got bad msg" and send no reply, so the
client waits forever. :func:`install` wraps every handler of the message types below: a
request whose content does not match its schema gets an error reply of the right type
(``<name>_reply`` with ``status: "error"``, ``ename`` :data:`INVALID_REQUEST_ENAME`, and an
``evalue`` naming the field and the type it must have), and the kernel goes on. A malformed
execute request runs nothing: its reply keeps the kernel's execution count (the last cell's)
and carries ``metadata.codemode`` with no cell (:func:`reply_metadata`).

Two kinds of signed request ipykernel would also drop without a reply are answered in the same
way by :func:`unanswered_problem` (the kernel calls it before ipykernel's dispatch of shell and
control messages): a request
whose content is not JSON at all, and a ``*_request`` type the kernel does not handle on the
channel it came on (``usage_request`` is a control request; an ``execute_request`` and the
subshell requests on control, :data:`REFUSED_ON_CONTROL`). A message that is unsigned or
wrongly signed, or whose header cannot be read, is still dropped, as ipykernel does.

Field types follow the Jupyter messaging specification ("Messages on the shell (ROUTER/DEALER)
channel" and "Messages on the control channel"). Fields the specification does not define are
ignored (clients may send newer fields), and so is the content of requests that define no
fields (``kernel_info_request``, ``interrupt_request``, ``connect_request``) as long as it
is a JSON object.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.schema import ValidationError

log = logging.getLogger(__name__)

INVALID_REQUEST_ENAME = "InvalidRequest"
"""``ename`` of the error reply to a request whose content is malformed."""

_STRING = {"type": "string"}
_BOOL = {"type": "boolean"}
_POSITION = {"type": ["integer", "null"], "minimum": 0}
_INT_OR_NULL = {"type": ["integer", "null"]}

SCHEMAS: dict[str, dict[str, Any]] = {
    "execute_request": {
        "required": ["code"],
        "properties": {
            "code": _STRING,
            "silent": _BOOL,
            "store_history": _BOOL,
            "user_expressions": {"type": "object"},
            "allow_stdin": _BOOL,
            "stop_on_error": _BOOL,
        },
    },
    "complete_request": {"required": ["code", "cursor_pos"], "properties": {"code": _STRING, "cursor_pos": _POSITION}},
    "inspect_request": {
        "required": ["code", "cursor_pos"],
        "properties": {
            "code": _STRING,
            "cursor_pos": _POSITION,
            "detail_level": {"enum": [0, 1]},
            "omit_sections": {"type": "array", "items": _STRING},
        },
    },
    "is_complete_request": {"required": ["code"], "properties": {"code": _STRING}},
    "history_request": {
        "properties": {
            "output": _BOOL,
            "raw": _BOOL,
            "hist_access_type": {"enum": ["range", "tail", "search"]},
            "session": _INT_OR_NULL,
            "start": _INT_OR_NULL,
            "stop": _INT_OR_NULL,
            "n": _INT_OR_NULL,
            "pattern": _STRING,
            "unique": _BOOL,
        },
    },
    "comm_info_request": {"properties": {"target_name": {"type": ["string", "null"]}}},
    "kernel_info_request": {},
    "connect_request": {},
    "shutdown_request": {"required": ["restart"], "properties": {"restart": _BOOL}},
    "interrupt_request": {},
}
"""Per request type, the JSON Schema of its content (always an object; see the module docstring)."""


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON integers only: not booleans, not integral floats such as ``3.0``."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _validators() -> dict[str, Any]:
    """The validator of each request type, made at the first request that has fields to check:
    ``jsonschema`` is imported then, not with the kernel (the services, which start with the
    kernel in a worker thread, import it meanwhile)."""
    from codemode.schema import jsonschema

    base = jsonschema.Draft202012Validator
    validator = jsonschema.validators.extend(base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer))
    return {name: validator({"type": "object", **schema}) for name, schema in SCHEMAS.items()}


_JSON_TYPE_NAMES = {
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


_PYTHON_TO_JSON = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"), (list, "an array"))


def json_type(value: Any) -> str:
    """The JSON type of ``value`` as a noun phrase (``a string``, ``a number``, ``null``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    return next((name for kind, name in _PYTHON_TO_JSON if isinstance(value, kind)), type(value).__name__)


def _expected(schema: dict[str, Any]) -> str:
    """What ``schema`` asks for, as a noun phrase."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) if isinstance(v, str) else str(v) for v in schema["enum"])
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    words = [_JSON_TYPE_NAMES.get(k, k) for k in kinds]
    if "items" in schema:
        words = [f"{w} of strings" if w == "an array" else w for w in words]
    if "minimum" in schema:
        words = [f"{w} >= {schema['minimum']}" if w == "an integer" else w for w in words]
    return " or ".join(words)


def _sentence(msg_type: str, error: ValidationError) -> str:
    """The ``evalue`` for one validation error of a ``msg_type`` request's content."""
    schema = SCHEMAS[msg_type]
    properties = schema.get("properties", {})
    if not error.absolute_path and error.validator == "type":
        return (
            f"The {msg_type}'s content must be a JSON object, but it is {json_type(error.instance)}. "
            "Send the fields the Jupyter messaging specification defines for this request."
        )
    if error.validator == "required":
        field = next(f for f in schema["required"] if f not in error.instance)
        return (
            f"The {msg_type} has no field '{field}'; it must be {_expected(properties[field])}. "
            "Add the field and send the request again."
        )
    path = list(error.absolute_path)
    field = str(path[0])
    value = error.instance
    where = f"'{field}'" if len(path) == 1 else f"'{field}' (at {'/'.join(str(p) for p in path)})"
    expected = _expected(properties.get(field, {})) if len(path) == 1 else _expected(error.schema)
    shown = repr(value) if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else None
    got = json_type(value) + (f" ({shown})" if shown is not None else "")
    return f"The {msg_type}'s field {where} must be {expected}, but it is {got}. Correct it and send the request again."


def check_request(msg_type: str, message: dict[str, Any]) -> str | None:
    """None when ``message`` (a deserialized request) is a valid ``msg_type`` request, else
    the sentence to reply with: its metadata must be an object, its content must match
    :data:`SCHEMAS` (the first problem found, fields in the specification's order)."""
    metadata = message.get("metadata")
    if not isinstance(metadata, dict):
        return (
            f"The {msg_type}'s metadata must be a JSON object, but it is {json_type(metadata)}. "
            "Send an object (it may be empty)."
        )
    return check_content(msg_type, message.get("content"))


def check_content(msg_type: str, content: Any) -> str | None:
    """None when ``content`` is a valid ``msg_type`` content, else the sentence to reply with
    (the first problem found, fields in the specification's order)."""
    schema = SCHEMAS.get(msg_type)
    if schema is None or (not schema and isinstance(content, dict)):
        return None  # not checked, or a request that defines no fields (kernel_info_request)
    errors = sorted(_validators()[msg_type].iter_errors(content), key=lambda e: _order(msg_type, e))
    return _sentence(msg_type, errors[0]) if errors else None


def _order(msg_type: str, error: ValidationError) -> tuple[int, int]:
    """Sort key: a non-object content first, then missing fields, then fields in schema order."""
    if not error.absolute_path:
        return (0, 0) if error.validator == "type" else (1, 0)
    fields = list(SCHEMAS[msg_type].get("properties", {}))
    field = str(error.absolute_path[0])
    return (2, fields.index(field) if field in fields else len(fields))


def error_reply(msg_type: str, evalue: str, execution_count: int) -> dict[str, Any]:
    """The content of the error reply to a malformed ``msg_type`` request."""
    content: dict[str, Any] = {
        "status": "error",
        "ename": INVALID_REQUEST_ENAME,
        "evalue": evalue,
        "traceback": [f"{INVALID_REQUEST_ENAME}: {evalue}"],
    }
    if msg_type == "execute_request":
        content["execution_count"] = execution_count
    return content


def reply_metadata(msg_type: str) -> dict[str, Any]:
    """The metadata of the error reply to a malformed ``msg_type`` request: an execute_reply
    carries ``metadata.codemode`` like every other (no cell ran: ``cell_id`` and ``status``
    null, ``wall_time_ms`` 0, no tool calls)."""
    if msg_type != "execute_request":
        return {}
    return {"codemode": {"cell_id": None, "status": None, "wall_time_ms": 0, "tool_calls": []}}


_SUBSHELLS_REFUSED = (
    "The kernel has no subshells (its kernel_info lists no 'kernel subshells'): its cells share one "
    "code-mode session and run one at a time, in the order the shell channel receives them. Send "
    "requests on the shell channel without a subshell_id."
)

REFUSED_ON_CONTROL: dict[str, str] = {
    "execute_request": (
        "The kernel runs cells from the shell channel only: its cells share one code-mode session and "
        "run one at a time, in the order the shell channel receives them. Send the execute_request on "
        "the shell channel."
    ),
    "create_subshell_request": _SUBSHELLS_REFUSED,
    "delete_subshell_request": _SUBSHELLS_REFUSED,
    "list_subshell_request": _SUBSHELLS_REFUSED,
}
"""Control requests ipykernel 7 handles that this kernel refuses, with the error reply's
``evalue``. ipykernel's control channel takes every shell request (``Kernel.control_msg_types``)
and runs an ``execute_request`` there on the control thread, beside the shell's cell: here it
ran (its ``store()`` took effect) but was never answered, and nothing orders it against the
shell's cells. ipykernel accepts ``create_subshell_request`` whenever it has a shell channel
thread (JEP 91), although this kernel's ``kernel_info`` lists no subshells; a cell sent to such
a subshell that awaited a tool never replied."""


Handler = Callable[[Any, Any, dict[str, Any]], Awaitable[None]]


def install(kernel: Any) -> None:
    """Wrap ``kernel``'s shell and control handlers of the :data:`SCHEMAS` types so that a
    malformed request gets an error reply (through ``kernel.session`` on the request's stream)
    instead of reaching the handler, and drop the control handlers of
    :data:`REFUSED_ON_CONTROL` (such a request then gets its error reply from
    :func:`unanswered_problem`)."""
    for msg_type in REFUSED_ON_CONTROL:
        kernel.control_handlers.pop(msg_type, None)
    for handlers in (kernel.shell_handlers, kernel.control_handlers):
        for msg_type in SCHEMAS:
            if msg_type in handlers:
                handlers[msg_type] = _checked(kernel, msg_type, handlers[msg_type])


def _checked(kernel: Any, msg_type: str, handler: Handler) -> Handler:
    reply_type = msg_type.replace("_request", "_reply")

    async def checked(stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        problem = check_request(msg_type, parent)
        if problem is None:
            await handler(stream, ident, parent)
            return
        log.warning("malformed %s: %s", msg_type, problem)
        if kernel.session is not None:
            content = error_reply(msg_type, problem, kernel.last_execution_count)
            metadata = reply_metadata(msg_type)
            kernel.session.send(stream, reply_type, content, parent, metadata=metadata, ident=ident)

    return checked


def _frame_bytes(frame: Any) -> bytes:
    return bytes(frame.bytes) if hasattr(frame, "bytes") else bytes(frame)


def _problem(session: Any, frames: list[Any], handlers: dict[str, Any], channel: str) -> str | None:
    """What would make ipykernel drop a request (read from the raw frames, signature unchecked),
    or None; also None for what is not a request or cannot be read at all."""
    if len(frames) < 5:
        return None
    try:
        header = session.unpack(_frame_bytes(frames[1]))
        msg_type = str(header.get("msg_type", ""))
    except Exception:
        return None
    if not msg_type.endswith("_request"):
        return None
    if msg_type not in handlers:
        if channel == "control" and msg_type in REFUSED_ON_CONTROL:
            return REFUSED_ON_CONTROL[msg_type]
        return (
            f"The kernel does not handle {msg_type} on the {channel} channel; see the Jupyter messaging "
            "specification for the requests of each channel."
        )
    try:
        session.unpack(_frame_bytes(frames[4]))
    except Exception as exc:
        return f"The {msg_type}'s content is not valid JSON ({exc}); send a JSON object."
    return None


def unanswered_problem(
    session: Any, frames: list[Any], handlers: dict[str, Any], channel: str = "shell"
) -> tuple[dict[str, Any], str] | None:
    """For a message of ``channel`` (``frames`` after the identities; ``handlers`` are the
    channel's) that ipykernel would drop without a reply although it is a correctly signed
    request: ``(message, sentence)``, where ``message`` has its header read (content left
    packed) and ``sentence`` says what is wrong. None for every other message (ipykernel
    handles it, or drops it as it should). Every message passes here: only the header's type
    and the content's JSON are read, and the message is deserialized (its signature checked)
    only when one of them is wrong."""
    problem = _problem(session, frames, handlers, channel)
    if problem is None:
        return None
    try:
        peek = session.deserialize(frames, content=False, copy=False)  # checks the signature
    except Exception:
        return None
    return peek, problem
