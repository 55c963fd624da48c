"""What a cell may show in a front end (``kernel/sanitize.py``): hostile HTML and Markdown made
inert and what a notebook needs kept (the publisher sending every bundle through it:
``test_notebook_output_units.py``)."""

from __future__ import annotations

import pytest

from codemode.kernel.sanitize import clean_html, markdown_html, safe_bundle

pytestmark = pytest.mark.unit

PNG = "data:image/png;base64,iVBORw0KGgo="


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("<b>x</b><script>alert(1)</script>", "<b>x</b>"),
        ('<img src="x" onerror="alert(1)">', "<img>"),
        (f'<img src="{PNG}" onerror="alert(1)">', f'<img src="{PNG}">'),
        ('<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<a href="&#106;avascript:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<a href="java&#9;script:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<a href=" JAVASCRIPT:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<a href="data:text/html,<script>alert(1)</script>">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<a href="api/terminals">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ("<svg><script>alert(1)</script><circle r='1'/></svg>", ""),
        ('<svg onload="alert(1)"></svg>', ""),
        ('<iframe src="https://example.com"></iframe>', ""),
        ('<object data="x.swf"></object><embed src="x.swf">', ""),
        ('<form action="https://evil.example"><input name="q"></form>', ""),
        ("<style>body{background:url(https://evil.example/?k)}</style><p>t</p>", "<p>t</p>"),
        ('<p style="background:url(https://evil.example/)" class="jp-Dialog" id="x">t</p>', "<p>t</p>"),
        ('<img src="https://evil.example/?secret=1">', "<img>"),
        ('<div onclick="alert(1)" onmouseover="alert(2)">t</div>', "<div>t</div>"),
        ('<div class="jp-Dialog">t</div>', "<div>t</div>"),
        ('<math><a href="javascript:alert(1)">x</a></math>', ""),
    ],
)
def test_hostile_html_is_made_inert(hostile: str, shown: str):
    assert clean_html(hostile) == shown


def test_what_a_notebook_needs_is_kept():
    table = '<table><thead><tr><th align="left">a</th></tr></thead><tbody><tr><td>1 &lt; 2</td></tr></tbody></table>'
    assert clean_html(table) == table
    assert clean_html("<h2>Results</h2><ul><li><em>one</em></li><li><code>x</code></li></ul>") == (
        "<h2>Results</h2><ul><li><em>one</em></li><li><code>x</code></li></ul>"
    )
    assert clean_html('<a href="https://example.com/a?b=1#c">doc</a> <a href="#top">top</a>') == (
        '<a href="https://example.com/a?b=1#c" rel="noopener noreferrer">doc</a> '
        '<a href="#top" rel="noopener noreferrer">top</a>'
    )
    assert clean_html(f'<img src="{PNG}" alt="chart" width="10">') == f'<img src="{PNG}" alt="chart" width="10">'
    status = (
        '<div class="codemode-status"><b>Cell 3</b><ul><li>t <progress value="1" max="4"></progress></li></ul></div>'
    )
    assert clean_html(status) == status
    assert clean_html('<audio controls src="data:audio/wav;base64,UklGRg=="></audio>') == (
        '<audio controls="" src="data:audio/wav;base64,UklGRg=="></audio>'
    )


def test_markdown_is_rendered_and_cleaned():
    assert markdown_html("# Title\n\n> quoted\n\n`a < b` and **bold**\n") == (
        "<h1>Title</h1>\n<blockquote>\n<p>quoted</p>\n</blockquote>\n"
        "<p><code>a &lt; b</code> and <strong>bold</strong></p>\n"
    )
    assert markdown_html("|a|b|\n|-|-|\n|1|2|\n") == (
        "<table>\n<thead>\n<tr>\n  <th>a</th>\n  <th>b</th>\n</tr>\n</thead>\n"
        "<tbody>\n<tr>\n  <td>1</td>\n  <td>2</td>\n</tr>\n</tbody>\n</table>\n"
    )
    assert markdown_html("hi\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> there") == (
        "<p>hi</p>\n\n\n<p><img> there</p>\n"
    )
    assert markdown_html("[x](javascript:alert(1)) <javascript:alert(2)> [y](https://example.com)") == (
        # mistune already points dangerous links at "#harmful-link"; the cleaner would drop them.
        '<p><a href="#harmful-link" rel="noopener noreferrer">x</a> '
        '<a href="#harmful-link" rel="noopener noreferrer">javascript:alert(2)</a> '
        '<a href="https://example.com" rel="noopener noreferrer">y</a></p>\n'
    )
    assert markdown_html("[x](&#106;avascript:alert(1)) ![p](https://evil.example/?s)") == (
        '<p><a href="#harmful-link" rel="noopener noreferrer">x</a> <img alt="p"></p>\n'
    )


def test_bundles_keep_safe_types_and_drop_the_others():
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>'
    assert safe_bundle(
        {
            "text/plain": "<b>x</b><script>",
            "text/html": "<b>x</b><script>alert(1)</script>",
            "application/json": {"a": [1]},
            "image/svg+xml": svg,
            "image/png": "iVBORw0KGgo=",
            "application/javascript": "alert(1)",
            "text/javascript": "alert(1)",
            "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
        }
    ) == {
        "text/plain": "<b>x</b><script>",
        "text/html": "<b>x</b>",
        "application/json": {"a": [1]},
        "image/svg+xml": svg,
        "image/png": "iVBORw0KGgo=",
    }
    assert safe_bundle({"text/markdown": "*a*<script>alert(1)</script>", "text/plain": "m"}) == {
        "text/plain": "m",
        "text/html": "<p><em>a</em></p>\n",
    }
    assert safe_bundle({"text/html": ["<script>"], "text/plain": "x"}) == {"text/plain": "x"}
