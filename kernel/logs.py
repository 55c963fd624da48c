"""Where the ``codemode`` loggers' records go in the kernel, and from which level they are made.

Without a handler, Python's last-resort handler writes warnings to ``sys.stderr``, which in a
kernel is an IOPub stream with no parent: frontends show such text outside any cell. So the
``codemode`` loggers write where ipykernel's own log goes (its handlers); problems users must
see are shown in cells by the kernel.

Their level is the lowest level of those handlers, not the application logger's: traitlets
sets that logger to ``DEBUG`` and filters in its handlers (``WARNING`` unless ``--debug`` or
``--log-level`` says otherwise), so a level taken from the logger made a record, about 3 µs,
for every ``log.debug`` call on the kernel's hottest paths, only for the handler to drop it.
"""

from __future__ import annotations

import logging
import sys
from typing import Any


def route_library_logging(app_log: Any) -> None:
    """Give the ``codemode`` logger ``app_log``'s handlers (a stderr handler when it has none)
    and, unless it has a level already, the lowest level they let through."""
    library = logging.getLogger("codemode")
    handlers = [h for h in getattr(app_log, "handlers", []) if h not in library.handlers]
    if not handlers:
        handlers = [logging.StreamHandler(sys.__stderr__)]
    for handler in handlers:
        library.addHandler(handler)
    library.propagate = False
    if library.level == logging.NOTSET:
        library.setLevel(handler_threshold(app_log, library.handlers))


def handler_threshold(app_log: Any, handlers: list[logging.Handler]) -> int:
    """The lowest level of ``handlers`` that filter (a handler at ``NOTSET`` lets everything
    through: then ``app_log``'s effective level, or ``WARNING`` for a logger-like object)."""
    levels = [handler.level for handler in handlers]
    if levels and all(levels):
        return min(levels)
    return app_log.getEffectiveLevel() if isinstance(app_log, logging.Logger) else logging.WARNING
