"""The ``view_image`` built-in: a local image file as a data URL, read through the sandbox.

``view_image({path})`` -> ``{image_url: "data:image/png;base64,..."}``, the object Codex's
code mode gives a program (Codex CLI 0.171.0: ``Object.keys(v)`` is ``image_url``), ready for
``image(v.image_url)``. ``path`` is relative to the kernel's working directory. The file's
bytes are kept as they are (Codex resizes an image larger than its limits; codemode does not);
the media type comes from the file's first bytes (PNG, JPEG, GIF, WebP, BMP), else from its
name, else ``application/octet-stream``.

Errors are Codex's texts (``codex-rs/core/src/tools/handlers/view_image.rs``): ``unable to
locate image at `/abs/x.png`: No such file or directory (os error 2)``, ``image path
`/abs/dir` is not a file``; a path out of cells' reach (:func:`~codemode.sandbox.files.read_checked`)
is refused with the sandbox's sentence. Its arguments are read as Codex's ``ViewImageArgs``
(:mod:`codemode.tools.serde_arguments`).
"""

from __future__ import annotations

import base64
import mimetypes
import os
from pathlib import Path
from typing import Any

from codemode.errors import ToolCallError
from codemode.sandbox import Sandbox
from codemode.sandbox.files import WriteRefused, read_checked
from codemode.tools.base import Handler, Tool, ToolContext
from codemode.tools.serde_arguments import SerdeField, SerdeStruct
from codemode.tools.threads import BUILTINS

SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)

ARGUMENTS = SerdeStruct((SerdeField("path", "String", required=True, optional=False),))


def media_type(data: bytes, name: str) -> str:
    """The media type of an image file's ``data`` (its first bytes decide), else of its ``name``."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for signature, kind in SIGNATURES:
        if data.startswith(signature):
            return kind
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def data_url(data: bytes, name: str) -> str:
    """``data:<media type>;base64,<data>``."""
    return f"data:{media_type(data, name)};base64,{base64.b64encode(data).decode('ascii')}"


def _handler(sandbox: Sandbox) -> Handler:
    async def view_image(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        # Codex joins the path to the working directory as it is (no normalisation).
        shown = os.path.join(os.getcwd(), os.path.expanduser(args["path"]))
        try:
            data = await BUILTINS.run("view_image", read_checked, sandbox.policy, Path(shown))
        except WriteRefused as exc:
            raise ToolCallError(f"view_image: {exc}") from None
        except IsADirectoryError:
            raise ToolCallError(f"image path `{shown}` is not a file") from None
        except OSError as exc:
            reason = f"{exc.strerror} (os error {exc.errno})" if exc.errno else str(exc)
            raise ToolCallError(f"unable to locate image at `{shown}`: {reason}") from None
        return {"image_url": data_url(data, shown)}

    return view_image


def view_image_tool(sandbox: Sandbox) -> Tool:
    """The ``view_image`` :class:`Tool`, bound to ``sandbox``."""
    return Tool(
        name="view_image",
        description=(
            "Reads a local image file and returns `{image_url}`, a data URL; pass it to `image()` to show the image."
        ),
        handler=_handler(sandbox),
        input_schema={
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "The image file, absolute or relative to the kernel's working directory.",
                }
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {"image_url": {"type": "string"}},
            "required": ["image_url"],
            "additionalProperties": False,
        },
        arguments=ARGUMENTS,
    )
