"""``python -m codemode --help`` lists every command with every option it takes (the install,
run and replay lines come from their own parsers, so an option added there shows here)."""

from __future__ import annotations

import pytest

from codemode.__main__ import main

pytestmark = pytest.mark.unit

USAGE = """\
usage: python -m codemode install [-h] [--user | --sys-prefix | --prefix P] [--name NAME]
                                  [--display-name DISPLAY_NAME] [--engine {quickjs,v8}]
                                  [--profile {strict,notebook}]
       python -m codemode run [-h] [--save-to PATH] [--timeout SECONDS] [--junit PATH]
                              [--jobs N | --dask ADDRESS] [--gateway-url URL]
                              [--gateway-token TOKEN]
                              NOTEBOOK [NOTEBOOK ...]
       python -m codemode replay [-h] [-o OUT] [--codex-config PATH] [--run] [--report PATH]
                                 [--junit PATH] [--timeout SECONDS] [--workdir DIR]
                                 [--record-from-session PATH] [--jobs N | --dask ADDRESS]
                                 SESSION [SESSION ...]
       python -m codemode kernel -f CONNECTION_FILE
"""


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_command_and_option_whatever_the_terminal_width(flag, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert main([flag]) == 0
    assert capsys.readouterr() == (USAGE, "")


def test_no_command_or_an_unknown_one_prints_the_usage_and_fails(capsys):
    assert main([]) == 2
    assert capsys.readouterr() == (USAGE, "")
    assert main(["instal"]) == 2
    assert capsys.readouterr() == ("", f"Unknown command 'instal'.\n{USAGE}")
