"""Launch the codemode kernel with its host frames counted (for ``bench/background_cell.py``).

    python bench/counting_kernel.py -f CONNECTION_FILE

Every frame the kernel's host connections write (``HostConnection._send_frame``) or read
(``read_frame`` in the connection) is counted; the counts are written as JSON
``{"written": N, "read": M}`` to the file named by ``$CODEMODE_BENCH_FRAMES`` every 0.2 s.
Otherwise the kernel runs as ``python -m codemode.kernel`` would.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

COUNTS = {"written": 0, "read": 0}


def _install_counters() -> None:
    from codemode.host import connection

    send_frame = connection.HostConnection._send_frame
    read_frame = connection.read_frame

    async def counting_send(self: Any, frame: bytes, pending: Any = None) -> None:
        COUNTS["written"] += 1
        await send_frame(self, frame, pending)

    async def counting_read(reader: Any) -> Any:
        message = await read_frame(reader)
        if message is not None:
            COUNTS["read"] += 1
        return message

    connection.HostConnection._send_frame = counting_send  # type: ignore[method-assign]
    connection.read_frame = counting_read  # type: ignore[assignment]


def _report(path: Path) -> None:
    while True:
        path.write_text(json.dumps(COUNTS))
        time.sleep(0.2)


def main() -> None:
    _install_counters()
    target = os.environ.get("CODEMODE_BENCH_FRAMES")
    if target:
        threading.Thread(target=_report, args=(Path(target),), daemon=True).start()
    from codemode.kernel.__main__ import main as kernel_main

    kernel_main(sys.argv[1:])


if __name__ == "__main__":
    main()
