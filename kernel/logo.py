"""Draw the kernel's logos (a console prompt ``>_`` on a rounded tile) without image libraries.

The kernelspec ships ``logo-32x32.png``, ``logo-64x64.png`` and ``logo-svg.svg``
(JupyterLab's launcher prefers the SVG, then the 64x64 PNG; see Jupyter's kernelspec docs).
The PNGs in ``kernel/resources/`` were produced by :func:`write_logos`; run
``python -m codemode.kernel.logo`` to redraw them after changing the design.

The shapes are described once, in a 64-unit square, as signed-distance functions; the PNG
renderer samples them 4x4 per pixel for anti-aliasing and the SVG uses the same geometry.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

TILE_RGB = (0x1F, 0x3A, 0x5F)
"""Background tile colour (dark blue)."""
INK_RGB = (0xF7, 0xDF, 0x1E)
"""Prompt colour (JavaScript yellow)."""

_UNITS = 64.0
_TILE_RADIUS = 12.0
_STROKE = 5.0
# The ">" chevron: two segments meeting at the tip; the "_" underline: one segment.
_SEGMENTS = (
    ((16.0, 20.0), (30.0, 32.0)),
    ((30.0, 32.0), (16.0, 44.0)),
    ((34.0, 45.0), (48.0, 45.0)),
)


def _segment_distance(px: float, py: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance in units from the point to the segment ``a``-``b``."""
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def _inside_tile(px: float, py: float) -> bool:
    """True when the point lies in the rounded square tile."""
    r = _TILE_RADIUS
    qx = max(abs(px - _UNITS / 2) - (_UNITS / 2 - r), 0.0)
    qy = max(abs(py - _UNITS / 2) - (_UNITS / 2 - r), 0.0)
    return math.hypot(qx, qy) <= r


def _on_ink(px: float, py: float) -> bool:
    """True when the point lies on one of the prompt's strokes (round caps)."""
    return any(_segment_distance(px, py, a, b) <= _STROKE / 2 for a, b in _SEGMENTS)


def render_rgba(size_px: int, samples: int = 4) -> bytes:
    """Render the logo as ``size_px`` x ``size_px`` straight-alpha RGBA rows (no filter bytes).

    ``samples`` is the per-axis supersampling factor. Raises ``ValueError`` for a size < 1.
    """
    if size_px < 1:
        raise ValueError("The logo size must be at least one pixel.")
    scale = _UNITS / size_px
    out = bytearray()
    n = samples * samples
    for y in range(size_px):
        for x in range(size_px):
            tile = ink = 0
            for sy in range(samples):
                for sx in range(samples):
                    px = (x + (sx + 0.5) / samples) * scale
                    py = (y + (sy + 0.5) / samples) * scale
                    if _inside_tile(px, py):
                        tile += 1
                        if _on_ink(px, py):
                            ink += 1
            if tile == 0:
                out += b"\0\0\0\0"
                continue
            mix = ink / tile
            rgb = (round(TILE_RGB[i] * (1 - mix) + INK_RGB[i] * mix) for i in range(3))
            out += bytes(rgb) + bytes([round(255 * tile / n)])
    return bytes(out)


def encode_png(width_px: int, height_px: int, rgba: bytes) -> bytes:
    """Encode straight-alpha RGBA pixels (``width*height*4`` bytes) as a PNG file.

    Raises ``ValueError`` when the buffer length does not match the size.
    """
    if len(rgba) != width_px * height_px * 4:
        raise ValueError("The pixel buffer does not match the image size.")

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    stride = width_px * 4
    raw = b"".join(b"\0" + rgba[row * stride : (row + 1) * stride] for row in range(height_px))
    header = struct.pack(">IIBBBBB", width_px, height_px, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def render_svg() -> str:
    """The logo as an SVG document (same geometry as the PNGs, 64-unit view box)."""
    tile = "#{:02x}{:02x}{:02x}".format(*TILE_RGB)
    ink = "#{:02x}{:02x}{:02x}".format(*INK_RGB)
    (a, b), (_, c), (d, e) = _SEGMENTS
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">\n'
        f'  <rect width="64" height="64" rx="{_TILE_RADIUS:g}" fill="{tile}"/>\n'
        f'  <g fill="none" stroke="{ink}" stroke-width="{_STROKE:g}" stroke-linecap="round" '
        'stroke-linejoin="round">\n'
        f'    <polyline points="{a[0]:g},{a[1]:g} {b[0]:g},{b[1]:g} {c[0]:g},{c[1]:g}"/>\n'
        f'    <line x1="{d[0]:g}" y1="{d[1]:g}" x2="{e[0]:g}" y2="{e[1]:g}"/>\n'
        "  </g>\n"
        "</svg>\n"
    )


def write_logos(folder: Path) -> list[Path]:
    """Write ``logo-32x32.png``, ``logo-64x64.png`` and ``logo-svg.svg`` into ``folder``.

    Returns the written paths. Raises ``OSError`` when the folder is not writable.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for size in (32, 64):
        path = folder / f"logo-{size}x{size}.png"
        path.write_bytes(encode_png(size, size, render_rgba(size)))
        written.append(path)
    svg = folder / "logo-svg.svg"
    svg.write_text(render_svg(), encoding="utf-8")
    written.append(svg)
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    write_logos(Path(__file__).resolve().parent / "resources")
