"""Running the kernel's magics (``%wait``, ``%terminate``, ``%cells``, ``%tools``, ``%config``,
``%recording``, ``%finished``).

Parsing is :mod:`codemode.kernel.magics`; this module carries them out:

- ``%wait [ID]`` observes a yielded cell like Codex's ``wait`` (requests of 10 s or more get
  1 s of grace, clamped to ``max_yield_time_ms``; :meth:`~codemode.kernel.observer.CellObserver.collect`);
  in a headless request without ``--yield-time-ms`` until the cell ends or calls
  ``yield_control()`` (:mod:`codemode.kernel.headless`);
  an interrupt while it waits terminates the waited cell;
- ``%terminate [ID]`` stops a cell and shows its undelivered output (a natural completion
  that came first is shown as such); like an interrupt it ends within a second, whatever the
  host does (:mod:`codemode.kernel.termination`);
- ``%tools [FILTER]`` lists the enabled tools, the configuration problems and, when any are
  running, the threads of cancelled tool calls (``codemode.tools.threads``); its reply's
  ``metadata.codemode.tool_names`` holds the names a program may give the tools listed
  (``replay --run`` reads it to know the missing tools before any cell runs) and
  ``metadata.codemode.problems`` the problems listed (``replay --run`` warns of each);
- ``%recording`` prints one line: the ``[recording]`` mode, the file and its counts
  (:meth:`codemode.replay.recorder.RecordingState.summary`);
- ``%finished`` is an error (``CellsStillRunning``) naming each yielded cell still running,
  for the last cell of a notebook whose runner cannot read the replies' ``still_running``
  (:mod:`codemode.kernel.headless`);
- an id the kernel has no live record of is passed to the session, which answers with
  Codex's texts (``exec cell <id> not found``, the stale-generation error).
"""

from __future__ import annotations

import asyncio
from typing import Any

from codemode.config.session_defaults import CHOICES
from codemode.errors import CodeModeError, StaleCellError
from codemode.kernel import magics
from codemode.kernel.budget import terminated_budget
from codemode.kernel.cells import CellRecord, cells_table
from codemode.kernel.delivery import Delivery
from codemode.kernel.headless import UNTIL_END_MS, is_headless, still_running_metadata, unfinished_message
from codemode.kernel.host_loss import after_replacement
from codemode.kernel.publish import Publisher, Request
from codemode.kernel.services import Services, ServicesLoader
from codemode.kernel.state import KernelState
from codemode.kernel.termination import stop_cell
from codemode.tools import threads
from codemode.tools.called import available_names

DEFAULT_WAIT_MS = 10_000
"""``%wait``'s yield time when neither the magic nor the config names one (Codex's default)."""
SETTABLE = ("yield_time_ms", "max_output_tokens", "engine", "profile")
"""The settings ``%config`` may change while the kernel runs (``engine`` and ``profile``, which
replace the runtime host, when no cell runs)."""


def abandoned_threads_text(counts: dict[str, int], most: int) -> str | None:
    """``%tools``' line about threads of cancelled tool calls still running (``counts`` by lane,
    ``codemode.tools.threads.abandoned_threads``), or None when there are none."""
    running = {lane: n for lane, n in counts.items() if n}
    if not running:
        return None
    lanes = ", ".join(f"{n} in the {lane} lane" for lane, n in running.items())
    return (
        f"Threads of cancelled tool calls still running: {lanes}. They end when their functions "
        f"return; a lane refuses new calls while it holds {most}."
    )


def effective_wait_ms(requested: int, max_yield_time_ms: int | None) -> int:
    """Codex's observation timeout: + 1 s grace from 10 s on, clamped to the session limit."""
    effective = requested + 1000 if requested >= 10000 else requested
    return min(effective, max_yield_time_ms) if max_yield_time_ms is not None else effective


class MagicHandlers:
    """Carries out parsed magics for execute requests (see the module docstring)."""

    def __init__(self, publisher: Publisher, state: KernelState, delivery: Delivery, loader: ServicesLoader) -> None:
        self.publisher = publisher
        self.state = state
        self.delivery = delivery
        self.loader = loader

    async def run(self, code: str, request: Request) -> dict[str, Any]:
        """Run the magic cell ``code`` for ``request``; returns the execute_reply content."""
        try:
            magic = magics.parse_magic(code)
        except magics.MagicError as exc:
            return self.publisher.plain_error_reply(request, "UsageError", str(exc))
        try:
            services = await self.loader.get()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return self.publisher.plain_error_reply(
                request, "CodeModeError", f"The code-mode session could not be started: {exc}."
            )
        if magic.name == "wait":
            return await self._wait(services, magic, request)
        if magic.name == "terminate":
            return await self._terminate(services, magic, request)
        if magic.name == "cells":
            self.publisher.stdout(request, cells_table(list(self.state.cells.values())) + "\n")
            return self.publisher.ok_reply()
        if magic.name == "tools":
            return await self._tools(services, magic, request)
        if magic.name == "finished":
            running = still_running_metadata(self.state.cells)
            if running:
                return self.publisher.plain_error_reply(request, "CellsStillRunning", unfinished_message(running))
            return self.publisher.ok_reply()
        if magic.name == "recording":
            state = services.registry.recording
            self.publisher.stdout(request, (state.summary() if state is not None else "Recording: off.") + "\n")
            return self.publisher.ok_reply()
        return await self._config(services, magic, request)

    def _live_target(self, magic: magics.Magic) -> CellRecord | None:
        """The record a ``%wait`` / ``%terminate`` acts on, if the kernel still follows it."""
        record = self.state.target(magic.cell_id)
        if record is None or not record.live or record.cell_id not in self.state.observers:
            return None
        return record

    async def _missing_cell(self, services: Services, cell_id: str, request: Request) -> dict[str, Any]:
        """Ask the session about an id the kernel has no live record of (gives Codex's texts)."""
        try:
            outcome = await services.code_mode.wait(cell_id, yield_time_ms=0)
        except StaleCellError as exc:  # an id of an earlier host (Codex's text)
            return self.publisher.plain_error_reply(request, "CellNotFound", str(exc))
        except Exception as exc:
            return self.publisher.plain_error_reply(request, type(exc).__name__, str(exc))
        text = outcome.response.error_text or f"exec cell {cell_id} not found"
        self.delivery.note_model_view(request, "Result", cell_id, [], text, None)
        return self.publisher.plain_error_reply(request, "CellNotFound", text)

    async def _no_target(
        self, services: Services, magic: magics.Magic, request: Request, nothing: str
    ) -> dict[str, Any]:
        """The answer when :meth:`_live_target` found nothing: ``nothing`` when no id was given."""
        record = self.state.target(magic.cell_id)
        if record is None and magic.cell_id is None:
            return self.publisher.plain_error_reply(request, "CellNotFound", nothing)
        cell_id = magic.cell_id if magic.cell_id is not None else record.cell_id if record is not None else ""
        return await self._missing_cell(services, cell_id, request)

    async def _wait(self, services: Services, magic: magics.Magic, request: Request) -> dict[str, Any]:
        record = self._live_target(magic)
        if record is None:
            return await self._no_target(
                services,
                magic,
                request,
                "There is no running cell to wait for; %wait works on cells that yielded "
                "(their status display names them).",
            )
        request.cell_id = record.cell_id
        observer = self.state.observers[record.cell_id]
        max_tokens = magic.max_tokens if magic.max_tokens is not None else self.state.max_output_tokens
        requested = (
            magic.yield_time_ms if magic.yield_time_ms is not None else self.state.yield_time_ms or DEFAULT_WAIT_MS
        )
        wait_ms = effective_wait_ms(requested, getattr(services.config.session, "max_yield_time_ms", None))
        if magic.yield_time_ms is None and is_headless(services.config.session.headless, request.allow_stdin):
            wait_ms = UNTIL_END_MS  # a headless %wait that asks for no time waits for the end
        try:
            try:
                items, final = await observer.collect(
                    wait_ms,
                    begin=lambda: setattr(request, "observing", True),
                )
            except asyncio.CancelledError:
                items = await stop_cell(
                    self.state.terminations,
                    services,
                    record,
                    max_tokens,
                    reader=self.state.readers.get(record.cell_id),
                    observer=observer,
                )
                final = record.final
            if final is not None:
                return await self.delivery.deliver_final(request, record, items, max_tokens)
            self.delivery.note_model_view(request, "Yielded", record.cell_id, items, None, max_tokens)
            await self.publisher.emit_items(request, self.delivery.truncate(items, max_tokens))
            request.status = "running"
            request.observing = False
            if not request.silent:
                self.delivery.displays.open(record, request.parent)
            return self.publisher.ok_reply()
        finally:
            request.observing = False
            observer.release()  # what the host sent after this answer now goes to the status display

    async def _terminate(self, services: Services, magic: magics.Magic, request: Request) -> dict[str, Any]:
        record = self._live_target(magic)
        if record is None:
            return await self._no_target(services, magic, request, "There is no running cell to terminate.")
        request.cell_id = record.cell_id
        max_tokens = self.state.max_output_tokens
        observer = self.state.observers[record.cell_id]
        stopping = asyncio.ensure_future(
            stop_cell(
                self.state.terminations,
                services,
                record,
                max_tokens,
                reader=self.state.readers.get(record.cell_id),
                observer=observer,
            )
        )
        try:
            items = await asyncio.shield(stopping)
        except asyncio.CancelledError:  # an interrupt asks for what %terminate does already
            items = await stopping  # (which ends within a second)
        final = record.final
        assert final is not None
        if final.kind != "Terminated":
            return await self.delivery.deliver_final(request, record, items, max_tokens)  # completed, or lost
        self.delivery.note_model_view(request, "Terminated", record.cell_id, items, None, max_tokens)
        await self.publisher.emit_items(request, self.delivery.truncate(items, terminated_budget(max_tokens)))
        record.state = "closed"
        request.status = "terminated"
        self.state.observers.pop(record.cell_id, None)
        self.delivery.displays.update(record, now=True)
        self.state.close(record)
        note = f" {record.restart_note}" if record.restart_note else ""
        self.publisher.stdout(request, f"Cell {record.cell_id} was terminated.{note}\n")
        return self.publisher.ok_reply()

    async def _tools(self, services: Services, magic: magics.Magic, request: Request) -> dict[str, Any]:
        # MCP servers start in the background when the services are built: wait for them (each
        # bounded by its startup_timeout_sec) so a first-cell %tools lists their tools or problems.
        ready = await services.registry.ready_tools()
        needle = (magic.filter or "").lower()
        tools = [
            t for t in ready if not needle or needle in t.js_name.lower() or needle in (t.description or "").lower()
        ]
        blocks = []
        for tool in tools:
            summary = (tool.description or "").strip().splitlines()
            blocks.append(f"{tool.js_name}: {summary[0] if summary else ''}\n  {tool.declaration}")
        if not blocks:
            blocks.append("No tool matches." if needle else "No tools are enabled.")
        problems = services.problems()
        if problems:
            blocks.append("Configuration problems:\n" + "\n".join(f"  {p}" for p in problems))
        blocked = abandoned_threads_text(threads.abandoned_threads(), threads.MAX_ABANDONED_THREADS)
        if blocked:
            blocks.append(blocked)
        self.publisher.stdout(request, "\n".join(blocks) + "\n")
        request.tool_names = sorted(available_names(tools))
        request.tool_problems = problems
        return self.publisher.ok_reply()

    async def _config(self, services: Services, magic: magics.Magic, request: Request) -> dict[str, Any]:
        """``%config [key=value ...]``: all or nothing. Every value, the engine and profile the
        request leaves (``combination_problem``) and the running cells are checked before
        anything changes; a request whose reply is an error changes nothing. Engine and profile
        replace the host once, together (``CodeModeSession.use_host``)."""
        numbers: dict[str, int] = {}
        for key, value in magic.assignments.items():
            if key not in SETTABLE:
                return self.publisher.plain_error_reply(
                    request,
                    "UsageError",
                    f"%config can change only {', '.join(SETTABLE)} while the kernel runs; "
                    f"set {key} in codemode.toml and restart the kernel.",
                )
            if key in CHOICES:
                if value not in CHOICES[key]:
                    message = f"{key} must be one of {', '.join(CHOICES[key])}, not {value!r}"
                    return self.publisher.plain_error_reply(request, "UsageError", message)
                continue
            try:
                numbers[key] = magics.non_negative(key, value)
            except magics.MagicError as exc:
                return self.publisher.plain_error_reply(request, "UsageError", str(exc))
        defaults = services.code_mode.defaults
        engine = magic.assignments.get("engine", defaults.engine)
        profile = magic.assignments.get("profile", defaults.profile)
        replaced = (engine, profile) != (defaults.engine, defaults.profile)
        bindings_lost = services.losses.bindings_lost
        try:
            await services.code_mode.use_host(engine, profile)
        except CodeModeError as exc:
            return self.publisher.plain_error_reply(request, "UsageError", str(exc))
        for key, number in numbers.items():
            setattr(self.state, key, number)
        session = services.config.session
        lines = [
            f"config file: {services.config.source_path or '(none: built-in defaults)'}",
            f"yield_time_ms = {self.state.yield_time_ms}",
            f"max_output_tokens = {self.state.max_output_tokens}",
            f"max_yield_time_ms = {session.max_yield_time_ms}",
            f"max_heap_size_bytes = {session.max_heap_size_bytes}",
            f"engine = {session.engine}",
            f"profile = {session.profile}",
            *services.registry.sandbox.summary(),
        ]
        if replaced:
            kept = after_replacement(services.code_mode.stored_values_kept, bindings_lost)
            lines.insert(0, f"The code-mode runtime host was replaced: {kept}.")
        self.publisher.stdout(request, "\n".join(lines) + "\n")
        return self.publisher.ok_reply()
