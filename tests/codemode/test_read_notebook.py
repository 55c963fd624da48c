"""``codemode.notebook.read_notebook``: a notebook is checked against its nbformat schema before
nbformat converts it, so a malformed one gets its reason rather than nbformat's ``TypeError``."""

from __future__ import annotations

import pytest

from codemode.notebook import NotebookError, read_notebook

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"cells": 3}', "is not a notebook: it has no nbformat version."),
        (
            '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}',
            "is not a valid notebook (nbformat 4): data.cells must be array.",
        ),
        ("[]", "is not a notebook: it has no nbformat version."),
        ("nope", "is not a notebook: it is not JSON (Expecting value: line 1 column 1 (char 0))."),
        ('{"nbformat": 99, "nbformat_minor": 0}', "is not a notebook nbformat can read: nbformat 99 is unknown."),
    ],
    ids=["no-version", "cells-not-a-list", "a-list", "not-json", "unknown-version"],
)
def test_a_malformed_notebook_is_refused_with_its_reason(tmp_path, text, reason):
    path = tmp_path / "bad.ipynb"
    path.write_text(text)
    with pytest.raises(NotebookError) as raised:
        read_notebook(path)
    assert str(raised.value) == f"{path} {reason}"


def test_a_valid_notebook_is_read_as_version_4(tmp_path):
    path = tmp_path / "ok.ipynb"
    path.write_text(
        '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "id": "a", '
        '"source": "text(1)", "metadata": {}, "outputs": [], "execution_count": null}]}'
    )
    nb = read_notebook(path)
    assert [(c.cell_type, c.source) for c in nb.cells] == [("code", "text(1)")]
