"""The README is a promise: its commands and example outputs must hold.

Every command of the README (and of the docs) is also run through ``python -m dealsearch`` by
``tests/docs/test_commands.py``; this file keeps the README's own promises.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dealsearch.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_exactly_the_readme_test_command():
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```\w*\n(.+?)\n```", quick_start)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert len(commands) == 2
    assert commands[1] == ci


def examples() -> list[tuple[str, str]]:
    """(command, expected output) of every `$ dealsearch verify` example with output."""
    found = []
    for block in re.findall(r"```console\n(\$ .+?)```", README, re.S):
        for command, output in re.findall(r"\$ (dealsearch verify [^\n#]+)\n((?:[^$][^\n]*\n)+)",
                                          block):
            found.append((command.strip(), output))
    return found


@pytest.mark.parametrize(("command", "expected"), examples())
def test_readme_verify_examples_print_what_the_readme_shows(capsys, command, expected):
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == expected


def test_readme_is_a_front_page():
    assert len(README.splitlines()) <= 250


def test_readme_links_point_at_files():
    links = re.findall(r"\]\(([^)#]+?\.md)(?:#[^)]*)?\)", README)
    assert links
    assert [link for link in links if not (ROOT / link).is_file()] == []
