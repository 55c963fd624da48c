"""Replaying what a model did in Codex: a Codex session file as a codemode notebook.

:mod:`codemode.replay.rollout` reads a session file into typed records,
:mod:`codemode.replay.convert` makes the notebook, :mod:`codemode.replay.servers` carries the
MCP servers of Codex's ``config.toml`` over, and :mod:`codemode.replay.command` is
``python -m codemode replay``. This package is a command above the kernel (it reuses the
kernel's pure rendering, :mod:`codemode.kernel.render`); the client and the host never import it.
"""

# nbformat imports jsonschema, whose format checkers' libraries take seconds to import; import it
# the way the kernel does, without them (nbformat checks no format).
import codemode.schema  # noqa: F401, E402
