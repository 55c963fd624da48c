"""The delegate of one remote session (:class:`~codemode.host.SessionDelegate`): routes what
the host asks of that remote session into the owning :class:`~codemode.session.CodeModeSession`,
translating host cell ids to public ones (``g<generation>:<id>`` after a rebuild)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cancellation import CancellationToken
from .errors import ToolCallError

if TYPE_CHECKING:
    from .session import CodeModeSession


class SessionDelegateAdapter:
    """Tool calls go to the session's dispatcher, notifications to ``on_notify``, closed cells
    and stored values to the session's records. ``generation`` is the host generation of the
    remote session."""

    def __init__(self, session: CodeModeSession, generation: int) -> None:
        self.session = session
        self.generation = generation

    def _public(self, host_cell_id: str) -> str:
        return self.session.public_cell_id(host_cell_id, self.generation)

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        public_id = self._public(str(invocation.get("cell_id")))
        # The cell may be reported before execute() returned; make sure it is known as live.
        self.session._cell_opened(public_id)
        result = await self.session.dispatcher.invoke(public_id, invocation, cancellation)
        if result.outcome == "completed":
            return result.value
        raise ToolCallError(result.error or "tool call failed")

    async def notify(self, call_id: str, cell_id: str, text: str) -> None:
        callback = self.session.on_notify
        if callback is not None:
            callback(self._public(cell_id), text)

    def cell_closed(self, cell_id: str) -> None:
        public_id = self._public(cell_id)
        self.session._cell_opened(public_id)
        self.session._cell_closed(public_id)

    def stored_values(self, values: dict[str, Any]) -> None:
        self.session._merge_stored(values)
