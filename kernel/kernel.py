"""``CodeModeKernel``: a Jupyter kernel whose cells are code-mode JavaScript programs.

How code mode appears in Jupyter (the Jupyter side follows the Jupyter messaging
specification), in short:

- an execute request is a code-mode ``exec`` (optional first-line ``// @exec:`` pragma,
  parsed with ``codemode.pragma.parse_exec_source``; a ``PragmaError`` is shown as an
  ``error`` named ``PragmaError`` with Codex's exact text); a cell whose first line starts
  with ``%`` is a magic (:mod:`codemode.kernel.magics`); an empty or whitespace-only cell
  replies ``ok`` with no output; counts and the input history follow ipykernel
  (:mod:`codemode.kernel.counter`, :mod:`codemode.kernel.history`);
- ``text()`` items are ``stream`` stdout lines, consecutive ones coalesced into few messages
  (:mod:`codemode.kernel.streams`), images/audio ``display_data``
  (:mod:`codemode.kernel.render`); in the notebook profile ``console`` lines are ``stream``
  messages on their stream, displays ``display_data`` and the cell's value an
  ``execute_result`` (a ``display_data`` when ``%wait`` shows it); a failure is an ``error`` message and reply status
  ``error``; a termination is the error ``CellTerminated``; ``max_output_tokens`` bounds the
  output, the error and each notification (:mod:`codemode.kernel.budget`);
- in a headless request (``allow_stdin`` false, by default; :mod:`codemode.kernel.headless`)
  a cell that did not ask to yield runs to its end before its reply, and the reply's
  ``metadata.codemode.still_running`` names the yielded cells still running after it;
- a cell that yields gets its reply (status ok, metadata status ``running``) and a status
  display (``display_data`` with a ``display_id`` unique per cell and run), kept up to date
  by ``update_display_data`` while a :class:`~codemode.kernel.observer.CellObserver` follows
  the cell with one long ``session/wait`` at a time (no polling); every background message
  names its request explicitly as parent;
- a cell's events are handled in the order the host sent them: the session puts them into
  one stream per cell as it reads the host's frames, and the kernel reads it with one reader
  (:mod:`codemode.kernel.cell_reader`), so a cell renders the same way every time. For ``text("hello"); yield_control(); text("world"); notify("x")``: the execute shows
  ``hello`` (stream) and then the status display (running); the notification, sent after the
  yield, updates the status display (``notify: x``), which then shows the cell finished;
  ``world`` is shown by the next ``%wait``. A notification sent before the yield is a
  ``display_data`` under the execute, before ``hello`` (notifications are delivered at once,
  text with the cell's next answer);
- ``notify()`` texts (:mod:`codemode.kernel.notify`): while the cell is being executed or
  waited on, a ``display_data`` (``text/plain``, metadata ``{"codemode": {"notify":
  cell_id}}``) under that request, the first ten each on its own and the rest in one shared
  display updated at most four times a second; for a background cell, the latest texts
  appear in its status display;
- an interrupt (SIGINT, in "signal" mode from the client, or from ipykernel's own
  ``interrupt_request`` handler in "message" mode) while an execute or ``%wait`` runs
  terminates that cell: its undelivered output is shown (at most about 1 MB), then
  ``CellTerminated``, within a second whatever the host does (a host that fails the probe
  then sent ends the cell with ``HostStopped``; one that answers the probe but has not stopped
  the cell yet gets its terminate finished in the background;
  :mod:`codemode.kernel.termination`). ipykernel
  installs ``default_int_handler`` while a handler runs, whose ``KeyboardInterrupt`` would end
  the event loop, so :meth:`pre_handler_hook` keeps a handler that cancels the running
  request's task instead. An interrupt that finds no running cell ends the execute request
  that had already reached the kernel, if any (:mod:`codemode.kernel.interrupts`; no clock is
  used), and else terminates the cells running in the background
  (:mod:`codemode.kernel.idle_interrupt`). An execute interrupted while the code-mode session starts ends with
  ``CellTerminated`` and ``cell_id`` None (no cell existed yet);
- a cell lost because the runtime host stopped (killed, crashed, or restarted to stop a cell
  that did not respond to termination) ends with the error ``HostStopped``
  (:mod:`codemode.kernel.host_loss`): Codex's reason, the lost cell, the restart's cause when
  known, and that the next cell starts a new host;
- every execute_reply carries ``metadata.codemode = {"cell_id", "status", "wall_time_ms",
  "tool_calls"}``, and ``"model_view"`` (``{"output", "tokens"}``: the answer the request
  showed as Codex returns it to the model, :mod:`codemode.model_view`) when it showed a cell's
  answer (status ``running|completed|failed|terminated``; ``cell_id`` None for
  magics that touch no cell and for an execute interrupted before its cell existed); for a
  cell that ended, ``tool_calls`` lists every call it made with its one outcome (calls still
  cleaning up are awaited, bounded), the first 1000 of a cell that made more, whose count is
  then ``tool_calls_omitted``; a ``%tools`` reply adds ``"tool_names"`` and ``"problems"`` (the configuration and MCP
  start-up problems it listed, each a string);
- a malformed request gets an error reply of its type (:mod:`codemode.kernel.request_checks`);
- a failed execute aborts the execute requests queued behind it, as ipykernel does, but the
  queue is marked before its reply leaves, so a request sent on the reply always runs
  (:mod:`codemode.kernel.aborts`);
- the kernel has no comm targets: a ``comm_open`` gets a ``comm_close`` at once
  (:mod:`codemode.kernel.comms`).

The class itself only wires the parts together, each in its own module:
:mod:`~codemode.kernel.services` (config, tools, dispatcher and code-mode session, built on
the first request that needs them so ``kernel_info`` answers without loading ``mcp``),
:mod:`~codemode.kernel.publish` (IOPub), :mod:`~codemode.kernel.execute` (the foreground
execute path), :mod:`~codemode.kernel.magic_handlers`, :mod:`~codemode.kernel.delivery`
(showing output and outcomes), :mod:`~codemode.kernel.displays` (status displays) and
:mod:`~codemode.kernel.tool_calls` (dispatcher events). What the process needs (IOPub that
never drops, the packer that survives lone surrogates, the output streams, the import path) is
applied when the kernel is created (:mod:`~codemode.kernel.protections`), so it holds under any
launcher that starts ipykernel's ``IPKernelApp`` with this class (Enterprise Gateway's).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import zmq
from ipykernel.kernelbase import Kernel
from traitlets import Float

from codemode.cell_events import CellEvent, Closed, Notification, ToolInvoked
from codemode.kernel import comms, headless, is_complete, magics, protections, render, request_checks
from codemode.kernel.aborts import StopOnError
from codemode.kernel.approvals import StdinApprovals
from codemode.kernel.counter import ExecutionCounter
from codemode.kernel.delivery import Delivery
from codemode.kernel.displays import StatusDisplays
from codemode.kernel.execute import ForegroundExecutor
from codemode.kernel.history import History
from codemode.kernel.idle_interrupt import IdleInterrupts
from codemode.kernel.interrupts import QueuedInterrupts
from codemode.kernel.introspect import Introspection
from codemode.kernel.logs import route_library_logging
from codemode.kernel.magic_handlers import MagicHandlers
from codemode.kernel.notify import Notifications
from codemode.kernel.publish import Publisher, Request, user_expression_errors
from codemode.kernel.services import Services, ServicesLoader, build_services
from codemode.kernel.state import KernelState
from codemode.kernel.tool_calls import ToolCallTracker
from codemode.runtime.gc_tuning import KERNEL_YOUNG_THRESHOLD, freeze_startup_objects

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 20.0
"""Upper bound for stopping the session and the tool servers at kernel shutdown."""


def _version(dist: str) -> str:
    try:
        return importlib_metadata.version(dist)
    except importlib_metadata.PackageNotFoundError:
        return "unknown"


class CodeModeKernel(Kernel):
    """The Code Mode (JavaScript) kernel; see the module docstring for the behaviour."""

    implementation = "codemode"
    implementation_version = _version("codemode-kernel")
    # No 0.5 ms sleep before replies (for sys.stdout's output): the kernel publishes a cell's.
    _execute_sleep = Float(0.0)
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
        self._counter = ExecutionCounter()
        super().__init__(**kwargs)
        protections.apply(self)  # whatever app launched the kernel (Enterprise Gateway's launcher too)
        route_library_logging(self.log)
        request_checks.install(self)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shutting_down = False
        self._state = KernelState()
        self._publisher = Publisher(self)
        comms.install(self, self._publisher)
        self._displays = StatusDisplays(self._publisher, self._state)
        self._delivery = Delivery(self._publisher, self._state, self._displays)
        self._tool_calls = ToolCallTracker(self._state, self._displays)
        self._notifications = Notifications(self._publisher, self._state, self._displays)
        self._services = ServicesLoader(self._build_services)
        self._state.handle_event = self._handle_event
        self._approvals = StdinApprovals(self, self._state)
        self._executor = ForegroundExecutor(self._publisher, self._state, self._delivery, self._services)
        self._magics = MagicHandlers(self._publisher, self._state, self._delivery, self._services)
        self._foreground: asyncio.Task[Any] | None = None
        self._idle_interrupts = IdleInterrupts(self._state, self._services, self._displays)
        self._interrupts = QueuedInterrupts(self, on_idle=self._idle_interrupts.interrupt)
        self._stop_on_error = StopOnError(self)
        self._history = History()
        self._introspection = Introspection(self._services, self._state)
        self._reply_codemode: dict[str, Any] | None = None

    # ------------------------------------------------------------------ kernel info

    @property
    def kernel_info(self) -> dict[str, Any]:
        """ipykernel's kernel_info without ``kernel subshells`` and ``debugger``: handlers on
        other threads would race the single code-mode session."""
        info = dict(super().kernel_info)
        info["supported_features"] = [
            f for f in info.get("supported_features", []) if f not in ("kernel subshells", "debugger")
        ]
        return info

    # ------------------------------------------------------------------ execution count

    @property
    def execution_count(self) -> int:
        """The number the next request that stores history gets: what ipykernel's
        ``execute_request`` publishes in ``execute_input`` (:mod:`codemode.kernel.counter`)."""
        return self._counter.next

    @execution_count.setter
    def execution_count(self, value: int) -> None:
        """Ignored: ``KernelBase`` increments for every request that is not silent; the count
        advances in :meth:`do_execute` as IPython's does (:mod:`codemode.kernel.counter`)."""

    @property
    def last_execution_count(self) -> int:
        """The count every ``execute_reply`` carries (:attr:`ExecutionCounter.last`)."""
        return self._counter.last

    # ------------------------------------------------------------------ interrupts

    def start(self) -> None:
        """Start ipykernel's machinery, then catch SIGINT between handlers too (ipykernel
        ignores it there), so an interrupt racing a just-sent execute is not lost."""
        super().start()
        self._loop = self.io_loop.asyncio_loop
        self._interrupts.attach(self._loop)
        signal.signal(signal.SIGINT, self._on_sigint)
        self._history.close_at_sigterm()
        self._services.start_early(self._loop)
        freeze_startup_objects(KERNEL_YOUNG_THRESHOLD)

    def shell_channel_thread_main(self, msg: Any) -> Any:
        """Number each shell message as the shell channel thread receives it
        (:mod:`codemode.kernel.interrupts`), then forward it as ipykernel does."""
        self._interrupts.stamp(msg)
        return super().shell_channel_thread_main(msg)

    async def dispatch_shell(self, msg: Any, /, subshell_id: str | None = None, *, concurrent: bool = False) -> None:
        """Handle a shell request once every interrupt so far knows which requests were
        queued when it came (:meth:`~codemode.kernel.interrupts.QueuedInterrupts.settled`),
        and note that it is no longer queued."""
        await self._interrupts.settled()
        if self.session is not None and not (len(msg) == 1 and msg[0].buffer == b"stop aborting"):
            self._interrupts.dispatched(msg)
            idents, frames = self.session.feed_identities(msg, copy=False)
            unanswered = request_checks.unanswered_problem(self.session, frames, self.shell_handlers)
            if unanswered is not None:
                self._reply_invalid("shell", idents, *unanswered)
                return
        try:
            await super().dispatch_shell(msg, subshell_id, concurrent=concurrent)
        finally:
            self._interrupts.dispatch_done()

    async def process_control(self, msg: Any) -> None:
        """Answer a control request ipykernel would drop (:func:`request_checks.unanswered_problem`),
        else handle it as ipykernel does."""
        if self.session is not None:
            idents, frames = self.session.feed_identities(msg, copy=False)
            unanswered = request_checks.unanswered_problem(self.session, frames, self.control_handlers, "control")
            if unanswered is not None:
                self._reply_invalid("control", idents, *unanswered)
                return
        try:
            await super().process_control(msg)
        except zmq.ZMQError as exc:
            # ipykernel publishes "idle" after each control request; after a shutdown that races
            # the IOPub thread's closing (its event pipe: ENOTSOCK), and tornado printed the
            # traceback on stderr (ipykernel PR #1518 quiets the same race in _really_send).
            if exc.errno != zmq.ENOTSOCK or not self._shutting_down:
                raise
            log.debug("IOPub closed during shutdown: %s", exc)

    def _reply_invalid(self, channel: str, idents: Any, parent: dict[str, Any], problem: str) -> None:
        """Answer a request of ``channel`` that ipykernel would drop with an ``InvalidRequest``
        error reply, between busy and idle like any request."""
        msg_type = str(parent["header"]["msg_type"])
        log.warning("unanswerable %s: %s", msg_type, problem)
        assert self.session is not None  # checked by the caller
        stream = self.shell_stream if channel == "shell" else self.control_stream
        self._publish_status("busy", channel, parent)
        content = request_checks.error_reply(msg_type, problem, self.last_execution_count)
        metadata = request_checks.reply_metadata(msg_type)
        reply_type = msg_type.replace("_request", "_reply")
        self.session.send(stream, reply_type, content, parent, metadata=metadata, ident=idents)
        self._publish_status_and_flush("idle", channel, stream, parent)

    async def do_debug_request(self, msg: Any) -> dict[str, Any]:
        """No debugger (``kernel_info`` says ``debugger: false``): a failed Debug Adapter
        Protocol response, so a client that asks anyway gets an answer."""
        request = msg if isinstance(msg, dict) else {}
        return {
            "type": "response",
            "request_seq": request.get("seq", 0),
            "success": False,
            "command": request.get("command", ""),
            "message": "The codemode kernel has no debugger.",
        }

    def pre_handler_hook(self) -> None:
        """Keep our SIGINT handler while a shell handler runs (ipykernel would install
        ``default_int_handler``, whose ``KeyboardInterrupt`` ends the event loop)."""
        self.saved_sigint_handler = signal.signal(signal.SIGINT, self._on_sigint)

    def post_handler_hook(self) -> None:
        """Restore the SIGINT disposition of :meth:`pre_handler_hook`."""
        signal.signal(signal.SIGINT, self.saved_sigint_handler)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        ticket = self._interrupts.signalled()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._interrupt, ticket)

    def _interrupt(self, ticket: int) -> None:
        """A SIGINT (``ticket``): terminate the running cell, or else find the request that
        was queued for it (:mod:`codemode.kernel.interrupts`)."""
        if self._interrupt_foreground():
            self._interrupts.answer(ticket, None)
        elif not self._interrupts.take_for_starting(ticket):
            self._interrupts.mark_queued(ticket)

    def _interrupt_foreground(self) -> bool:
        """Cancel the running request's task; False when no request's work is running."""
        task, request = self._foreground, self._state.request
        if task is None or task.done() or request is None:
            return False
        if not request.interrupted:
            log.info("interrupt: terminating the cell of the running request")
            request.interrupted = True
            task.cancel()
        return True

    # ------------------------------------------------------------------ services

    async def _build_services(self) -> Services:
        services = await build_services()
        services.dispatcher.approver = self._approvals.ask
        services.dispatcher.asker = self._approvals.ask_line
        # The connection file holds the key that signs this kernel's messages: a command that
        # read it could answer its own approval questions (it may live outside Jupyter's
        # runtime folder, which the sandbox hides anyway).
        connection_file = getattr(self.parent, "abs_connection_file", None)
        if connection_file:
            services.registry.sandbox.protect(hidden=[Path(connection_file)])
        freeze_startup_objects(KERNEL_YOUNG_THRESHOLD)  # the services live as long as the kernel
        if self._state.yield_time_ms is None:
            self._state.yield_time_ms = services.config.session.yield_time_ms
        if self._state.max_output_tokens is None:
            self._state.max_output_tokens = services.config.session.max_output_tokens
        return services

    # ------------------------------------------------------------------ cell events

    def _handle_event(self, event: CellEvent) -> None:
        """One event of a cell that is not an answer, taken by the cell's reader in the host's
        order (:mod:`codemode.kernel.cell_reader`)."""
        if isinstance(event, Notification):
            self._notifications.show(event.cell_id, event.text)
        elif isinstance(event, Closed):
            self._handle_cell_closed(event.cell_id)
        elif isinstance(event, ToolInvoked):
            pass  # the dispatcher's ``started`` follows
        else:
            self._tool_calls.handle(event)

    def _handle_cell_closed(self, cell_id: str) -> None:
        log.debug("cell %s closed by the session", cell_id)
        record = self._state.cells.get(cell_id)
        if record is not None:
            record.in_flight.clear()

    # ------------------------------------------------------------------ execute

    def finish_metadata(self, parent: Any, metadata: dict[str, Any], reply_content: Any) -> dict[str, Any]:
        """Add ``metadata.codemode`` (cell id, status, wall time, tool-call timings)."""
        metadata = super().finish_metadata(parent, metadata, reply_content)
        if self._reply_codemode is not None:
            metadata["codemode"] = self._reply_codemode
            self._reply_codemode = None
        return metadata

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
        parent = self.get_parent("shell")
        await self._interrupts.settled()
        arrival = self._interrupts.arrival(str(parent.get("header", {}).get("msg_id")))
        ident = self._get_shell_context_var(self._shell_parent_ident)
        request = Request(parent=parent, silent=silent, allow_stdin=allow_stdin, ident=ident)
        number = self._counter.take(code, silent, store_history)
        if number is not None:  # kept before it runs, as ipykernel does (written in a later batch)
            self._history.store(number, code)
        self._state.request = request
        self._displays.request_started()
        if not code.strip():
            work = self._blank()
        elif magics.is_magic(code):
            work = self._magics.run(code, request)
        else:
            work = self._executor.run(code, request, self._counter.last if number is None else number)
        task = asyncio.ensure_future(work)
        self._foreground = task
        if self._interrupts.consume(arrival):
            # Delivered after the work's first step, so it meets the work's own handling
            # (e.g. %wait terminates the waited cell) instead of a coroutine never started.
            self._loop.call_soon(self._interrupt_foreground)
        try:
            reply = await task
        except asyncio.CancelledError:
            # Interrupted before a cell existed (the services were still being built, or the
            # tool servers were starting): terminated like any cell, with no cell id.
            request.status = "terminated"
            reply = self._publisher.error_reply(request, render.terminated_error(None))
        except Exception as exc:  # a bug in the kernel: report it, keep the kernel alive
            log.exception("execute failed")
            reply = self._publisher.plain_error_reply(request, type(exc).__name__, str(exc))
        finally:
            self._foreground = None
            self._state.request = None
            request.observing = False
        if user_expressions and reply.get("status") == "ok":  # as ipykernel: only after success
            reply["user_expressions"] = user_expression_errors(user_expressions)
        self._notifications.finish(request)
        headless.mark_yielded(self._state.cells)
        services = self._services.built()
        self._reply_codemode = await self._tool_calls.reply_metadata(request, services)
        if services is not None and headless.is_headless(services.config.session.headless, allow_stdin):
            running = headless.still_running_metadata(self._state.cells)
            if running:
                self._reply_codemode["still_running"] = running
        self._publisher.flush()  # every output of the request goes out before its idle status
        await self._stop_on_error.before_reply(parent, reply)
        return reply

    def _abort_queues(self, subshell_id: str | None = None) -> None:
        """ipykernel's abort after a failed execute's reply, unless it was started before the
        reply (:mod:`codemode.kernel.aborts`)."""
        if not self._stop_on_error.started():
            super()._abort_queues(subshell_id)

    async def _blank(self) -> dict[str, Any]:
        """An empty or whitespace-only cell: ``ok`` with no output, as ipykernel answers one
        (Codex's ``exec`` refuses empty input, but a notebook's empty cell is no error)."""
        return self._publisher.ok_reply()

    # ------------------------------------------------------------------ completion etc.

    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:
        """Tool names, JavaScript globals and their members, magics and live cell ids
        (:mod:`codemode.kernel.introspect`)."""
        self._loop = asyncio.get_running_loop()
        return await self._introspection.complete(code, cursor_pos)

    async def do_inspect(
        self, code: str, cursor_pos: int | None, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        """A tool's or helper's documentation, also from inside its call's arguments."""
        self._loop = asyncio.get_running_loop()
        return await self._introspection.inspect(code, cursor_pos, detail_level)

    async def do_is_complete(self, code: str) -> dict[str, Any]:
        """Lexer-level completeness (:mod:`codemode.kernel.is_complete`)."""
        return is_complete.scan(code)

    async def do_history(self, *args: Any, **content: Any) -> dict[str, Any]:
        """Past inputs from the history file (:mod:`codemode.kernel.history`); ``content`` is
        the request's, unknown fields ignored (``jupyter console`` sends ``search_raw``)."""
        return {"status": "ok", "history": await self._history.request(content)}

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
                async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
                    await self._close_client()
            else:
                future = asyncio.run_coroutine_threadsafe(self._close_client(), loop)
                try:
                    async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
                        await asyncio.wrap_future(future)
                except Exception:
                    log.exception("stopping the code-mode session failed")
        self._history.close()
        return {"status": "ok", "restart": restart}

    async def _close_client(self) -> None:
        running = headless.still_running_metadata(self._state.cells)
        if running:  # e.g. a headless run's last cell left them: say so in the kernel's log (stderr)
            log.warning("shut down while yielded cells still ran: %s", ", ".join(map(headless.describe, running)))
        for observer in list(self._state.observers.values()):
            await observer.aclose()
        self._state.observers.clear()
        self._displays.stop()
        await self._services.aclose()


__all__ = ["CodeModeKernel"]
