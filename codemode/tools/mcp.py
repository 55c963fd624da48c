"""MCP servers as tool sources, through the official ``mcp`` SDK (stdio and streamable HTTP).

One :class:`McpClient` per ``[mcp_servers.NAME]`` table: the host-side connection to one
server (the MCP specification's "client"; the SDK's ``MCPServer`` is the other end):

- started in the background when the registry is created; a server that has not started
  within ``startup_timeout_sec`` (counted from the start) is stopped there and then, its
  process included, and reported with a clear error; one that fails to start is stopped too;
- stdio servers are spoken to through :mod:`codemode.tools.stdio_transport` (the SDK's
  transport with a line reader that is linear, not quadratic, in a message's length) and the
  SDK's ``ClientSession``; they run in their own process session, their stderr is logged line
  by line (a start-up failure quotes the last lines); on close stdin is closed, the server
  gets 2 s, then its process group is killed. Each server runs under
  :mod:`codemode.tools.launcher`, which kills the server and everything it started when the
  kernel dies without cleaning up (SIGKILL) - no orphans;
- a listed tool whose definition is invalid is skipped with a sentence naming the server, the
  tool and the field; the server's other tools still load (:mod:`codemode.tools.mcp_listing`);
- tools are exposed as ``mcp__<server>__<tool>`` (Codex's MCP naming,
  :func:`~codemode.wire.tool_names.mcp_tool_name`), filtered
  by ``enabled_tools`` / ``disabled_tools``; their output type is MCP's ``CallToolResult``;
  their ``ALL_TOOLS`` description starts with the server's description and instructions
  (:func:`namespace_description`);
- a call returns the ``CallToolResult`` as on the wire (camelCase ``content``,
  ``structuredContent``, ``isError`` when the server sent them) without the top-level
  ``_meta``; a tool error resolves with ``isError: true``; progress notifications go to the
  dispatcher's listeners; cancelling a call cancels the SDK request, which sends MCP's
  ``notifications/cancelled``; a call gets ``tool_timeout_sec`` of the server's active time,
  which stops while the server's elicitation is put to a person
  (:class:`~codemode.tools.mcp_elicitation.ActiveClock`), and is cancelled the same way when
  it runs out;
- a server that crashed is restarted on the next call; the call that was in flight when it
  died is rejected with a sentence saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from contextlib import AsyncExitStack
from typing import Any

from codemode.config import McpServerConfig
from codemode.errors import ToolCallError
from codemode.tools.base import Tool, ToolContext
from codemode.tools.failures import ContainedError, contained, exception_text
from codemode.tools.launcher import launcher_argv
from codemode.tools.mcp_elicitation import Elicitations
from codemode.tools.mcp_listing import LenientJSONRPCDispatcher
from codemode.tools.mcp_stdio import StderrPipe, server_command
from codemode.tools.stdio_lines import UNREADABLE_LINE, UNWRITABLE_REQUEST
from codemode.tools.typescript import mcp_output_schema
from codemode.wire.tool_names import mcp_tool_name

logger = logging.getLogger(__name__)


def call_tool_result_to_json(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as JS sees it: the fields the server sent, as on the wire
    (camelCase), top-level ``_meta`` removed, ``content`` always present. ``isError`` is there
    when the server sent it, as Codex CLI 0.171.0 delivered an MCP result to a code-mode cell:
    ``server-everything``'s ``get-sum`` gave ``{"content":[{"type":"text","text":"The sum of 2
    and 3 is 5."}]}``, its failed call ``{"content":[...],"isError":true}``. The SDK's defaults
    for fields the server left out (``isError: false``) are not added."""
    data = result.model_dump(by_alias=True, mode="json", exclude_none=True, exclude_unset=True)
    data.pop("_meta", None)
    data.pop("resultType", None)
    data.setdefault("content", [])
    return data


def namespace_description(initialized: Any) -> str | None:
    """The text put before each tool description of a server's namespace.

    ``initialized`` is the server's ``InitializeResult``. The text is its ``serverInfo``
    ``description`` and its ``instructions``, each when not blank, joined by a blank line
    (Codex shows the server's own description/instructions in front of its tools); ``None``
    when the server gives neither.
    """
    info = getattr(initialized, "server_info", None)
    parts = [getattr(info, "description", None), getattr(initialized, "instructions", None)]
    texts = [part.strip() for part in parts if isinstance(part, str) and part.strip()]
    return "\n\n".join(texts) or None


class McpClient:
    """The connection to one configured MCP server, and the server's tools.

    ``name`` is the server's configured name; ``tools`` is empty until the server has started.
    ``folder`` is the working folder of a stdio server
    (:func:`~codemode.tools.mcp_stdio.server_folder`; default: its ``cwd``, or the kernel's).
    ``elicitations`` answers the server's ``elicitation/create`` requests
    (:class:`~codemode.tools.mcp_elicitation.Elicitations`; default: under
    ``approval_policy = "on-request"`` in a sandbox).
    """

    def __init__(
        self, config: McpServerConfig, folder: str | None = None, elicitations: Elicitations | None = None
    ) -> None:
        self.config = config
        self.elicitations = elicitations or Elicitations(config.name)
        self.folder = folder if folder is not None else config.cwd
        self.name = config.name
        self.tools: list[Tool] = []
        self.namespace_description: str | None = None
        self._startup_error: str | None = None
        self._tool_problems: list[str] = []
        self._stderr: StderrPipe | None = None
        self._client_session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._started: asyncio.Event | None = None
        self._closing = False
        self._broken = False
        self._lock = asyncio.Lock()
        self.restarts = 0

    @property
    def errors(self) -> list[str]:
        """Start-up problems, as sentences: why the server did not start (quoting its last
        stderr lines), or the tools it listed that were skipped as invalid
        (:mod:`codemode.tools.mcp_listing`)."""
        return ([self._startup_error] if self._startup_error else []) + list(self._tool_problems)

    @property
    def running(self) -> bool:
        """True while a connected session exists."""
        return (
            not self._broken and self._client_session is not None and self._task is not None and not self._task.done()
        )

    # -- lifetime --------------------------------------------------------------------
    def start(self) -> None:
        """Start the server in a background task (returns at once)."""
        self._stop = asyncio.Event()
        self._started = asyncio.Event()
        self._broken = False
        self._task = asyncio.ensure_future(self._run(self._stop, self._started))

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        cfg = self.config
        if cfg.url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            headers = dict(cfg.http_headers)
            if cfg.bearer_token_env_var:
                token = os.environ.get(cfg.bearer_token_env_var)
                if not token:
                    raise RuntimeError(
                        f"the environment variable {cfg.bearer_token_env_var} (bearer_token_env_var) is not set"
                    )
                headers["Authorization"] = f"Bearer {token}"
            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(streamable_http_client(cfg.url, http_client=client))
            return streams[0], streams[1]
        from mcp import StdioServerParameters

        from codemode.tools.stdio_transport import stdio_transport

        pipe = self._stderr = StderrPipe(self.name)
        stack.push_async_callback(pipe.aclose)
        command, env = server_command(cfg.command or "", cfg.env)
        argv = launcher_argv(command, list(cfg.args))
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=self.folder)
        streams = await stack.enter_async_context(stdio_transport(params, errlog=pipe.writer))
        pipe.close_writer()
        return streams[0], streams[1]

    def _with_stderr(self, sentence: str) -> str:
        """``sentence`` followed by the server's last stderr lines, when it wrote any."""
        tail = self._stderr.tail() if self._stderr is not None else ""
        return f"{sentence} Its last output on stderr:\n{tail}" if tail else sentence

    async def _run(self, stop: asyncio.Event, started: asyncio.Event) -> None:
        """The server's life: start it (bounded by ``startup_timeout_sec``), serve until
        ``stop`` is set, then stop it. Never raises except ``CancelledError``.

        Every way out of the start-up (failure, time-out, cancellation) leaves through the
        exit stack, whose stdio transport stops the process (close stdin, 2 s, then kill the
        group, as the MCP SDK does); ``started`` is set as soon as the outcome is known, so
        waiters do not wait for that clean-up.
        """
        from mcp import ClientSession

        timeout = self.config.startup_timeout_sec
        self._stderr = None
        self._tool_problems = []
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(timeout):
                        read, write = await self._open_transport(stack)
                        rpc = LenientJSONRPCDispatcher(read, write, server=self.name)
                        session = await stack.enter_async_context(
                            ClientSession(dispatcher=rpc, elicitation_callback=self.elicitations.answer)
                        )
                        initialized = await session.initialize()
                        rpc.protocol_version = getattr(initialized, "protocol_version", None)
                        self.namespace_description = namespace_description(initialized)
                        listed = await self._list_tools(session)
                        self._tool_problems = list(rpc.problems)
                except TimeoutError:
                    self._startup_error = self._with_stderr(
                        f"MCP server `{self.name}` did not start within {timeout:g} s "
                        "(startup_timeout_sec) and was stopped; its tools are unavailable."
                    )
                    logger.warning(self._startup_error)
                    started.set()
                    return  # leaving the stack stops the process
                self.tools = self._make_tools(listed)
                self._client_session = session
                self._startup_error = None
                started.set()
                logger.info("MCP server %s started with %d tools", self.name, len(self.tools))
                await stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - reported, never raised into the kernel
            reason = _describe(exc)
            if not started.is_set():
                self._startup_error = self._with_stderr(f"MCP server `{self.name}` failed to start: {reason}.")
                logger.warning(self._startup_error)
            else:
                logger.warning("MCP server %s stopped: %s", self.name, reason)
        finally:
            self._client_session = None
            started.set()

    async def _list_tools(self, session: Any) -> list[Any]:
        """Every page of the server's ``tools/list`` (the SDK's ``Tool`` objects)."""
        from mcp_types import PaginatedRequestParams

        tools: list[Any] = []
        cursor = None
        while True:
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                return tools

    def _make_tools(self, listed: list[Any]) -> list[Tool]:
        cfg = self.config
        out: list[Tool] = []
        for item in listed:
            if cfg.enabled_tools is not None and item.name not in cfg.enabled_tools:
                continue
            if item.name in cfg.disabled_tools:
                continue
            namespace, name = mcp_tool_name(self.name, item.name)
            out.append(
                Tool(
                    name=name,
                    namespace=namespace,
                    namespace_description=self.namespace_description,
                    description=item.description or "",
                    handler=self._handler(item.name),
                    input_schema=item.input_schema if isinstance(item.input_schema, dict) else None,
                    output_schema=mcp_output_schema(
                        item.output_schema if isinstance(item.output_schema, dict) else None
                    ),
                    supports_parallel=True,
                    waits_for_cancellation=True,
                    origin=f"mcp:{self.name}",
                )
            )
        return out

    @property
    def settled(self) -> bool:
        """True once the server started or gave up (its tools, if any, are known)."""
        return self._started is not None and self._started.is_set()

    async def wait_started(self) -> bool:
        """Wait until the server runs or gave up; True when it runs.

        Bounded by the server's own start-up deadline (``startup_timeout_sec``, counted from
        :meth:`start`, enforced by the server task, which stops the process when it passes),
        not by when this is called.
        """
        if self._started is None:
            return False
        await self._started.wait()
        return self.running

    async def _ensure_running(self) -> Any:
        async with self._lock:
            if self._closing:
                raise ToolCallError(f"MCP server `{self.name}` is shutting down.")
            if self._started is not None and self._started.is_set() and not self.running:
                await self._stop_task()
            if self._task is None or self._task.done():
                self.restarts += 1
                logger.info("restarting MCP server %s", self.name)
                self.start()
            if not await self.wait_started():
                detail = self._startup_error or f"MCP server `{self.name}` is not running."
                raise ToolCallError(detail)
            return self._client_session

    async def _stop_task(self) -> None:
        """Stop the server task and wait until its process is gone.

        A running server is asked to stop (``stop``) and gets up to 10 s for the transport's
        clean-up before it is cancelled; a server still starting has nothing to finish, so its
        task is cancelled at once (the transport's clean-up still runs, shielded, so the process
        is stopped either way).
        """
        if self._stop is not None:
            self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self._started is not None and self._started.is_set():
            try:
                async with asyncio.timeout(10):
                    await asyncio.shield(task)
                return
            except (TimeoutError, Exception):
                pass
        task.cancel()
        with contextlib.suppress(BaseException):
            await task

    async def aclose(self) -> None:
        """Stop the server, whether it runs, is starting or gave up, and wait for its
        process to be gone."""
        self._closing = True
        await self._stop_task()

    async def resources_request(self, method: str, cursor: str | None = None, uri: str = "") -> dict[str, Any]:
        """One resources request to the server (restarting it if it crashed): ``method``
        ``resources/list`` or ``resources/templates/list`` (one page: ``cursor``, if any) or
        ``resources/read`` (``uri``), bounded by ``tool_timeout_sec``. Returns the result as on
        the wire (camelCase, the fields the server sent). Raises :class:`ToolCallError` with
        a sentence when the server is not running, did not answer in time or answered an error."""
        from mcp_types import PaginatedRequestParams

        session = await self._ensure_running()
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        try:
            async with asyncio.timeout(self.config.tool_timeout_sec):
                if method == "resources/list":
                    result = await session.list_resources(params=params)
                elif method == "resources/templates/list":
                    result = await session.list_resource_templates(params=params)
                else:
                    result = await session.read_resource(uri)
        except TimeoutError:
            raise ToolCallError(
                f"MCP server `{self.name}` did not answer {method} within {self.config.tool_timeout_sec:g} s "
                "(tool_timeout_sec)."
            ) from None
        except Exception as exc:  # noqa: BLE001 - said in the sentence
            raise ToolCallError(_describe(exc)) from exc
        data: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True, exclude_unset=True)
        data.pop("resultType", None)
        return data

    # -- calls ---------------------------------------------------------------------
    def _handler(self, tool_name: str):
        async def handle(args: Any, ctx: ToolContext) -> dict[str, Any]:
            return await self.call(tool_name, args, ctx)

        return handle

    async def call(self, tool_name: str, args: dict[str, Any] | None, ctx: ToolContext) -> dict[str, Any]:
        """Call ``tool_name`` on the server (restarting it if it crashed). Raises
        :class:`ToolCallError` on protocol errors, time-outs, a crash or cancellation."""
        session = await self._ensure_running()
        with self.elicitations.calling(tool_name, ctx):
            return await self._call(session, tool_name, args, ctx)

    async def _call(
        self, session: Any, tool_name: str, args: dict[str, Any] | None, ctx: ToolContext
    ) -> dict[str, Any]:
        async def progress(value: float, total: float | None, message: str | None) -> None:
            ctx.report_progress(value, total, message)

        call = asyncio.ensure_future(
            contained(
                session.call_tool(
                    tool_name,
                    args or {},
                    progress_callback=progress,
                )
            )
        )
        cancel = asyncio.ensure_future(ctx.cancellation.wait())
        clock = self.elicitations.clock
        deadline = asyncio.ensure_future(clock.wait_active(self.config.tool_timeout_sec, clock.active_time()))
        try:
            await asyncio.wait({call, cancel, deadline}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancel.cancel()
            timed_out = deadline.done() and not call.done()
            deadline.cancel()
            if not call.done():
                call.cancel()
                with contextlib.suppress(BaseException):
                    await call
        if ctx.cancellation.cancelled and (call.cancelled() or call.exception() is not None):
            raise ToolCallError(f"the call to MCP tool `{tool_name}` was cancelled.")
        if timed_out:
            raise ToolCallError(
                f"MCP tool `{tool_name}` did not answer within {self.config.tool_timeout_sec:g} s (tool_timeout_sec)."
            )
        if call.cancelled():
            raise ToolCallError(f"the call to MCP tool `{tool_name}` was cancelled.")
        exc = call.exception()
        if exc is not None:
            raise self._call_error(tool_name, exc)
        return call_tool_result_to_json(call.result())

    def _call_error(self, tool_name: str, exc: BaseException) -> ToolCallError:
        """The sentence for a call that raised ``exc``. The SDK's own codes tell a time-out
        (``REQUEST_TIMEOUT``) and a lost connection (``CONNECTION_CLOSED``, which also marks the
        server for a restart) from an error the server answered; an answer the transport could
        not read is named as such (:data:`~codemode.tools.stdio_lines.UNREADABLE_LINE`)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, PARSE_ERROR, REQUEST_TIMEOUT

        text = _describe(exc)
        if isinstance(exc, MCPError):
            if exc.code == PARSE_ERROR and exc.data == UNREADABLE_LINE:
                return ToolCallError(
                    f"MCP server `{self.name}` answered the call to `{tool_name}` with a line that cannot "
                    f"be read: {exc.message}."
                )
            if exc.data == UNWRITABLE_REQUEST:
                return ToolCallError(
                    f"the call to MCP tool `{tool_name}` could not be sent to MCP server `{self.name}`: {exc.message}."
                )
            if exc.code == REQUEST_TIMEOUT:
                return ToolCallError(
                    f"MCP tool `{tool_name}` did not answer within {self.config.tool_timeout_sec:g} s "
                    "(tool_timeout_sec)."
                )
            lost = exc.code == CONNECTION_CLOSED and exc.message == "Connection closed"
        else:
            lost = "closed" in text.lower() or "connection" in text.lower()
        if lost or (self._task is not None and self._task.done()):
            self._broken = True
            if self._stop is not None:
                self._stop.set()
            return ToolCallError(
                f"MCP server `{self.name}` stopped during the call to `{tool_name}` ({text}); "
                "it is restarted on the next call."
            )
        if isinstance(exc, MCPError):
            return ToolCallError(f"MCP server `{self.name}` rejected the call to `{tool_name}`: {text}")
        return ToolCallError(f"the call to MCP tool `{tool_name}` failed: {text}")


def _describe(exc: BaseException) -> str:
    """``exc`` as text for a sentence: its message (each member's, for a group; the type's
    name with the message for one that :func:`~codemode.tools.failures.contained` carried)."""
    if isinstance(exc, ContainedError):
        inner = exception_text(exc.original)
        return f"{type(exc.original).__name__}: {inner}" if inner else type(exc.original).__name__
    if isinstance(exc, BaseExceptionGroup):
        inner_texts = [_describe(e) for e in exc.exceptions]
        if inner_texts:
            return "; ".join(inner_texts)
    return exception_text(exc) or type(exc).__name__
