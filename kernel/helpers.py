"""The globals a cell's prelude installs (the helpers of Codex's code mode), for completion
and inspection: each one's TypeScript-style signature and a one-paragraph description.

The names are those of Codex 0.171's code-mode runtime (``text``, ``image``, ``audio``,
``generatedImage``, ``content``, ``store``, ``load``, ``notify``, ``yield_control``, ``exit``,
the timers, the undocumented ``as_settled`` and ``stream_settled``, ``tools`` and
``ALL_TOOLS``); a kernel test compares them with a real cell's global object. The notebook
profile's cells have five more (:data:`NOTEBOOK_HELPERS`: ``console``, ``display``, ``html``,
``markdown``, ``svg``; :func:`helpers_of`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Helper:
    """A global the prelude installs: its call signature and a one-paragraph description."""

    name: str
    signature: str
    doc: str


HELPERS: tuple[Helper, ...] = (
    Helper(
        "tools",
        "tools: { [name: string]: (args?: object) => Promise<any> }",
        "The enabled tools; `await tools.NAME(args)` calls one. See %tools.",
    ),
    Helper(
        "ALL_TOOLS",
        "ALL_TOOLS: { name: string; description: string }[]",
        "Every enabled tool's JavaScript name and description.",
    ),
    Helper(
        "text", "text(value: unknown): void", "Append a text item to the cell's output (objects are JSON.stringify-ed)."
    ),
    Helper(
        "image",
        "image(urlOrItem: string | object, detail?: string): void",
        "Append an image: a data: URL, {image_url, detail?} or an MCP image block.",
    ),
    Helper(
        "notify",
        "notify(value: unknown): void",
        "Show a message at once, outside the cell's output (must not be blank).",
    ),
    Helper(
        "store", "store(key: string, value: unknown): void", "Keep a JSON value for later cells of this kernel session."
    ),
    Helper("load", "load(key: string): unknown", "A fresh copy of a value stored by an earlier cell, or undefined."),
    Helper(
        "yield_control",
        "yield_control(): void",
        "Hand the output so far to the waiting execute or %wait now; the cell keeps running.",
    ),
    Helper(
        "audio",
        "audio(urlOrItem: string | object): void",
        "Append an audio item: a data: URL, {audio_url} or an MCP audio block.",
    ),
    Helper(
        "generatedImage",
        "generatedImage(result: { image_url: string; output_hint?: string }): void",
        "Append an image-generation result: its image, then its output_hint as text.",
    ),
    Helper(
        "content",
        "content(blocks: object | Iterable<object>): void",
        "Append MCP content blocks (text, image, audio, resources) to the cell's output.",
    ),
    Helper("exit", "exit(): never", "End the cell successfully at once."),
    Helper(
        "setTimeout",
        "setTimeout(callback: () => void, delayMs?: number): number",
        "Run a callback later (pending timers are dropped when the cell ends).",
    ),
    Helper("clearTimeout", "clearTimeout(id?: number): void", "Cancel a timer."),
    Helper(
        "as_settled",
        "as_settled(promises: Iterable<Promise<any>> | Map<any, Promise<any>>): "
        "AsyncGenerator<{ index: any; status: string; value?: any; reason?: any }>",
        "Each promise's settlement as it happens ({index, status, value | reason}), for `for await`.",
    ),
    Helper(
        "stream_settled",
        "stream_settled(promises: Iterable<Promise<any>> | Map<any, Promise<any>>, "
        "callback: (result: { index: any; status: string; value?: any; reason?: any }) => unknown): Promise<void>",
        "Await `callback` for each promise's settlement, in the order they settle.",
    ),
)
"""Globals of a cell: the ones Codex's code-mode prelude installs."""


def kind(helper: Helper) -> str:
    """Jupyter's completion type of ``helper``: ``function`` when it is called, else ``instance``."""
    return "function" if "(" in helper.signature.split(":")[0] else "instance"


HELPER_NAMES = frozenset(h.name for h in HELPERS)
"""The helpers' names."""

NOTEBOOK_HELPERS: tuple[Helper, ...] = (
    Helper(
        "console",
        "console: { log, info, debug, warn, error }",
        "Print as Node does (util.format): log, info and debug to stdout, warn and error to stderr.",
    ),
    Helper(
        "display",
        "display(value: unknown): void",
        "Show a value: text/plain, plus application/json for plain objects and arrays and an HTML "
        "table for an array of plain objects.",
    ),
    Helper("html", "html(html: string): void", "Show HTML."),
    Helper("markdown", "markdown(markdown: string): void", "Show Markdown."),
    Helper("svg", "svg(svg: string): void", "Show an SVG image."),
)
"""The notebook profile's own helpers of a cell (``codemode-host --profile notebook``)."""
CONSOLE_MEMBERS = (
    ("debug", "function"),
    ("error", "function"),
    ("info", "function"),
    ("log", "function"),
    ("warn", "function"),
)
"""``console``'s members in the notebook profile, as completion lists them (``(name, kind)``)."""


def helpers_of(profile: str) -> tuple[Helper, ...]:
    """The helpers of a cell in ``profile`` (``strict`` or ``notebook``)."""
    return HELPERS + NOTEBOOK_HELPERS if profile == "notebook" else HELPERS


__all__ = ["CONSOLE_MEMBERS", "HELPERS", "HELPER_NAMES", "NOTEBOOK_HELPERS", "Helper", "helpers_of", "kind"]
