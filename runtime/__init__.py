"""codemode.runtime: the code-mode runtime host (``codemode-host``).

A process that speaks Codex's code-mode host protocol (version 1, as Codex 0.171's
``codex-code-mode-host`` speaks it) on stdin/stdout and runs every cell in its own
JavaScript context (QuickJS, or V8 with ``--engine v8``) driven by a thread of its own.
Modules, from the wire inwards:

- ``boot``: how the client starts the host (``python -I -S``, the import path handed over);
  ``__main__``: the console script and the start; ``stdio``: serving on stdin/stdout with
  asyncio; ``server``: the connection (handshake, requests,
  the order of frames); ``validate``: the client's frames decoded into typed messages;
  ``delegates``: the host's calls into the client; ``errors``: the two failures.
- ``session``: ``HostSession``, the host's record of a session opened by ``session/open``
  (cells, stored values); ``livecell``: one cell's output buffer and observer.
- ``cell``: the thread of one cell (queue, timers, tool calls, outcome); ``cell_thread``:
  cell threads, one kept ready with its engine prepared; ``engines``: the
  engine behind it (``engines/quickjs.py``, ``engines/v8.py``); ``outcome``: how a cell
  ended; ``prelude_source`` and ``prelude/*.js``: the globals; ``jserrors``: V8-worded
  compile errors for QuickJS; ``interrupt``: QuickJS's in-process termination.
- ``gc_tuning``: start-up objects frozen out of the collector's way (the kernel's too).

The host imports, of codemode, only this package and ``codemode.wire``
(``tests/runtime/test_host_imports.py``).
"""
