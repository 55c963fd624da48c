"""The shape of a tool: :class:`Tool`, the handler contract and the per-call context.

A handler is ``async def handler(args, ctx) -> JSON``. ``args`` is the validated JSON object
(function tools), any JSON value (function tools with ``any_input``: ``None`` when the cell
passed none) or string (freeform tools); ``ctx`` is a :class:`ToolContext`. It raises
:class:`~codemode.errors.ToolCallError` (or any exception) to reject the JS promise with the
message. Cancellation: ``ctx.cancellation`` is cancelled first; tools with
``waits_for_cancellation`` are then awaited so they can clean up, the others are cancelled at
once (``asyncio.CancelledError``), as Codex's ``core/src/tools/parallel.rs`` does
(``waits_for_runtime_cancellation``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from codemode.cancellation import CancellationToken
from codemode.sandbox.approvals import Answer, ApprovalRequest
from codemode.tools.serde_arguments import SerdeStruct
from codemode.tools.typescript import augmented_description, render_declaration
from codemode.wire.tool_names import code_mode_name, normalize_identifier

ToolKind = Literal["function", "freeform"]
ProgressReporter = Callable[[float, "float | None", "str | None"], None]
OutputReporter = Callable[[str, str], None]
ApprovalRequester = Callable[[ApprovalRequest], Awaitable["Answer | None"]]
PersonAsker = Callable[[str], Awaitable["str | None"]]


def _no_progress(progress: float, total: float | None = None, message: str | None = None) -> None:
    """The default progress reporter: progress goes nowhere."""


def _no_output(name: str, text: str) -> None:
    """The default output reporter: printed text goes nowhere."""


async def _no_one_to_ask(request: ApprovalRequest) -> Answer | None:
    """The default approval requester: there is no one to ask (None)."""
    return None


async def _no_one_to_answer(prompt: str) -> str | None:
    """The default asker: there is no one to ask (None)."""
    return None


@dataclass
class ToolContext:
    """What a handler knows about its call.

    ``cell_id``: public cell id (``"1"``, ``"g2:1"``); ``runtime_tool_call_id``: ``tool-K``;
    ``cancellation``: cancelled when the call is aborted; ``report_progress(progress, total,
    message)`` forwards progress to the dispatcher's listeners; ``report_output(name, text)``
    forwards text the tool printed (``name`` ``"stdout"`` or ``"stderr"``) to them, for the
    calling cell to show. Both are called on the event loop. ``request_approval(request)`` asks
    a person (:class:`~codemode.sandbox.approvals.ApprovalRequest`) and returns their
    :data:`~codemode.sandbox.approvals.Answer`, or None when no one can be asked.
    ``ask_person(prompt)`` asks a person one line (an MCP server's elicitation,
    :mod:`codemode.tools.mcp_elicitation`) and returns their reply as they typed it, or None
    when no one can be asked; it finds no one where ``request_approval`` does.
    ``via_ended_cell``: in the notebook profile, the id of the ended cell whose helper made the
    call (a function that cell declared, called after it ended; the call acts for ``cell_id``,
    the latest cell still running, as its helpers do), else None. The shared context cannot
    tell which running cell's code called the function, so such a call may not ask a person
    in ``cell_id``'s name: its ``request_approval`` finds no one to ask.
    """

    cell_id: str
    runtime_tool_call_id: str
    cancellation: CancellationToken = field(default_factory=CancellationToken)
    report_progress: ProgressReporter = field(default=_no_progress)
    report_output: OutputReporter = field(default=_no_output)
    request_approval: ApprovalRequester = field(default=_no_one_to_ask)
    ask_person: PersonAsker = field(default=_no_one_to_answer)
    via_ended_cell: str | None = None


Handler = Callable[[Any, ToolContext], Awaitable[Any]]


@dataclass
class Tool:
    """One tool as the registry, the host and the dispatcher see it.

    ``name``/``namespace``: the wire ``tool_name`` (``{"name": "get-thing", "namespace":
    "mcp__srv__"}``); ``raw_name``: the code-mode name (``code_mode_name``); ``js_name``: the
    identifier on ``tools`` (:func:`~codemode.wire.tool_names.normalize_identifier`). ``kind`` is
    ``"function"`` or ``"freeform"``; ``supports_parallel`` selects the shared gate, otherwise
    calls are exclusive; ``waits_for_cancellation`` makes an abort await the handler's cleanup;
    ``any_input`` lets a function tool take any JSON value as its argument, not only an object
    (checked against ``input_schema`` all the same). ``arguments``: the Rust struct Codex reads
    a Codex tool's arguments into (:class:`~codemode.tools.serde_arguments.SerdeStruct`); when
    set, arguments that struct refuses fail with Codex's serde text, and keys it does not have
    are dropped before the schema is checked, as Codex ignores them.
    ``declaration`` is the ``declare const tools: {...}`` text (:mod:`codemode.tools.typescript`);
    ``origin`` says where the tool comes from (``builtin``, ``python:<module>``,
    ``mcp:<server>``).
    """

    name: str
    description: str
    handler: Handler
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    namespace: str | None = None
    namespace_description: str | None = None
    kind: ToolKind = "function"
    supports_parallel: bool = True
    waits_for_cancellation: bool = False
    any_input: bool = False
    arguments: SerdeStruct | None = None
    origin: str = "builtin"
    raw_name: str = ""
    js_name: str = ""
    declaration: str = ""

    def __post_init__(self) -> None:
        if not self.raw_name:
            self.raw_name = code_mode_name(self.name, self.namespace)
        if not self.js_name:
            self.js_name = normalize_identifier(self.raw_name)
        if not self.declaration:
            self.declaration = render_declaration(self.js_name, self.kind, self.input_schema, self.output_schema)

    @property
    def augmented_description(self) -> str:
        """The ``ALL_TOOLS`` description: namespace text, description, declaration."""
        return augmented_description(self.description, self.declaration, self.namespace_description)

    def definition(self) -> dict[str, Any]:
        """The ``enabled_tools`` entry of a ``session/execute`` request to the runtime host:
        ``{name, tool_name: {name, namespace}, description, kind, input_schema, output_schema}``."""
        return {
            "name": self.raw_name,
            "tool_name": {"name": self.name, "namespace": self.namespace},
            "description": self.augmented_description,
            "kind": self.kind,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
        }
