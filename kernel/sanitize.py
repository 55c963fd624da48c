"""What the kernel lets a cell show in a front end: the MIME bundles of ``display_data``,
``execute_result`` and ``update_display_data`` messages, made inert.

Cells are written by models, and outputs of a live session are *trusted* in JupyterLab: a
``<script>`` in a ``text/html`` output would run in the page with the user's Jupyter token
(open a terminal, run commands outside the sandbox). The kernel is the trust boundary (the
runtime host can be replaced by another program), so every bundle passes :func:`safe_bundle`
on its way to IOPub (:meth:`codemode.kernel.publish.Publisher.send`):

- ``text/html`` is cleaned by ammonia (the ``nh3`` binding) to :data:`TAGS` with ammonia's
  default attributes (no ``style``, ``class``, ``id`` or event handlers) and ``rel="noopener
  noreferrer"`` on links. Scripts, styles, iframes, objects, embeds, forms and inline SVG
  are dropped (the text of a ``<script>`` or ``<style>`` too). A URL is kept only where
  :func:`url_allowed` says so: links to ``http``/``https``/``mailto`` or an in-page ``#``
  anchor; images only as ``data:image/...`` URLs (a remote image loads by itself, so it
  would carry data out of the sandbox; show one with ``image()``); ``<audio>`` only with a
  ``data:audio/...`` source (the kernel's own player for ``input_audio``).
- ``text/markdown`` is rendered to HTML in the kernel (``mistune`` with tables,
  strikethrough and math, as nbconvert renders Markdown), cleaned the same way and sent as
  ``text/html``; the Markdown source is not sent. Cleaning the Markdown text as HTML would
  break it (``>`` of a quote, ``<`` in code), and leaving the rendering to the front end
  would leave raw HTML and ``javascript:`` links to a parser the kernel cannot check.
- ``image/svg+xml`` is passed as is: JupyterLab 4 shows it as an ``<img>`` with a ``data:``
  URL (``renderSVG`` in ``@jupyterlab/rendermime``), where scripts do not run and nothing
  external is loaded. A front end that puts SVG into its page itself must clean it there.
- The other MIME types are kept only when in :data:`KEPT_TYPES` (plain text, JSON, raster
  images, audio); any other (``application/javascript``, widget views, ...) is dropped.
"""

from __future__ import annotations

import functools
from typing import Any

import nh3

BUNDLE_MESSAGES = ("display_data", "execute_result", "update_display_data")
"""IOPub message types whose ``data`` is a MIME bundle a front end renders."""
KEPT_TYPES = frozenset(
    {
        "text/plain",
        "application/json",
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "image/svg+xml",
    }
)
"""MIME types kept as they are (besides ``text/html``, ``text/markdown`` and ``audio/*``)."""
TAGS = frozenset((nh3.ALLOWED_TAGS - {"area", "map"}) | {"audio", "progress"})
"""Elements kept in HTML: ammonia's default set (text structure, headings, lists, tables, code,
emphasis, links, images) without image maps, plus ``<audio>`` and ``<progress>``."""
ATTRIBUTES = {
    **{tag: set(names) - {"cite"} for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
    "audio": {"controls", "src"},
    "progress": {"value", "max"},
    "div": {"class"},
}
"""Attributes kept per element: ammonia's defaults (``href`` of links, ``src``, ``alt`` and sizes of
images, table spans and alignment), without ``cite`` URLs, plus ``controls`` and ``src`` of audio,
``value`` and ``max`` of a progress bar, and the ``class`` of a ``div`` when it is one of
:data:`KERNEL_CLASSES`."""
KERNEL_CLASSES = frozenset({"codemode-status"})
"""Classes the kernel's own displays use (status displays, ``kernel/cells.py``); any other class
is dropped (a cell could otherwise dress its output as JupyterLab's own dialogs)."""


@functools.cache
def _markdown() -> Any:
    """The Markdown renderer, made at the first Markdown display (mistune's import costs tens
    of milliseconds, kept off the kernel's start)."""
    import mistune

    return mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "math"])


def _squeezed(url: str) -> str:
    """``url`` as a browser reads its scheme: ASCII whitespace and control characters anywhere
    removed (WHATWG URL parsing drops tabs and newlines inside, the rest around), lower case."""
    return "".join(c for c in url if ord(c) > 0x20 and c != "\x7f").lower()


def url_allowed(element: str, attribute: str, url: str) -> bool:
    """Whether ``url`` may stay as ``element``'s ``attribute`` (see the module docstring)."""
    squeezed = _squeezed(url)
    if element == "a" and attribute == "href":
        return squeezed.startswith(("http://", "https://", "mailto:", "#"))
    if element == "img" and attribute == "src":
        return squeezed.startswith("data:image/")
    if element == "audio" and attribute == "src":
        return squeezed.startswith("data:audio/")
    return True


def _attribute_filter(element: str, attribute: str, value: str) -> str | None:
    if attribute in ("href", "src") and not url_allowed(element, attribute, value):
        return None
    if attribute == "class" and value not in KERNEL_CLASSES:
        return None
    return value


def clean_html(source: str) -> str:
    """``source`` with only :data:`TAGS`, :data:`ATTRIBUTES` and allowed URLs left (ammonia)."""
    return nh3.clean(
        source,
        tags=set(TAGS),
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto", "data"},
        attribute_filter=_attribute_filter,
    )


def markdown_html(source: str) -> str:
    """The Markdown ``source`` rendered to HTML and cleaned (:func:`clean_html`)."""
    rendered = _markdown()(source)
    return clean_html(rendered if isinstance(rendered, str) else "")


def safe_bundle(data: dict[str, Any]) -> dict[str, Any]:
    """The MIME bundle ``data`` as the kernel publishes it (module docstring): HTML cleaned,
    Markdown rendered and cleaned as ``text/html`` (an HTML part beside it wins), unknown types
    dropped. A ``text/html`` or ``text/markdown`` value that is not a string is dropped."""
    safe: dict[str, Any] = {}
    for mime, value in data.items():
        if mime in KEPT_TYPES or mime.startswith("audio/"):
            safe[mime] = value
        elif mime == "text/html" and isinstance(value, str):
            safe[mime] = clean_html(value)
    markdown = data.get("text/markdown")
    if "text/html" not in safe and isinstance(markdown, str):
        safe["text/html"] = markdown_html(markdown)
    return safe


def safe_content(msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
    """``content`` of an IOPub message with its bundle made safe (:data:`BUNDLE_MESSAGES`; others
    are returned unchanged)."""
    data = content.get("data")
    if msg_type not in BUNDLE_MESSAGES or not isinstance(data, dict):
        return content
    return {**content, "data": safe_bundle(data)}
