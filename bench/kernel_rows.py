"""The rows measured through Jupyter kernels: codemode's against ipykernel's ``python3`` (and
Deno's kernel when ``deno`` is on ``PATH``).

Each side is a kernel started once per row (but for the start-up row, which starts one per
sample) and driven by ``jupyter_client`` as :mod:`bench.kernels` describes.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Callable

from bench.kernels import DENO_KERNEL, Kernel, command_line, deno_missing, first_cell, rss
from bench.rows import Goal, Lossy, Row, Side, present

CODEMODE = "codemode"
IPYKERNEL = "python3"
ROUND_TRIP_CELLS = 30
"""Cells per sample of the round-trip row (the sample is their median)."""
MEMORY_WARMUP_CELLS = 200
MEMORY_CELLS = 300
"""Cells per sample of the memory row (7 pairs: 2100 cells per kernel after the warm-up)."""
WIDE_OUTPUT = '// @exec: {"max_output_tokens": 10000000}\n'
"""A budget that holds every line (by default codemode cuts the middle of long output, as Codex does)."""


def _trivial(kernel_name: str) -> str:
    return {CODEMODE: 'text("x")', IPYKERNEL: 'print("x")', DENO_KERNEL: 'console.log("x")'}[kernel_name]


class FirstCell(Side):
    """A sample starts a kernel and times it to its first cell's reply (:func:`first_cell`)."""

    def __init__(self, kernel_name: str) -> None:
        self.kernel_name = kernel_name

    def sample(self, size: int) -> float:
        return first_cell(self.kernel_name, _trivial(self.kernel_name))


class KernelSide(Side):
    """A kernel started on entry and shut down on exit."""

    def __init__(self, kernel_name: str) -> None:
        self.kernel = Kernel(kernel_name)

    def __enter__(self) -> KernelSide:
        self.kernel.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kernel.__exit__(*exc)


class RoundTrip(KernelSide):
    """A sample is the median of :data:`ROUND_TRIP_CELLS` trivial cells' request to reply-and-idle."""

    def __enter__(self) -> RoundTrip:
        super().__enter__()
        for _ in range(5):  # warm-up: the host is spawned, the first cells' one-off costs paid
            self.kernel.run(_trivial(self.kernel.name))
        return self

    def sample(self, size: int) -> float:
        code = _trivial(self.kernel.name)
        return statistics.median(self.kernel.run(code).seconds for _ in range(ROUND_TRIP_CELLS))


class SizedCell(KernelSide):
    """A sample is one cell ``source(size)``, request to reply-and-idle; with ``expected``, its
    stdout must be ``expected(size)`` (else :class:`~bench.rows.Lossy`)."""

    def __init__(
        self,
        kernel_name: str,
        source: Callable[[int], str],
        warmup: int,
        expected: Callable[[int], str] | None = None,
    ) -> None:
        super().__init__(kernel_name)
        self.source = source
        self.warmup = warmup
        self.expected = expected
        self.received: dict[int, set[int]] = {}

    def __enter__(self) -> SizedCell:
        super().__enter__()
        self.sample(self.warmup)
        return self

    def sample(self, size: int) -> float:
        done = self.kernel.run(self.source(size))
        if self.expected is not None:
            want = self.expected(size)
            self.received.setdefault(size, set()).add(len(done.stdout))
            if done.stdout != want:
                raise Lossy(
                    f"{self.kernel.name} printed {len(done.stdout):,} characters for {size:,} lines, "
                    f"{len(want):,} expected (or other text)"
                )
        return done.seconds

    def notes(self) -> list[str]:
        return [
            f"{self.kernel.name}: {size:,} lines, stdout {'/'.join(f'{n:,}' for n in sorted(chars))} characters "
            "in every sample, equal to the expected text"
            for size, chars in sorted(self.received.items())
        ]


class Memory(KernelSide):
    """A sample runs ``size`` trivial cells and is the kernel's RSS growth per cell, in bytes;
    for codemode the runtime host (the kernel's child) is followed too and told in the notes."""

    def __init__(self, kernel_name: str) -> None:
        super().__init__(kernel_name)
        self.host_per_cell: list[float] = []
        self.cells = 0
        self.base: tuple[int, int | None] = (0, None)
        self.last: tuple[int, int | None] = (0, None)
        self.host_pid: int | None = None

    def __enter__(self) -> Memory:
        super().__enter__()
        for _ in range(MEMORY_WARMUP_CELLS):
            self.kernel.run(_trivial(self.kernel.name))
        hosts = [pid for pid in self.kernel.children() if "codemode.runtime" in command_line(pid)]
        self.host_pid = hosts[0] if hosts else None
        if self.kernel.name == CODEMODE and self.host_pid is None:
            raise RuntimeError("the codemode kernel has no runtime host after its warm-up cells")
        self.base = self.last = self._rss()
        return self

    def _rss(self) -> tuple[int, int | None]:
        return rss(self.kernel.pid), rss(self.host_pid) if self.host_pid else None

    def sample(self, size: int) -> float:
        before = self._rss()
        code = _trivial(self.kernel.name)
        for _ in range(size):
            self.kernel.run(code)
        self.last = after = self._rss()
        self.cells += size
        if after[1] is not None and before[1] is not None:
            self.host_per_cell.append((after[1] - before[1]) / size)
        return (after[0] - before[0]) / size

    def growth(self) -> float | None:
        return (self.last[0] - self.base[0]) / self.cells if self.cells else None

    def notes(self) -> list[str]:
        kernel_total = self.growth()
        lines = [
            f"{self.kernel.name}: kernel RSS {self.base[0] / 2**20:.1f} MiB after {MEMORY_WARMUP_CELLS} warm-up cells, "
            f"{self.last[0] / 2**20:.1f} MiB after {self.cells} more ({kernel_total or 0:.0f} B/cell)"
        ]
        if self.host_per_cell and self.base[1] is not None and self.last[1] is not None:
            lines.append(
                f"{self.kernel.name}: runtime host (the kernel's child) RSS {self.base[1] / 2**20:.1f} -> "
                f"{self.last[1] / 2**20:.1f} MiB, {(self.last[1] - self.base[1]) / self.cells:.0f} B/cell over all "
                f"cells, median of samples {statistics.median(self.host_per_cell):.0f} B/cell "
                "(not in the ratio, ipykernel has no such process)"
            )
        return lines


def _kernels(make: Callable[[str], Side], peer: str = IPYKERNEL):
    """A ``Row.setup``: enter ``make(codemode)``, then ``make(peer)`` when the peer is measured."""

    def setup(stack: contextlib.ExitStack, with_peer: bool) -> tuple[Side, Side | None]:
        mine = stack.enter_context(make(CODEMODE))
        return mine, stack.enter_context(make(peer)) if with_peer else None

    return setup


SLEEP_SOURCES = {
    CODEMODE: lambda n: f"await Promise.all(Array.from({{length: {n}}}, () => tools.sleep({{ms: 100}})));",
    IPYKERNEL: lambda n: f"import asyncio\nawait asyncio.gather(*(asyncio.sleep(0.1) for _ in range({n})))",
}
LINE_SOURCES = {
    CODEMODE: lambda n: f"{WIDE_OUTPUT}for (let i = 0; i < {n}; i++) text(i);",
    IPYKERNEL: lambda n: f"for i in range({n}): print(i)",
}


def _expected_lines(n: int) -> str:
    return "".join(f"{i}\n" for i in range(n))


def _peer_name(kernel_name: str) -> str:
    return {IPYKERNEL: "ipykernel", DENO_KERNEL: "Deno's kernel"}[kernel_name]


def _trivial_row(name: str, path: str, goal: Goal, make: Callable[[str], Side], peer: str) -> Row:
    """A row of trivial cells; with Deno's kernel as the peer, named ``NAME-deno`` and skipped
    when ``deno`` is missing (the ipykernel row measures codemode's side)."""
    deno = peer == DENO_KERNEL
    return Row(
        name=f"{name}-deno" if deno else name,
        path=path,
        ours='`text("x")`',
        peer=f"{_peer_name(peer)} `{_trivial(peer)}`",
        goal=goal,
        setup=_kernels(make, peer),
        peer_missing=deno_missing if deno else present,
        alone=not deno,
    )


def start_row(peer: str = IPYKERNEL) -> Row:
    """Row 1: kernel start to the first cell's reply."""
    return _trivial_row("start", "kernel start -> first cell finished", Goal(1.5), FirstCell, peer)


def cell_row(peer: str = IPYKERNEL) -> Row:
    """Row 2: a trivial cell's round trip."""
    return _trivial_row("cell", "trivial cell round trip", Goal(1.0), RoundTrip, peer)


SLEEPS = Row(
    name="sleeps",
    path="1000 parallel sleep({ms: 100}) in one cell, through the kernel",
    ours="`Promise.all` of 1000 `tools.sleep({ms: 100})`",
    peer="ipykernel `asyncio.gather` of 1000 `asyncio.sleep(0.1)`",
    goal=Goal(200, absolute_ms=True),
    setup=_kernels(lambda name: SizedCell(name, SLEEP_SOURCES[name], warmup=100)),
    sizes=(100, 1000),
    growth_unit="µs/call",
    growth_scale=1e6,
    size_text=lambda n: f"{n} calls",
)
LINES = Row(
    name="lines",
    path="100 000 text() lines to the client",
    ours="`for (...) text(i)`",
    peer="ipykernel `for i in range(N): print(i)`",
    goal=Goal(1.0),
    setup=_kernels(lambda name: SizedCell(name, LINE_SOURCES[name], warmup=1000, expected=_expected_lines)),
    sizes=(10_000, 100_000),
    growth_unit="µs/line",
    growth_scale=1e6,
    size_text=lambda n: f"{n:,} lines",
)
MEMORY = Row(
    name="memory",
    path="kernel memory per trivial cell",
    ours='`text("x")`, kernel process RSS',
    peer='ipykernel `print("x")`, kernel process RSS',
    goal=Goal(1.0),
    setup=_kernels(Memory),
    sizes=(MEMORY_CELLS,),
    growth_unit="B/cell over all cells",
    unit="B",
    size_text=lambda n: f"{n} cells",
)
