"""What a newcomer reads before running anything holds: each command's page lists every option
its ``--help`` lists (an option only another game brings, ``search --game durak --policy``, is
listed on that game's page, or on the command's); the install says what a first build costs
and which extra each later example needs; the plug-in contract snippet registers its game."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from dealsearch.cli.main import _subparser, all_commands, build_parser
from dealsearch.commandline.options import DEFAULT_GAME
from dealsearch.game import iter_games

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# the games the package ships, each with its page (not the games other tests register)
SHIPPED = [game.name for game in iter_games() if type(game).__module__.startswith(
    "dealsearch.games.")]


def options(command: str, game: str) -> set[str]:
    """The long options of ``command`` as parsed for ``game`` (of each subcommand too)."""
    parser = _subparser(build_parser(game, command), command)   # built: its options added
    assert parser is not None and parser._actions[1:], f"{command}'s parser was not built"
    found: set[str] = set()
    stack = [parser]
    while stack:
        current = stack.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            found.update(o for o in action.option_strings
                         if o.startswith("--") and o != "--help")
    return found


@pytest.mark.parametrize("command", [c.name for c in all_commands()])
def test_the_command_page_lists_every_option(command: str) -> None:
    page = (DOCS / "commands" / f"{command}.md").read_text(encoding="utf-8")
    default = DEFAULT_GAME
    others = [game for game in SHIPPED if game != default]
    missing = sorted(o for o in options(command, default) if f"`{o}" not in page)
    if "--game" in options(command, default):
        for game in others:
            game_page = (DOCS / "games" / f"{game}.md").read_text(encoding="utf-8")
            missing += sorted(f"{o} (--game {game})" for o in
                              options(command, game) - options(command, default)
                              if f"`{o}" not in page and f"`{o}" not in game_page)
    assert not missing, f"docs/commands/{command}.md does not list {', '.join(missing)}"


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_install_says_what_a_first_build_costs_and_which_extras_come_later(page: str):
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    assert re.search(r"first (build|install)[^.]*\d+ minutes", text), "the build's cost"
    assert "about a minute" not in text
    assert ("'.[report]'" in text and "'.[test]'" in text) or "[test]" in text
    assert re.search(r"`report`[^.]*extra|extra[^.]*`report`", text)
    assert re.search(r"MkDocs[^.]*`test` extra|`test` extra[^.]*MkDocs|MkDocs Material, which "
                     r"builds this site", text)


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_each_mkdocs_command_shown_names_the_extra_that_installs_it(page: str):
    """Where a page first shows ``mkdocs``, its sentence says MkDocs comes with the ``test``
    extra: the Quick start's plain install has no MkDocs."""
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    first = text.index("`mkdocs")
    sentence = text[text.rfind(". ", 0, first) + 2: text.find(". ", first)]
    assert "`test`" in sentence and "extra" in sentence, sentence


def test_the_built_site_is_ignored():
    assert "site/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_the_contract_snippet_registers_its_game():
    page = (DOCS / "plugins.md").read_text(encoding="utf-8")
    snippet = page[page.rindex("```python", 0, page.index("from dealsearch.testing import")):]
    snippet = snippet[:snippet.index("```", 10)]
    assert "register(MyGame())" in snippet and "Subject(GAME" in snippet
