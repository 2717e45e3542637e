"""The worked examples of the games' pages (deal -> result) are what the engine plays.

Each ``$ dealsearch verify`` example with output on ``docs/games/*.md`` runs through the real
command line and must print exactly what the page shows; each page must hold the worked
examples of its game's rules (the published facts, the contracts' examples).
"""

from __future__ import annotations

import pytest
from docblocks import DOCS, Command, all_commands, blocks, matches, run

GAMES = {"beggar": DOCS / "games" / "beggar.md", "durak": DOCS / "games" / "durak.md",
         "spite": DOCS / "games" / "spite.md"}

# Deals and positions each page must show with their result (from the rules it documents).
REQUIRED = {
    "beggar": ["---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---",
               "-J------Q------AAA-----QQ-/K----JA-----------KQ-K-JJK",
               "--KQ--JQQ-K-----AKJJ--A---/----------K-------A---AQ-J",
               "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA",
               "00302020303100000310/00100200002000000010"],
    "durak": ["hands=9C KH AS JD/8C AD 6S TC/6D TD 7S 9S; trump=H; talon=QS 8H; attacker=1",
              "hands=8D QC KS/8C 8S TS KD; trump=H; attacker=1",
              "hands=9C AS/KS/JD QS; trump=H; attacker=1"],
    "spite": ['"stock": "7KJ2Q", "turn": 2}', '"stock": "QK5TJ689", "turn": 1}',
              '"centre": ["A2","","",""], "stock": "", "turn": 1}',
              "Q6TK52JJQKTK27365928753AK969A7QAT7Q45J8J48342836T94A/"],
}


def is_rules_example(command: Command) -> bool:
    """A verify example with output on a game's page (run here, not in test_commands)."""
    return (command.page.startswith("docs/games/") and command.args[:1] == ("verify",)
            and command.expected is not None)


def examples(game: str) -> list[Command]:
    return [command for command in all_commands(blocks(GAMES[game]))
            if is_rules_example(command)]


ALL = [command for game in GAMES for command in examples(game)]


@pytest.mark.parametrize("command", ALL, ids=[c.id for c in ALL])
def test_rules_example_prints_what_the_page_shows(command, tmp_path):
    result = run(command.args, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == command.status, output
    assert matches(command.expected, output), \
        f"{command.text}\n--- the page shows:\n{command.expected}--- it prints:\n{output}"


@pytest.mark.parametrize("game", GAMES)
def test_every_worked_example_of_the_rules_is_checked(game):
    checked = [command.text for command in examples(game)]
    missing = [deal for deal in REQUIRED[game] if not any(deal in text for text in checked)]
    assert not missing, f"docs/games/{game}.md shows no checked example of {missing}"
