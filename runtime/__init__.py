"""codemode.runtime: the code-mode runtime host (``codemode-host``).

A process that speaks Codex's code-mode host protocol (``spec/codex-code-mode.md`` §4,
0.171 form in ``oracle/README.md``) on stdin/stdout and runs every cell in its own
QuickJS context on its own thread (``design.md`` §2-§3). Modules: ``server``
(connection, requests, delegates), ``session`` (sessions, cell observation, store),
``cell`` (the QuickJS thread), ``prelude.js`` (the globals), ``jserrors`` (V8-worded
errors), ``truncation`` (server-side output truncation), ``interrupt`` (in-process
termination), ``validate`` (request schemas), ``names`` (tool identifiers).
"""
