"""4097 cells one after another in one session (the count of Codex's tombstone test
``session_accepts_more_than_4096_cells_without_growing_a_tombstone_set``): every cell answers
and is closed exactly once, and neither the host's nor the client's memory grows beyond noise.

Memory is the resident set size (psutil) measured after cell 100 (start-up, imports and
allocator warm-up are done) and after cell 4097. Tolerance: 8 MiB for each process. A leak of
2 KiB per cell - far less than one QuickJS context (hundreds of KiB) or one kept response with
its tool list - would add about 8 MiB over the 3997 cells in between, so any real per-cell
leak fails, while allocator and GC noise (well under 1 MiB here) passes. Runs against our host,
and against Codex's host when ``$CODEMODE_REFERENCE_HOST`` is set.
"""

from __future__ import annotations

import asyncio
import gc

import psutil
import pytest
from session_harness import HOSTS

from codemode.cell_events import Closed
from codemode.config import SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.session import CodeModeSession
from codemode.tools.registry import ToolRegistry

CELL_COUNT = 4097
WARM_CELL = 100
RSS_TOLERANCE_BYTES = 8 * 1024 * 1024


@pytest.mark.timeout(180)
@pytest.mark.parametrize("command", HOSTS)
async def test_4097_cells_in_one_session_keep_host_and_client_memory_flat(command, record_property):
    registry = await ToolRegistry.create()
    closed: list[str] = []
    all_closed = asyncio.Event()

    def on_closed(cell_id: str) -> None:
        closed.append(cell_id)
        if len(closed) == CELL_COUNT:
            all_closed.set()

    session = CodeModeSession(
        registry=registry,
        dispatcher=ToolCallRuntime(registry),
        defaults=SessionDefaults(),
        host_command=command,
    )
    session.add_listener(lambda event: on_closed(event.cell_id) if isinstance(event, Closed) else None)
    client = psutil.Process()
    try:
        rss: dict[int, tuple[int, int]] = {}
        for sequence in range(1, CELL_COUNT + 1):
            started = await session.execute(f"text({sequence})")
            response = await started.initial_response
            assert (started.cell_id, response.kind, response.content_items) == (
                str(sequence),
                "Result",
                [{"type": "input_text", "text": str(sequence)}],
            )
            if sequence in (WARM_CELL, CELL_COUNT):
                gc.collect()
                host = psutil.Process(session.provider.connection.process.pid)
                rss[sequence] = (host.memory_info().rss, client.memory_info().rss)
        await asyncio.wait_for(all_closed.wait(), 10)
        assert closed == [str(n) for n in range(1, CELL_COUNT + 1)]
        assert session.live_cells == []
        (host_warm, client_warm), (host_end, client_end) = rss[WARM_CELL], rss[CELL_COUNT]
        record_property("host_rss_kib", (host_warm >> 10, host_end >> 10))
        record_property("client_rss_kib", (client_warm >> 10, client_end >> 10))
        assert host_end - host_warm <= RSS_TOLERANCE_BYTES, f"host RSS grew from {host_warm} to {host_end} bytes"
        assert client_end - client_warm <= RSS_TOLERANCE_BYTES, (
            f"client RSS grew from {client_warm} to {client_end} bytes"
        )
    finally:
        await session.shutdown()
        await registry.aclose()
