"""Replaying what a model did in Codex: a Codex session file as a codemode notebook, and
recordings of nested tool calls.

:mod:`codemode.replay.rollout` reads a session file into typed records,
:mod:`codemode.replay.convert` makes the notebook, :mod:`codemode.replay.servers` carries the
MCP servers of Codex's ``config.toml`` over, and :mod:`codemode.replay.command` is
``python -m codemode replay``. That command sits above the kernel (it reuses the kernel's pure
rendering, :mod:`codemode.kernel.render`), as ``python -m codemode run`` does.

:mod:`codemode.replay.run` runs a replay notebook in a fresh kernel per Codex process and
compares each answer with the recorded one (:mod:`codemode.replay.compare`);
:mod:`codemode.replay.run_command` is the command's ``--run``, and :mod:`codemode.replay.seed`
seeds a recording from a session's MCP calls.

:mod:`codemode.replay.recording` is a recording's format; :mod:`codemode.replay.recorder` and
:mod:`codemode.replay.player` record a run's tool calls or answer them from a recording. The
client's registry imports those two, only in record or replay mode (``[recording]``); the host
never imports this package.
"""

# nbformat imports jsonschema, whose format checkers' libraries take seconds to import; import it
# the way the kernel does, without them (nbformat checks no format).
import codemode.schema  # noqa: F401, E402
