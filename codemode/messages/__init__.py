"""Every message of the code-mode host protocol (version 1), typed once for host and client.

A message is a JSON object; here each one is a :class:`typing.TypedDict` (so a message *is*
the plain ``dict`` that :func:`codemode.protocol.encode_frame` writes and
:func:`codemode.protocol.decode_frames` returns) with one constructor function per message.
The constructors are the only place a message is spelled out; the ``parse_*`` functions turn
what the other side sent into these typed forms, or raise :class:`MessageError` with a
sentence that says what was wrong. This module imports only the standard library, so the
host (``codemode.runtime``) can use it without pulling in client code.

The messages (field names are the wire names; Codex's host ``codex-rs/code-mode-host``):

- handshake: :func:`hello` (client), :func:`ready` / :func:`rejected` (host);
- client to host: :func:`operation_request` carrying one method body (:func:`open_body`,
  :func:`execute_body`, :func:`wait_body`, :func:`terminate_body`, :func:`shutdown_body`),
  the controls :func:`operation_yield` and :func:`operation_cancel` (aimed at an earlier
  request id), and :func:`delegate_response`;
- host to client: :func:`operation_response`, :func:`initial_response`
  (``execute/initialResponse``), :func:`tool_invoke` / :func:`notification_send` (the two
  ``delegate/request`` kinds), :func:`delegate_cancel`, :func:`cell_closed`, and codemode's
  extensions :func:`stored_values` (``session/storedValues``) and :func:`host_exiting`;
- results: :func:`ok` / :func:`error`; success values :func:`session_ready`,
  :func:`execution_started`, :func:`wait_completed`, :func:`session_closed`,
  :func:`tool_result`, :func:`notification_delivered`;
- runtime responses :func:`yielded` / :func:`terminated` / :func:`result` (externally tagged),
  wait outcomes :func:`live_cell` / :func:`missing_cell`, and content items
  :func:`input_text` / :func:`input_image` / :func:`input_audio`.

Why TypedDicts (measured with ``bench/wire_messages.py``, CPython 3.11, this machine; a
typical ``session/execute`` with 12 tool definitions, and an ``execute/initialResponse``
carrying 1 MB of text; each figure is one build + encode, or one decode + validation):

=====================================  ============  ============  ===========  ===========
candidate                              execute enc.  execute dec.  1 MB enc.    1 MB dec.
=====================================  ============  ============  ===========  ===========
TypedDict + constructors (this module) 24 us         22 us         1.9 ms       1.7 ms
dataclasses with ``to_wire``           32 us         40 us         1.9 ms       1.7 ms
pydantic 2 models (``model_dump_json``) 36 us        37 us         3.8 ms       2.9 ms
=====================================  ============  ============  ===========  ===========

All three spend the large-frame time in JSON and UTF-8 work; the dataclasses add a
conversion on every message both ways, and pydantic adds its own serialiser plus about
150 ms of import time in the host's start-up (and a dependency the host does not otherwise
need). TypedDicts cost nothing at run time and still give mypy every field.
"""

from .events import *  # noqa: F403
from .handshake import *  # noqa: F403
from .requests import *  # noqa: F403
from .results import *  # noqa: F403
