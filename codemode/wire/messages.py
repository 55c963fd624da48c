"""Every message of the code-mode host protocol (version 1), typed once for host and client.

A message is a JSON object; here each one is a :class:`typing.TypedDict` (so a message *is*
the plain ``dict`` that :func:`codemode.wire.framing.encode_frame` writes and
:func:`codemode.wire.framing.decode_frames` returns) with one constructor function per message.
The constructors are the only place a message is spelled out. Each end decodes what the other
sent into these types: the host every client message into :data:`ClientMessage`
(:func:`codemode.runtime.validate.decode_client_frame`, whose serde-style spec has the same
fields, ``tests/codemode/test_wire_shapes.py``), the client every host message into
:data:`HostMessage` (:func:`codemode.host.incoming.decode`, which keeps fields it does not know:
newer Codex hosts add some). Both dispatch on ``type`` with ``match`` and
:func:`typing.assert_never`, so mypy names a message type left unhandled. The ``parse_*``
functions type the parts read later (an answer's result), or raise :class:`MessageError` with
a sentence that says what was wrong. This module imports only the standard library, so the
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
  extensions :func:`stored_values` (``session/storedValues``, which the client also sends a
  new host, :mod:`codemode.wire.stored_values`) and :func:`host_exiting`;
- codemode's ``session/bindings`` (:mod:`codemode.wire.session_bindings`): :func:`bindings_body`,
  answered with :func:`bindings_listed`;
- results: :func:`ok` / :func:`error`; success values :func:`session_ready`,
  :func:`execution_started`, :func:`wait_completed`, :func:`session_closed`,
  :func:`tool_result`, :func:`notification_delivered`;
- runtime responses :func:`yielded` / :func:`terminated` / :func:`result` (externally tagged),
  wait outcomes :func:`live_cell` / :func:`missing_cell`, and content items
  :func:`input_text` / :func:`input_image` / :func:`input_audio`.

Why TypedDicts: ``bench/wire_messages.py`` measures the three candidates on a typical
``session/execute`` request (12 tool definitions) and on an ``execute/initialResponse``
carrying 1 MB of text; "encode" is building the message plus framing it, "decode" is
unframing plus checking it into its typed form. Best of 5, microseconds, CPython 3.11 on this
project's 2-core machine under load from other jobs (repeated runs vary by up to 50 %):

==============================  ===========  ===========  ===========  ===========
candidate                       execute enc  execute dec  1 MB enc     1 MB dec
==============================  ===========  ===========  ===========  ===========
TypedDict + constructors        64           31           5 000        2 400
dataclasses with ``to_wire``    62           41           4 000        2 500
pydantic 2 models               34           42           940          420
==============================  ===========  ===========  ===========  ===========

pydantic is the fastest on large frames (its JSON codec is compiled), but importing it and
building the models adds about 290 ms to every host start (the first spawn and each rebuild),
and it would become a dependency of the host process, whose start-up import set stays
minimal. The dataclasses cost a conversion both ways and win nothing. TypedDicts are the plain
dicts the JSON codec reads and writes and still give mypy every field; a megabyte frame costs a
few milliseconds, small beside the cell that produced it. At run time the message types are
plain ``dict`` subclasses (:mod:`codemode.wire.typeddict`): building the 39 real TypedDicts
cost every host start about 2.5 ms.
"""

from codemode.wire.client_messages import *  # noqa: F403
from codemode.wire.handshake import *  # noqa: F403
from codemode.wire.host_messages import *  # noqa: F403
from codemode.wire.results import *  # noqa: F403
from codemode.wire.session_bindings import *  # noqa: F403
