"""``CodeModeKernel``: a Jupyter kernel whose cells are code-mode JavaScript programs.

How code mode appears in Jupyter is ``design.md`` §4; the Jupyter side follows
``spec/jupyter-kernels.md``. In short:

- an execute request is a code-mode ``exec`` (optional first-line ``// @exec:`` pragma,
  parsed with ``codemode.pragma.parse_exec_source``; a ``PragmaError`` is shown as an
  ``error`` named ``PragmaError`` with Codex's exact text); a cell whose first line starts
  with ``%`` is a magic (:mod:`codemode.kernel.magics`);
- ``text()`` items are ``stream`` stdout lines, images/audio ``display_data``
  (:mod:`codemode.kernel.render`); a failure is an ``error`` message and reply status
  ``error``; a termination is the error ``CellTerminated``;
- a cell that yields gets its reply (status ok, metadata status ``running``) and a status
  display (``display_data`` with a ``display_id`` unique per cell and run), kept up to date
  by ``update_display_data`` while a :class:`~codemode.kernel.observer.CellObserver` follows
  the cell; every background message names its request explicitly as parent;
- ``notify()`` texts: while the cell is being executed or waited on, a ``display_data``
  (``text/plain``, metadata ``{"codemode": {"notify": cell_id}}``) under that request; for a
  background cell, the latest texts appear in its status display;
- an interrupt (SIGINT, in "signal" mode from the client, or from ipykernel's own
  ``interrupt_request`` handler in "message" mode) while an execute or ``%wait`` runs
  terminates that cell: its undelivered output is shown, then ``CellTerminated``. ipykernel's
  default handler would raise ``KeyboardInterrupt`` into the event loop and end the kernel
  (``recipes.md`` §2), so :meth:`pre_handler_hook` installs a handler that cancels the
  running request's task instead;
- every execute_reply carries ``metadata.codemode = {"cell_id", "status", "wall_time_ms",
  "tool_calls"}`` (status ``running|completed|failed|terminated``; ``cell_id`` None for
  magics that touch no cell).

The client layer (config, tool registry, dispatcher, session) is imported and built on the
first request that needs it, in a worker thread for the imports, so ``kernel_info`` answers
without loading ``mcp``.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
import uuid
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from ipykernel.kernelbase import Kernel

from codemode.kernel import completion, is_complete, magics, render
from codemode.kernel.cells import CellRecord, StatusDisplay, ToolProgress, cells_table, status_bundle
from codemode.kernel.observer import CellObserver
from codemode.responses import RuntimeResponse

log = logging.getLogger(__name__)

STATUS_TICK_S = 1.0
"""How often the status displays of running cells are refreshed (running time)."""
SHUTDOWN_TIMEOUT_S = 20.0
"""Upper bound for stopping the session and the tool servers at kernel shutdown."""


def _version(dist: str) -> str:
    try:
        return importlib_metadata.version(dist)
    except importlib_metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class _Request:
    """The execute request being handled: its message, flags and the cell it touches."""

    parent: dict[str, Any]
    silent: bool
    started: float = field(default_factory=time.monotonic)
    cell_id: str | None = None
    status: str | None = None
    interrupted: bool = False


@dataclass
class _Client:
    """The client layer, built once per kernel (see :meth:`CodeModeKernel._client`)."""

    config: Any
    registry: Any
    dispatcher: Any
    session: Any
    pragma: Any
    output: Any


def _import_client_modules() -> dict[str, Any]:
    """Import the client layer (run in a worker thread: ``mcp`` takes ~2 s to import)."""
    from codemode import config, output, pragma, session
    from codemode import dispatch
    from codemode.tools import registry

    return {
        "config": config,
        "output": output,
        "pragma": pragma,
        "session": session,
        "dispatch": dispatch,
        "registry": registry,
    }


class CodeModeKernel(Kernel):
    """The Code Mode (JavaScript) kernel; see the module docstring for the behaviour."""

    implementation = "codemode"
    implementation_version = _version("codemode-kernel")
    banner = (
        "Code Mode (JavaScript): cells are code-mode programs run in a QuickJS sandbox that "
        "call tools with `await tools.NAME(args)`.\n"
        "Magics: %wait, %terminate, %cells, %tools, %config."
    )
    language_info = {
        "name": "javascript",
        "version": _version("quickjs-ng"),
        "mimetype": "text/javascript",
        "file_extension": ".js",
        "codemirror_mode": "javascript",
        "pygments_lexer": "javascript",
        "nbconvert_exporter": "script",
    }
    help_links: list[dict[str, str]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client_future: asyncio.Future[_Client] | None = None
        self._cells: dict[str, CellRecord] = {}
        self._observers: dict[str, CellObserver] = {}
        self._foreground: asyncio.Task[Any] | None = None
        self._request: _Request | None = None
        self._reply_codemode: dict[str, Any] | None = None
        self._shown_errors: set[str] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._yield_time_ms: int | None = None
        self._max_output_tokens: int | None = None
        self._shutting_down = False

    # ------------------------------------------------------------------ kernel info

    @property
    def kernel_info(self) -> dict[str, Any]:
        """ipykernel's kernel_info without ``kernel subshells`` and ``debugger``: handlers on
        other threads would race the single session (``spec/jupyter-kernels.md`` §2.7)."""
        info = dict(super().kernel_info)
        info["supported_features"] = [
            f for f in info.get("supported_features", []) if f not in ("kernel subshells", "debugger")
        ]
        return info

    # ------------------------------------------------------------------ interrupts

    def pre_handler_hook(self) -> None:
        """While a shell handler runs, SIGINT cancels the running request's task."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        self.saved_sigint_handler = signal.signal(signal.SIGINT, self._on_sigint)

    def post_handler_hook(self) -> None:
        """Restore the SIGINT disposition ipykernel keeps between handlers (ignored)."""
        signal.signal(signal.SIGINT, self.saved_sigint_handler)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._interrupt_foreground)

    def _interrupt_foreground(self) -> None:
        task, request = self._foreground, self._request
        if task is None or task.done() or request is None or request.interrupted:
            return
        log.info("interrupt: terminating the cell of the running request")
        request.interrupted = True
        task.cancel()

    # ------------------------------------------------------------------ messaging

    def _send(self, msg_type: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        """Publish on IOPub with an explicit parent (background-safe)."""
        if self.session is None or self.iopub_socket is None:
            return
        self.session.send(
            self.iopub_socket, msg_type, content, parent=parent, ident=self._topic(msg_type)
        )

    def _emit(self, request: _Request, msg_type: str, content: dict[str, Any]) -> None:
        if not request.silent:
            self._send(msg_type, content, request.parent)

    def _emit_items(self, request: _Request, items: list[dict[str, Any]]) -> None:
        for msg_type, content in render.item_messages(items):
            self._emit(request, msg_type, content)

    def _error_reply(self, request: _Request, parts: render.ErrorParts) -> dict[str, Any]:
        """Publish an ``error`` message and return the matching reply content."""
        self._emit(request, "error", parts.content())
        return {"status": "error", "execution_count": self.execution_count, **parts.content()}

    def _ok_reply(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "execution_count": self.execution_count,
            "payload": [],
            "user_expressions": {},
        }

    def finish_metadata(self, parent: Any, metadata: dict[str, Any], reply_content: Any) -> dict[str, Any]:
        """Add ``metadata.codemode`` (cell id, status, wall time, tool-call timings)."""
        metadata = super().finish_metadata(parent, metadata, reply_content)
        if self._reply_codemode is not None:
            metadata["codemode"] = self._reply_codemode
            self._reply_codemode = None
        return metadata

    # ------------------------------------------------------------------ client layer

    async def _client(self) -> _Client:
        """The client layer, built on first use (shared by every later request).

        Raises whatever building it raised (e.g. an import error), and tries again next time.
        """
        if self._client_future is None:
            self._client_future = asyncio.ensure_future(self._build_client())
        try:
            return await asyncio.shield(self._client_future)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._client_future = None
            raise

    async def _build_client(self) -> _Client:
        mods = await asyncio.to_thread(_import_client_modules)
        config = mods["config"].load_config(cwd=Path.cwd())
        registry = await mods["registry"].ToolRegistry.create(config)
        dispatcher = mods["dispatch"].ToolCallRuntime(registry)
        dispatcher.add_listener(self._on_tool_event)
        session = mods["session"].CodeModeSession(
            registry=registry,
            dispatcher=dispatcher,
            defaults=config.session,
            on_notify=self._on_notify,
            on_cell_closed=self._on_cell_closed,
        )
        if self._yield_time_ms is None:
            self._yield_time_ms = config.session.yield_time_ms
        if self._max_output_tokens is None:
            self._max_output_tokens = config.session.max_output_tokens
        return _Client(config, registry, dispatcher, session, mods["pragma"], mods["output"])

    def _problems(self, client: _Client) -> list[str]:
        """Config and tool start-up problems, in the order they were found, each once.

        The registry's list already repeats the config's problems; duplicates are dropped.
        """
        found = list(getattr(client.config, "errors", [])) + list(getattr(client.registry, "errors", []))
        return list(dict.fromkeys(found))

    def _show_new_problems(self, client: _Client, request: _Request) -> None:
        """Show configuration problems not shown before (once each), on stderr."""
        new = [p for p in self._problems(client) if p not in self._shown_errors]
        if new:
            self._shown_errors.update(new)
            text = "".join(f"codemode configuration problem: {p}\n" for p in new)
            self._emit(request, "stream", {"name": "stderr", "text": text})

    # ------------------------------------------------------------------ callbacks

    def _in_loop(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)`` on the kernel's loop (now, if already there)."""
        loop = self._loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            fn(*args)
        else:
            loop.call_soon_threadsafe(fn, *args)

    def _on_notify(self, cell_id: str, text: str) -> None:
        self._in_loop(self._handle_notify, cell_id, text)

    def _handle_notify(self, cell_id: str, text: str) -> None:
        request = self._request
        if request is not None and request.cell_id == cell_id and not request.silent:
            self._send(
                "display_data",
                {"data": {"text/plain": text}, "metadata": {"codemode": {"notify": cell_id}}},
                request.parent,
            )
            return
        record = self._cells.get(cell_id)
        if record is not None:
            record.notifications.append(text)
            self._update_displays(record)

    def _on_cell_closed(self, cell_id: str) -> None:
        self._in_loop(self._handle_cell_closed, cell_id)

    def _handle_cell_closed(self, cell_id: str) -> None:
        log.debug("cell %s closed by the session", cell_id)
        record = self._cells.get(cell_id)
        if record is not None:
            record.in_flight.clear()

    def _on_tool_event(self, event: Any) -> None:
        self._in_loop(self._handle_tool_event, event)

    def _handle_tool_event(self, event: Any) -> None:
        record = self._cells.get(event.cell_id)
        if record is None or record.final is not None:
            return
        call_id = event.runtime_tool_call_id
        if event.kind == "started":
            record.in_flight[call_id] = ToolProgress(event.tool)
        elif event.kind == "progress":
            call = record.in_flight.setdefault(call_id, ToolProgress(event.tool))
            call.progress, call.total, call.message = event.progress, event.total, event.message
        elif event.kind == "finished":
            record.in_flight.pop(call_id, None)
        if record.displays:
            self._update_displays(record)

    # ------------------------------------------------------------------ status displays

    def _open_display(self, record: CellRecord, parent: dict[str, Any]) -> None:
        display = StatusDisplay(f"codemode-{record.cell_id}-{uuid.uuid4().hex[:12]}", parent)
        record.displays.append(display)
        self._send(
            "display_data",
            {
                "data": status_bundle(record),
                "metadata": {},
                "transient": {"display_id": display.display_id},
            },
            parent,
        )
        self._ensure_ticker()

    def _update_displays(self, record: CellRecord) -> None:
        bundle = status_bundle(record)
        for display in record.displays:
            self._send(
                "update_display_data",
                {"data": bundle, "metadata": {}, "transient": {"display_id": display.display_id}},
                display.parent,
            )

    def _ensure_ticker(self) -> None:
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        """Refresh the running time of running cells' displays until none is left."""
        while True:
            await asyncio.sleep(STATUS_TICK_S)
            running = [r for r in self._cells.values() if r.state == "running" and r.displays]
            if not running:
                return
            for record in running:
                self._update_displays(record)

    def _on_observed(self, record: CellRecord) -> None:
        """The observer saw new output or the end of ``record``'s cell."""
        if record.final is not None and record.displays:
            self._update_displays(record)

    # ------------------------------------------------------------------ execute

    async def do_execute(
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool = False,
        *,
        cell_meta: dict[str, Any] | None = None,
        cell_id: str | None = None,
    ) -> dict[str, Any]:
        """Run a code-mode cell or a magic; see the module docstring.

        Returns the execute_reply content; errors are reported, never raised.
        """
        self._loop = asyncio.get_running_loop()
        request = _Request(parent=self.get_parent("shell"), silent=silent)
        self._request = request
        task = asyncio.ensure_future(self._dispatch(code, request))
        self._foreground = task
        try:
            reply = await task
        except asyncio.CancelledError:
            # Interrupted before a cell existed (e.g. while the client layer was built).
            reply = self._error_reply(request, render.plain_error("KeyboardInterrupt", "Interrupted."))
        except Exception as exc:  # a bug in the kernel: report it, keep the kernel alive
            log.exception("execute failed")
            reply = self._error_reply(request, render.plain_error(type(exc).__name__, str(exc)))
        finally:
            self._foreground = None
            self._request = None
        await self._fill_reply_metadata(request)
        return reply

    async def _fill_reply_metadata(self, request: _Request) -> None:
        calls: list[dict[str, Any]] = []
        if request.cell_id is not None and self._client_future is not None and self._client_future.done():
            try:
                calls = list(self._client_future.result().dispatcher.calls_for(request.cell_id))
            except Exception:
                log.debug("no tool-call timings for cell %s", request.cell_id, exc_info=True)
        self._reply_codemode = {
            "cell_id": request.cell_id,
            "status": request.status,
            "wall_time_ms": round((time.monotonic() - request.started) * 1000),
            "tool_calls": calls,
        }

    async def _dispatch(self, code: str, request: _Request) -> dict[str, Any]:
        if magics.is_magic(code):
            return await self._run_magic(code, request)
        return await self._run_js(code, request)

    async def _run_js(self, code: str, request: _Request) -> dict[str, Any]:
        try:
            client = await self._client()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("building the code-mode session failed")
            return self._error_reply(
                request,
                render.plain_error(
                    "CodeModeError",
                    f"The code-mode session could not be started: {exc}. "
                    "Check the configuration and the kernel log, then run the cell again.",
                ),
            )
        self._show_new_problems(client, request)
        try:
            source = client.pragma.parse_exec_source(code)
        except client.pragma.PragmaError as exc:
            return self._error_reply(request, render.plain_error("PragmaError", str(exc)))
        yield_time_ms = source.yield_time_ms if source.yield_time_ms is not None else self._yield_time_ms
        max_tokens = (
            source.max_output_tokens if source.max_output_tokens is not None else self._max_output_tokens
        )
        starting = asyncio.ensure_future(
            client.session.execute(
                source.source,
                yield_time_ms=yield_time_ms,
                max_output_tokens=max_tokens,
                tool_call_id=request.parent.get("header", {}).get("msg_id"),
            )
        )
        try:
            started = await asyncio.shield(starting)
        except asyncio.CancelledError:
            request.interrupted = True
            try:
                started = await starting
            except Exception as exc:
                return self._error_reply(request, render.plain_error(type(exc).__name__, str(exc)))
        except Exception as exc:
            return self._error_reply(request, render.plain_error(type(exc).__name__, str(exc)))

        record = CellRecord(started.cell_id, request.parent, self.execution_count)
        self._cells[record.cell_id] = record
        request.cell_id = record.cell_id
        if request.interrupted:
            return await self._terminate_now(client, record, request, max_tokens, started.initial_response)
        try:
            response: RuntimeResponse = await asyncio.shield(started.initial_response)
        except asyncio.CancelledError:
            return await self._terminate_now(client, record, request, max_tokens, started.initial_response)
        except Exception as exc:
            response = RuntimeResponse("Result", record.cell_id, [], error_text=str(exc))
            record.finish(response)
            record.state = "closed"
            request.status = record.outcome()
            return self._error_reply(request, render.plain_error(type(exc).__name__, str(exc)))

        items = self._truncate(client, response.content_items, max_tokens)
        if response.kind == "Yielded":
            self._emit_items(request, items)
            request.status = "running"
            observer = CellObserver(
                client.session, record, self._on_observed, max_output_tokens=max_tokens
            )
            self._observers[record.cell_id] = observer
            observer.start()
            if not request.silent:
                self._open_display(record, request.parent)
            return self._ok_reply()
        record.finish(response)
        return self._deliver_final(request, record, items)

    def _truncate(self, client: _Client, items: list[dict[str, Any]], max_tokens: int | None) -> list[dict[str, Any]]:
        """Apply Codex's output budget (``spec/codex-code-mode.md`` §2.4) to one delivery."""
        if max_tokens is None or not items:
            return list(items)
        try:
            return client.output.truncate_content_items(items, max_tokens)
        except Exception:
            log.exception("output truncation failed; showing the output unchanged")
            return list(items)

    def _deliver_final(self, request: _Request, record: CellRecord, items: list[dict[str, Any]]) -> dict[str, Any]:
        """Show a finished cell's remaining output and its outcome; close the record."""
        final = record.final
        assert final is not None
        self._emit_items(request, items)
        record.state = "closed"
        request.status = record.outcome()
        observer = self._observers.pop(record.cell_id, None)
        if observer is not None:
            asyncio.ensure_future(observer.aclose())
        if record.displays:
            self._update_displays(record)
        if final.kind == "Terminated":
            return self._error_reply(request, render.terminated_error(record.cell_id))
        if final.error_text is not None:
            return self._error_reply(request, render.parse_error_text(final.error_text))
        return self._ok_reply()

    async def _terminate_now(
        self,
        client: _Client,
        record: CellRecord,
        request: _Request,
        max_tokens: int | None,
        initial: "asyncio.Future[RuntimeResponse]",
    ) -> dict[str, Any]:
        """Interrupted while the execute waited: terminate the cell and show what it left."""
        try:
            outcome = await client.session.terminate(record.cell_id, max_output_tokens=max_tokens)
            response = outcome.response
        except Exception as exc:
            response = RuntimeResponse("Result", record.cell_id, [], error_text=str(exc))
        items = list(response.content_items)
        if initial.done() and not initial.cancelled() and initial.exception() is None:
            first = initial.result()
            if first.kind == "Terminated" and not items:
                items = list(first.content_items)
            elif first.kind == "Result" and response.kind != "Result":
                response = first  # natural completion won the race
                items = list(first.content_items)
        if response.kind == "Result" and (response.error_text or "").endswith(" not found"):
            response = RuntimeResponse("Terminated", record.cell_id, [])
        record.finish(RuntimeResponse(response.kind, record.cell_id, [], response.error_text))
        return self._deliver_final(request, record, self._truncate(client, items, max_tokens))

    # ------------------------------------------------------------------ magics

    async def _run_magic(self, code: str, request: _Request) -> dict[str, Any]:
        try:
            magic = magics.parse_magic(code)
        except magics.MagicError as exc:
            return self._error_reply(request, render.plain_error("UsageError", str(exc)))
        try:
            client = await self._client()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return self._error_reply(
                request,
                render.plain_error("CodeModeError", f"The code-mode session could not be started: {exc}."),
            )
        if magic.name == "wait":
            return await self._magic_wait(client, magic, request)
        if magic.name == "terminate":
            return await self._magic_terminate(client, magic, request)
        if magic.name == "cells":
            self._emit(request, "stream", {"name": "stdout", "text": cells_table(list(self._cells.values())) + "\n"})
            return self._ok_reply()
        if magic.name == "tools":
            return self._magic_tools(client, magic, request)
        return self._magic_config(client, magic, request)

    def _target(self, cell_id: str | None) -> CellRecord | None:
        """The named record, or the most recently started live cell."""
        if cell_id is not None:
            return self._cells.get(cell_id)
        live = [r for r in self._cells.values() if r.live]
        return live[-1] if live else None

    async def _missing_cell(self, client: _Client, cell_id: str, request: _Request) -> dict[str, Any]:
        """Ask the session about an id the kernel has no live record of (gives Codex's texts)."""
        try:
            outcome = await client.session.wait(cell_id, yield_time_ms=0)
        except Exception as exc:
            return self._error_reply(request, render.plain_error(type(exc).__name__, str(exc)))
        text = outcome.response.error_text or f"exec cell {cell_id} not found"
        return self._error_reply(request, render.plain_error("CellNotFound", text))

    def _effective_wait_ms(self, client: _Client, requested: int) -> int:
        """Codex's observation timeout: +1 s grace from 10 s, clamped to the session limit (§2.3)."""
        effective = requested + 1000 if requested >= 10000 else requested
        limit = getattr(client.config.session, "max_yield_time_ms", None)
        return min(effective, limit) if limit is not None else effective

    async def _magic_wait(self, client: _Client, magic: magics.Magic, request: _Request) -> dict[str, Any]:
        record = self._target(magic.cell_id)
        if record is None and magic.cell_id is None:
            return self._error_reply(
                request,
                render.plain_error(
                    "CellNotFound",
                    "There is no running cell to wait for; %wait works on cells that yielded "
                    "(their status display names them).",
                ),
            )
        if record is None or not record.live or record.cell_id not in self._observers:
            return await self._missing_cell(client, magic.cell_id or record.cell_id, request)  # type: ignore[union-attr]
        request.cell_id = record.cell_id
        observer = self._observers[record.cell_id]
        max_tokens = magic.max_tokens if magic.max_tokens is not None else self._max_output_tokens
        requested = magic.yield_time_ms if magic.yield_time_ms is not None else self._yield_time_ms or 10000
        try:
            items, final = await observer.collect(self._effective_wait_ms(client, requested))
        except asyncio.CancelledError:
            items, final = await observer.terminate(max_tokens)
        items = self._truncate(client, items, max_tokens)
        if final is not None:
            return self._deliver_final(request, record, items)
        self._emit_items(request, items)
        request.status = "running"
        if not request.silent:
            self._open_display(record, request.parent)
        return self._ok_reply()

    async def _magic_terminate(self, client: _Client, magic: magics.Magic, request: _Request) -> dict[str, Any]:
        record = self._target(magic.cell_id)
        if record is None and magic.cell_id is None:
            return self._error_reply(
                request, render.plain_error("CellNotFound", "There is no running cell to terminate.")
            )
        if record is None or not record.live or record.cell_id not in self._observers:
            return await self._missing_cell(client, magic.cell_id or record.cell_id, request)  # type: ignore[union-attr]
        request.cell_id = record.cell_id
        items, final = await self._observers[record.cell_id].terminate(self._max_output_tokens)
        items = self._truncate(client, items, self._max_output_tokens)
        if final.kind != "Terminated":
            return self._deliver_final(request, record, items)  # natural completion won
        self._emit_items(request, items)
        record.state = "closed"
        request.status = "terminated"
        self._observers.pop(record.cell_id, None)
        self._update_displays(record)
        self._emit(request, "stream", {"name": "stdout", "text": f"Cell {record.cell_id} was terminated.\n"})
        return self._ok_reply()

    def _magic_tools(self, client: _Client, magic: magics.Magic, request: _Request) -> dict[str, Any]:
        needle = (magic.filter or "").lower()
        tools = [
            t for t in client.registry.tools
            if not needle or needle in t.js_name.lower() or needle in (t.description or "").lower()
        ]
        blocks = []
        for tool in tools:
            summary = (tool.description or "").strip().splitlines()
            blocks.append(f"{tool.js_name}: {summary[0] if summary else ''}\n  {tool.declaration}")
        if not blocks:
            blocks.append("No tool matches." if needle else "No tools are enabled.")
        problems = self._problems(client)
        if problems:
            blocks.append("Configuration problems:\n" + "\n".join(f"  {p}" for p in problems))
        self._emit(request, "stream", {"name": "stdout", "text": "\n".join(blocks) + "\n"})
        return self._ok_reply()

    def _magic_config(self, client: _Client, magic: magics.Magic, request: _Request) -> dict[str, Any]:
        settable = ("yield_time_ms", "max_output_tokens")
        for key, value in magic.assignments.items():
            if key not in settable:
                return self._error_reply(
                    request,
                    render.plain_error(
                        "UsageError",
                        f"%config can change only {' and '.join(settable)} while the kernel runs; "
                        f"set {key} in codemode.toml and restart the kernel.",
                    ),
                )
            if not value.isdigit():
                return self._error_reply(
                    request,
                    render.plain_error("UsageError", f"{key} must be a non-negative whole number; got {value!r}."),
                )
        for key, value in magic.assignments.items():
            setattr(self, f"_{key}", int(value))
        session = client.config.session
        lines = [
            f"config file: {client.config.source_path or '(none: built-in defaults)'}",
            f"yield_time_ms = {self._yield_time_ms}",
            f"max_output_tokens = {self._max_output_tokens}",
            f"max_yield_time_ms = {session.max_yield_time_ms}",
            f"max_heap_size_bytes = {session.max_heap_size_bytes}",
        ]
        self._emit(request, "stream", {"name": "stdout", "text": "\n".join(lines) + "\n"})
        return self._ok_reply()

    # ------------------------------------------------------------------ completion etc.

    async def _tools_for_completion(self) -> list[Any]:
        try:
            client = await self._client()
        except Exception:
            log.debug("no tools for completion", exc_info=True)
            return []
        return list(client.registry.tools)

    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:
        """Complete tool names after ``tools.``, globals, magics and live cell ids."""
        self._loop = asyncio.get_running_loop()
        live = [r.cell_id for r in self._cells.values() if r.live]
        return completion.complete(code, cursor_pos, await self._tools_for_completion(), live)

    async def do_inspect(
        self, code: str, cursor_pos: int | None, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        """A tool's description and TypeScript declaration, or a global's signature."""
        self._loop = asyncio.get_running_loop()
        return completion.inspect(code, cursor_pos, await self._tools_for_completion(), detail_level)

    async def do_is_complete(self, code: str) -> dict[str, Any]:
        """Lexer-level completeness (:mod:`codemode.kernel.is_complete`)."""
        return is_complete.scan(code)

    async def do_history(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """No history is kept; an empty list is a valid answer (``spec/jupyter-kernels.md`` §1.9)."""
        return {"status": "ok", "history": []}

    # ------------------------------------------------------------------ shutdown

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:
        """Stop every cell observer, the session (and its host) and the tool servers.

        ipykernel calls this on its control thread, so the work is run on the kernel's own
        loop, bounded by :data:`SHUTDOWN_TIMEOUT_S`.
        """
        self._shutting_down = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                await asyncio.wait_for(self._close_client(), SHUTDOWN_TIMEOUT_S)
            else:
                future = asyncio.run_coroutine_threadsafe(self._close_client(), loop)
                try:
                    await asyncio.wait_for(asyncio.wrap_future(future), SHUTDOWN_TIMEOUT_S)
                except Exception:
                    log.exception("stopping the code-mode session failed")
        return {"status": "ok", "restart": restart}

    async def _close_client(self) -> None:
        for observer in list(self._observers.values()):
            await observer.aclose()
        self._observers.clear()
        if self._ticker is not None:
            self._ticker.cancel()
        future, self._client_future = self._client_future, None
        if future is None:
            return
        try:
            client = await future
        except Exception:
            return
        try:
            await client.session.shutdown()
        except Exception:
            log.exception("session shutdown failed")
        try:
            await client.registry.aclose()
        except Exception:
            log.exception("stopping the tool servers failed")


__all__ = ["CodeModeKernel"]
