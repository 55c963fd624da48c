"""The helper table: every global a cell gets (``text``, ``tools``, ``setTimeout``, ...), in one place.

Each :class:`Helper` names a global, the prelude's JavaScript that implements it, what
``fn.name`` and ``fn.length`` show, the profiles whose cells have it, and its TypeScript-style
signature and one-paragraph description. Everything else is made from this table:

- the prelude's install code (:func:`install_source`): in the strict profile a function
  ``__cm_install_helpers()`` that defines the globals (``prelude/install.js`` calls it), in the
  notebook profile a function ``__cm_cell_helpers()`` that returns one cell's helpers, which
  become the parameters of the cell's function (``prelude/realm_install.js``);
  ``runtime/prelude_source.py`` assembles it just before that file, once per process;
- the parameters of a notebook cell's function (``runtime/notebook_cell.py``, :func:`names_of`);
- the kernel's completion and inspection (``kernel/helpers.py``);
- the names papermill's injected cell never binds (``codemode/papermill_parameters.py``).

The order is that of Codex's host (0.171's ``codex-rs/code-mode-runtime``): a strict cell's
``Object.keys(globalThis)`` lists its helpers so (the recorded case
``tests/runtime/codex_cases/globals_helper_shapes``). Codex's native helpers (``text``,
``image``, ``exit``, ...) are V8 API functions, shown with name ``""`` and length 0;
``content`` and ``as_settled`` are plain functions with their own name and length;
``stream_settled`` is an async function (``bridge.js``'s ``__cm_shape`` gives each its shape).
The notebook profile adds ``console``, ``display``, ``html``, ``markdown`` and ``svg``, as
Deno's and tslab's Jupyter kernels have them.

The host imports this module at start, so it uses no ``dataclasses`` (whose import costs the
start milliseconds, ``tests/runtime/test_host_start.py``).
"""

from __future__ import annotations

import json

PROFILES = ("strict", "notebook")
"""The profiles (``runtime/profile.py``'s names)."""
_BOTH = PROFILES
_NOTEBOOK = ("notebook",)


class Helper:
    """One global of a cell.

    ``name``: the global's name. ``implementation``: a JavaScript expression of the prelude,
    the function (or value) the global is made of. ``shown_name``, ``length``: what the
    function's ``name`` and ``length`` show (``__cm_shape``). ``profiles``: the profiles whose
    cells have it. ``signature``, ``doc``: its TypeScript-style signature and description, for
    completion and inspection. ``form``:

    - ``"function"``: a function shaped by ``__cm_shape``; in the notebook profile it is
      routed (``realm_install.js``'s ``__cm_helper``: once its cell has ended it acts for the
      cell running now), so a notebook cell's helper shows the same name, length and source
      text as a strict cell's;
    - ``"value"``: ``implementation`` itself (``notebook_implementation`` in the notebook
      profile, when given);
    - ``"namespace"``: a plain object of routed functions, ``members`` (helpers whose
      ``name`` is the member's name).
    """

    __slots__ = (
        "doc",
        "form",
        "implementation",
        "length",
        "members",
        "name",
        "notebook_implementation",
        "profiles",
        "shown_name",
        "signature",
    )

    def __init__(
        self,
        name: str,
        implementation: str,
        *,
        signature: str = "",
        doc: str = "",
        shown_name: str = "",
        length: int = 0,
        profiles: tuple[str, ...] = _BOTH,
        form: str = "function",
        notebook_implementation: str | None = None,
        members: tuple[Helper, ...] = (),
    ) -> None:
        self.name = name
        self.implementation = implementation
        self.signature = signature
        self.doc = doc
        self.shown_name = shown_name
        self.length = length
        self.profiles = profiles
        self.form = form
        self.notebook_implementation = notebook_implementation
        self.members = members

    def __repr__(self) -> str:
        return f"Helper({self.name!r})"


_SETTLEMENT = "{ index: any; status: string; value?: any; reason?: any }"
_PROMISES = "Iterable<Promise<any>> | Map<any, Promise<any>>"

HELPERS: tuple[Helper, ...] = (
    Helper(
        "tools",
        "toolsObject",
        notebook_implementation="__cm_routed_tools",
        form="value",
        signature="tools: { [name: string]: (args?: object) => Promise<any> }",
        doc="The enabled tools; `await tools.NAME(args)` calls one. See %tools.",
    ),
    Helper(
        "ALL_TOOLS",
        "allTools",
        form="value",
        signature="ALL_TOOLS: { name: string; description: string }[]",
        doc="Every enabled tool's JavaScript name and description.",
    ),
    Helper(
        "clearTimeout",
        "__cm_clear_timeout",
        signature="clearTimeout(id?: number): void",
        doc="Cancel a timer.",
    ),
    Helper(
        "setTimeout",
        "__cm_set_timeout",
        signature="setTimeout(callback: () => void, delayMs?: number): number",
        doc="Run a callback later (pending timers are dropped when the cell ends).",
    ),
    Helper(
        "text",
        "__cm_text",
        signature="text(value: unknown): void",
        doc="Append a text item to the cell's output (objects are JSON.stringify-ed).",
    ),
    Helper(
        "content",
        "__cm_content",
        shown_name="content",
        length=1,
        signature="content(blocks: object | Iterable<object>): void",
        doc="Append MCP content blocks (text, image, audio, resources) to the cell's output.",
    ),
    Helper(
        "image",
        "__cm_image",
        signature="image(urlOrItem: string | object, detail?: string): void",
        doc="Append an image: a data: URL, {image_url, detail?} or an MCP image block.",
    ),
    Helper(
        "audio",
        "__cm_audio",
        signature="audio(urlOrItem: string | object): void",
        doc="Append an audio item: a data: URL, {audio_url} or an MCP audio block.",
    ),
    Helper(
        "generatedImage",
        "__cm_generated_image",
        signature="generatedImage(result: { image_url: string; output_hint?: string }): void",
        doc="Append an image-generation result: its image, then its output_hint as text.",
    ),
    Helper(
        "store",
        "__cm_store",
        signature="store(key: string, value: unknown): void",
        doc="Keep a JSON value for later cells of this kernel session.",
    ),
    Helper(
        "load",
        "__cm_load",
        signature="load(key: string): unknown",
        doc="A fresh copy of a value stored by an earlier cell, or undefined.",
    ),
    Helper(
        "notify",
        "__cm_notify",
        signature="notify(value: unknown): void",
        doc="Show a message at once, outside the cell's output (must not be blank).",
    ),
    Helper(
        "yield_control",
        "__cm_yield_control",
        signature="yield_control(): void",
        doc="Hand the output so far to the waiting execute or %wait now; the cell keeps running.",
    ),
    Helper(
        "exit",
        "__cm_exit",
        signature="exit(): never",
        doc="End the cell successfully at once.",
    ),
    Helper(
        "as_settled",
        "__cm_as_settled",
        shown_name="as_settled",
        length=1,
        signature=f"as_settled(promises: {_PROMISES}): AsyncGenerator<{_SETTLEMENT}>",
        doc="Each promise's settlement as it happens ({index, status, value | reason}), for `for await`.",
    ),
    Helper(
        "stream_settled",
        "__cm_stream_settled",
        shown_name="stream_settled",
        length=2,
        signature=f"stream_settled(promises: {_PROMISES}, callback: (result: {_SETTLEMENT}) => unknown): Promise<void>",
        doc="Await `callback` for each promise's settlement, in the order they settle.",
    ),
    Helper(
        "console",
        "",
        form="namespace",
        profiles=_NOTEBOOK,
        members=(
            Helper("log", "__cm_console_out", shown_name="log"),
            Helper("info", "__cm_console_out", shown_name="info"),
            Helper("debug", "__cm_console_out", shown_name="debug"),
            Helper("warn", "__cm_console_err", shown_name="warn"),
            Helper("error", "__cm_console_err", shown_name="error"),
        ),
        signature="console: { log, info, debug, warn, error }",
        doc="Print as Node does (util.format): log, info and debug to stdout, warn and error to stderr.",
    ),
    Helper(
        "display",
        "__cm_display",
        shown_name="display",
        length=1,
        profiles=_NOTEBOOK,
        signature="display(value: unknown): void",
        doc="Show a value: text/plain, plus application/json for plain objects and arrays and an HTML "
        "table for an array of plain objects.",
    ),
    Helper(
        "html",
        "__cm_html",
        shown_name="html",
        length=1,
        profiles=_NOTEBOOK,
        signature="html(html: string): void",
        doc="Show HTML.",
    ),
    Helper(
        "markdown",
        "__cm_markdown",
        shown_name="markdown",
        length=1,
        profiles=_NOTEBOOK,
        signature="markdown(markdown: string): void",
        doc="Show Markdown.",
    ),
    Helper(
        "svg",
        "__cm_svg",
        shown_name="svg",
        length=1,
        profiles=_NOTEBOOK,
        signature="svg(svg: string): void",
        doc="Show an SVG image.",
    ),
)
"""Every helper, in install order (the module docstring)."""


def helpers_of(profile: str) -> tuple[Helper, ...]:
    """The helpers of a cell in ``profile`` (``strict`` or ``notebook``), in install order;
    ``ValueError`` for another name."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}")
    return tuple(h for h in HELPERS if profile in h.profiles)


def names_of(profile: str) -> tuple[str, ...]:
    """The names of :func:`helpers_of` ``profile``."""
    return tuple(h.name for h in helpers_of(profile))


def _shaped(helper: Helper, label: str) -> str:
    """The arguments ``__cm_define`` and ``__cm_helper`` take for ``helper``: its global's (or
    member's) label, implementation, shown name and length."""
    return f"{json.dumps(label)}, {helper.implementation}, {json.dumps(helper.shown_name)}, {helper.length}"


def _strict_line(helper: Helper) -> str:
    if helper.form == "value":
        return f"  __cm_define_value(globalThis, {json.dumps(helper.name)}, {helper.implementation}, true, true, true);"
    if helper.form == "function":
        return f"  __cm_define({_shaped(helper, helper.name)});"
    raise ValueError(f"a strict cell's helper {helper.name} cannot be a {helper.form}")


def _notebook_lines(helper: Helper) -> list[str]:
    key = f"helpers[{json.dumps(helper.name)}]"
    if helper.form == "value":
        return [f"  {key} = {helper.notebook_implementation or helper.implementation};"]
    if helper.form == "function":
        return [f"  {key} = __cm_helper({_shaped(helper, helper.name)});"]
    if helper.form == "namespace":
        lines = ["  {", "    const members = {};"]  # a plain object, as Node's console is
        for member in helper.members:
            label = helper.name + "." + member.name
            lines.append(f"    members[{json.dumps(member.name)}] = __cm_helper({_shaped(member, label)});")
        return [*lines, f"    {key} = members;", "  }"]
    raise ValueError(f"unknown form {helper.form} of helper {helper.name}")


def install_source(profile: str) -> str:
    """The prelude's install code of ``profile``'s helpers (the module docstring): JavaScript
    declaring ``__cm_install_helpers()`` (strict) or ``__cm_cell_helpers()`` (notebook).
    ``ValueError`` for another profile or a helper the profile cannot install."""
    helpers = helpers_of(profile)
    if profile == "strict":
        body = [_strict_line(h) for h in helpers]
        return (
            "// Define a strict cell's globals (writable, enumerable, configurable, as Codex's are).\n"
            "function __cm_install_helpers() {\n" + "\n".join(body) + "\n}\n"
        )
    body = ["  const helpers = __cm_record();"]
    for helper in helpers:
        body += _notebook_lines(helper)
    return (
        "// This cell's helpers by name (what __cm_start hands its function, in config.helpers' order).\n"
        "function __cm_cell_helpers() {\n" + "\n".join(body) + "\n  return helpers;\n}\n"
    )


__all__ = ["HELPERS", "PROFILES", "Helper", "helpers_of", "install_source", "names_of"]
