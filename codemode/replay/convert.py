"""A Codex session (:mod:`codemode.replay.rollout`) as a notebook that reads as the session.

Cells, in the session's order:

- the user's prompts, the model's messages and reasoning summaries: Markdown cells;
- each ``exec``: a code cell whose source is exactly what the model sent (pragma included);
- each ``wait``: ``%wait ID [--yield-time-ms N] [--max-tokens N]``, or ``%terminate ID`` for
  ``terminate: true`` (:mod:`codemode.kernel.magics`), with only the options the model gave;
- a Markdown cell where Codex resumed the session in a new process, and one per tool the model
  called directly (not from code mode).

Cell ids. The kernel numbers the code cells it runs ``1``, ``2``, ... in the order they run,
each execute taking one, as Codex's host does within one process
(``codemode.runtime.host_session.HostSession.new_cell``); a magic takes none. Ids are counted
per Codex process: a resumed session's ids restart at 1 in Codex, and the kernel is restarted
there (``--run`` does it, :mod:`codemode.replay.run`; a person says so in a Markdown cell). Run
so, the N-th code cell of a process is cell ``N``, and a wait names the exec its id meant in
its own process (:attr:`~codemode.replay.rollout.WaitCall.target`) by that exec's position. A wait on an id its process
never gave keeps the id as written: the kernel answers Codex's ``exec cell ID not found``
(``no-such-cell``; a number only while no cell of that number has run).

Outputs are what the model saw, shown as the kernel shows a live result
(:mod:`codemode.kernel.render`): texts as ``stream``, images as ``display_data``, a failure as an
``error``; each ``notify()`` as a ``display_data`` under the cell whose result preceded it in the
file (metadata ``{"codemode": {"notify": ID}}``). The cells are not run: no execution count.

Metadata (``codemode.replay``, :data:`FORMAT` 1). On the notebook: ``format``, ``session_id``,
``codex_version``, ``cwd``, ``started_at``, ``source`` (the file's name), ``lines``,
``problems`` (``[{"line", "problem"}]``), ``skipped`` (line type -> count), ``nested_tool_calls``
(``[{"kind", "id", "turn_id", "time", "started_at_ms", "completed_at_ms", "pending_call_id",
"line", "item"}]``, the items as recorded). On each cell: ``kind`` (``prompt``, ``message``,
``reasoning``, ``process``, ``tool``, ``exec``, ``wait``, ``terminate``), ``time``, ``turn``
(1, 2, ...), ``turn_id``, ``process``, ``line``; on an exec, wait or terminate cell also
``call_id``, ``codex_version``, ``cell_id`` (Codex's), ``notebook_cell_id`` (the kernel's when
the notebook runs top to bottom), ``result`` (None when none was recorded, else ``status``,
``wall_time_s``, ``cell_id``, ``time``, ``line``, ``error``, ``truncation``
``{"original_token_count", "total_output_lines"}`` or None, and ``model_view``: the output
exactly as recorded) and ``notifications`` (``[{"call_id", "text", "time", "line"}]`` shown
under the cell); on a wait or terminate also ``arguments`` (verbatim), ``wait`` (the parsed
``cell_id``, ``yield_time_ms``, ``max_tokens``, ``terminate``) and ``target_call_id`` (the
exec's; with ``notebook_cell_id``, None when the id named no cell of its process).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from codemode.kernel import render
from codemode.replay.rollout import (
    CallResult,
    ExecCall,
    ModelMessage,
    NestedToolCall,
    NotASessionError,
    Notify,
    OtherToolCall,
    Process,
    Reasoning,
    Session,
    Turn,
    UserPrompt,
    WaitCall,
    read_session,
    session_warnings,
)

FORMAT = 1
"""The version of the ``codemode.replay`` metadata written here."""
KERNELSPEC = {"name": "codemode", "display_name": "Code Mode (JavaScript)", "language": "javascript"}


class NoCodeModeError(ValueError):
    """The session has no ``exec`` or ``wait`` call: there is nothing to replay."""


@dataclass
class _Where:
    """The turn and process the conversion is in."""

    turn: int = 0
    turn_id: str | None = None
    process: int = 1
    cells: int = 0
    """Code cells of the current process so far: the kernel's id of the last one."""


NOT_FOUND = re.compile(r"\Aexec cell \S+ not found\Z")
"""Codex's answer to a wait on an id it does not know (the kernel shows it as ``CellNotFound``)."""


def _output(kind: str, content: dict[str, Any]) -> dict[str, Any]:
    """An nbformat v4 output of an IOPub message (as ``nbformat.v4.output_from_msg`` makes it,
    without validating each: the notebook is checked once, in the tests)."""
    if kind == "stream":
        return {"output_type": "stream", "name": content["name"], "text": content["text"]}
    if kind == "error":
        return {"output_type": "error", **content}
    return {"output_type": "display_data", "data": content["data"], "metadata": content["metadata"]}


def _outputs(result: CallResult | None, notebook_id: str | None, wait: bool) -> list[dict[str, Any]]:
    """The nbformat outputs of a recorded result, as the kernel would show it live (a wait's
    ``exec cell ID not found`` as its ``CellNotFound`` error, ``kernel.magic_handlers``)."""
    if result is None:
        return []
    messages = render.coalesced_messages(list(result.items))
    if result.status == "failed" and result.error is not None:
        if wait and NOT_FOUND.match(result.error):
            parts = render.plain_error("CellNotFound", result.error)
        else:
            parts = render.parse_error_text(result.error)
        messages.append(("error", parts.content()))
    elif result.status == "terminated":
        messages.append(("error", render.terminated_error(notebook_id).content()))
    return [_output(kind, content) for kind, content in messages]


def _notify_output(note: Notify, cell_id: str | None) -> dict[str, Any]:
    return _output("display_data", {"data": {"text/plain": note.text}, "metadata": {"codemode": {"notify": cell_id}}})


def _result_metadata(result: CallResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    truncation = result.truncation
    return {
        "status": result.status,
        "wall_time_s": result.wall_time_s,
        "cell_id": result.cell_id,
        "time": result.time,
        "line": result.line,
        "error": result.error,
        "truncation": None
        if truncation is None
        else {
            "original_token_count": truncation.original_token_count,
            "total_output_lines": truncation.total_output_lines,
        },
        "model_view": result.output,
    }


def _markdown(text: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {"codemode": {"replay": meta}}, "source": text}


def _code(source: str, meta: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"codemode": {"replay": meta}},
        "outputs": outputs,
        "source": source,
    }


def _quote(label: str, text: str) -> str:
    return f"**{label}**\n\n{text}"


def session_notebook(session: Session) -> dict[str, Any]:
    """The notebook of ``session`` (module docstring) as plain JSON data, nbformat 4.5
    (``nbformat.from_dict`` gives a ``NotebookNode``; not validated here, the tests validate
    every real session's); raises :class:`NoCodeModeError` when it
    has no ``exec`` or ``wait`` call."""
    if not any(isinstance(r, ExecCall | WaitCall) for r in session.records):
        raise NoCodeModeError(
            f"{session.path} has no code-mode call (no exec or wait): nothing to replay. "
            "Codex uses code mode with models whose tool mode is code_mode_only, or with "
            "[features] code_mode = true."
        )
    meta = session.meta
    notebook_ids: dict[str, str] = {}
    cells: list[dict[str, Any]] = []
    where = _Where()
    last_call_cell: dict[str, Any] | None = None
    last_call_id_of_cell: str | None = None
    version = meta.codex_version

    def base(kind: str, time: str, line: int, turn_id: str | None) -> dict[str, Any]:
        return {
            "kind": kind,
            "time": time,
            "turn": where.turn,
            "turn_id": turn_id or where.turn_id,
            "process": where.process,
            "line": line,
        }

    title = [
        f"# Codex session `{meta.session_id}`",
        "",
        f"Recorded by Codex {version or '(unknown version)'} in `{meta.cwd}`, started {meta.started_at}.",
        "Converted by `python -m codemode replay`: the outputs shown are what the model saw; the cells have not run.",
    ]
    if session.problems:
        title.append("")
        title.extend(f"- Line {p.line} could not be read: {p.problem}." for p in session.problems)
    cells.append(_markdown("\n".join(title), {"kind": "session", "line": 1}))
    for record in session.records:
        if isinstance(record, Process):
            where.process = record.index
            where.cells = 0
            if record.index > 1:
                cells.append(
                    _markdown(
                        "*Codex resumed the session in a new process here: its cell ids restart at 1, "
                        "and values kept with `store()` are gone. Restart the kernel here to run on as Codex "
                        "did (`--run` does).*",
                        base("process", record.time, record.line, None),
                    )
                )
        elif isinstance(record, Turn):
            where.turn, where.turn_id = record.index, record.turn_id
        elif isinstance(record, UserPrompt):
            cells.append(
                _markdown(_quote("User", record.text), base("prompt", record.time, record.line, record.turn_id))
            )
        elif isinstance(record, ModelMessage):
            label = "Codex" if record.phase is None else f"Codex ({record.phase.replace('_', ' ')})"
            meta_ = base("message", record.time, record.line, record.turn_id) | {"phase": record.phase}
            cells.append(_markdown(_quote(label, record.text), meta_))
        elif isinstance(record, Reasoning):
            text = _quote("Codex (reasoning summary)", record.text)
            cells.append(_markdown(text, base("reasoning", record.time, record.line, record.turn_id)))
        elif isinstance(record, OtherToolCall):
            text = f"**Codex called `{record.name}` directly** (not from code mode)\n\n```\n{record.arguments}\n```"
            meta_ = base("tool", record.time, record.line, record.turn_id) | {
                "name": record.name,
                "call_id": record.call_id,
                "arguments": record.arguments,
                "output": record.output,
            }
            cells.append(_markdown(text, meta_))
        elif isinstance(record, ExecCall):
            where.cells += 1
            notebook_id = str(where.cells)
            notebook_ids[record.call_id] = notebook_id
            meta_ = base("exec", record.time, record.line, record.turn_id) | {
                "call_id": record.call_id,
                "codex_version": version,
                "cell_id": record.cell_id,
                "notebook_cell_id": notebook_id,
                "result": _result_metadata(record.result),
                "notifications": [],
            }
            cell = _code(record.source, meta_, _outputs(record.result, notebook_id, wait=False))
            cells.append(cell)
            last_call_cell, last_call_id_of_cell = cell, notebook_id
        elif isinstance(record, WaitCall):
            args = record.parsed
            target_id = notebook_ids.get(record.target) if record.target is not None else None
            named = target_id if target_id is not None else (args.cell_id or "")
            kind = "terminate" if args.terminate else "wait"
            source = magic_source(kind, named, args.yield_time_ms, args.max_tokens)
            meta_ = base(kind, record.time, record.line, record.turn_id) | {
                "call_id": record.call_id,
                "codex_version": version,
                "arguments": record.arguments,
                "wait": {
                    "cell_id": args.cell_id,
                    "yield_time_ms": args.yield_time_ms,
                    "max_tokens": args.max_tokens,
                    "terminate": args.terminate,
                },
                "target_call_id": record.target,
                "cell_id": args.cell_id,
                "notebook_cell_id": target_id,
                "result": _result_metadata(record.result),
                "notifications": [],
            }
            cell = _code(source, meta_, _outputs(record.result, named, wait=True))
            cells.append(cell)
            last_call_cell, last_call_id_of_cell = cell, target_id
        elif isinstance(record, Notify):
            shown_id = notebook_ids.get(record.call_id)
            if last_call_cell is None:
                continue
            last_call_cell["outputs"].append(_notify_output(record, shown_id or last_call_id_of_cell))
            last_call_cell["metadata"]["codemode"]["replay"]["notifications"].append(
                {"call_id": record.call_id, "text": record.text, "time": record.time, "line": record.line}
            )
    for index, cell in enumerate(cells, 1):
        cell["id"] = f"replay-{index}"  # stable, so converting again changes nothing
    metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "javascript"},
        "codemode": {"replay": notebook_metadata(session)},
    }
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def notebook_text(notebook: dict[str, Any]) -> str:
    """The ``.ipynb`` text of ``notebook``: JSON with sorted keys, indented, UTF-8 (orjson:
    ``nbformat.writes`` validates and deep-copies the notebook and encodes it in Python, seconds
    for a long session)."""
    return orjson.dumps(notebook, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode("utf-8") + "\n"


def magic_source(kind: str, cell_id: str, yield_time_ms: int | None, max_tokens: int | None) -> str:
    """``%terminate ID`` or ``%wait ID`` with the options given (an id with blanks or quotes is
    quoted as the magic's parser splits words, ``shlex``)."""
    named = shlex.quote(cell_id) if cell_id else "''"
    if kind == "terminate":
        return f"%terminate {named}"
    parts = [f"%wait {named}"]
    if yield_time_ms is not None:
        parts.append(f"--yield-time-ms {yield_time_ms}")
    if max_tokens is not None:
        parts.append(f"--max-tokens {max_tokens}")
    return " ".join(parts)


def notebook_metadata(session: Session) -> dict[str, Any]:
    """The notebook-level ``codemode.replay`` metadata (module docstring)."""
    meta = session.meta
    return {
        "format": FORMAT,
        "session_id": meta.session_id,
        "codex_version": meta.codex_version,
        "cwd": meta.cwd,
        "started_at": meta.started_at,
        "originator": meta.originator,
        "source": session.path.name,
        "lines": session.lines,
        "problems": [{"line": p.line, "problem": p.problem} for p in session.problems],
        "skipped": dict(session.skipped),
        "nested_tool_calls": [_nested(n) for n in session.records if isinstance(n, NestedToolCall)],
    }


def _nested(call: NestedToolCall) -> dict[str, Any]:
    return {
        "kind": call.kind,
        "id": call.item_id,
        "turn_id": call.turn_id,
        "time": call.time,
        "started_at_ms": call.started_at_ms,
        "completed_at_ms": call.completed_at_ms,
        "pending_call_id": call.pending_call_id,
        "line": call.line,
        "item": dict(call.item),
    }


class SourceError(ValueError):
    """A replay source (a session file or a replay notebook) that cannot be read; ``str(e)``
    says why."""


def load_source(source: Path) -> dict[str, Any]:
    """The replay notebook of ``source``: a notebook as it is, a session file converted (its
    warnings printed to stderr). Raises :class:`SourceError` when it cannot be read."""
    if source.suffix == ".ipynb":
        try:
            return dict(json.loads(source.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise SourceError(f"{source} could not be read as a notebook: {exc}") from exc
    try:
        session = read_session(source)
        nb = session_notebook(session)
    except (NotASessionError, NoCodeModeError) as exc:
        raise SourceError(str(exc)) from exc
    except OSError as exc:
        raise SourceError(f"{source} could not be read: {exc.strerror or exc}.") from exc
    for line in session_warnings(session):
        print(line, file=sys.stderr)
    return nb
