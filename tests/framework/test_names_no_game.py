"""The framework names no game's option or measure: it asks the game. The log stores measures
by name (schema v3), so not even its columns name one."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import dealsearch

PACKAGE = Path(dealsearch.__file__).parent
# Option and measure names of the default game.
NAMES = {"rules", "players", "deck", "hand_sizes", "max_cards", "max_tricks", "cards",
         "tricks", "cards/s"}


def framework_modules() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if path.relative_to(PACKAGE).parts[0] not in ("games", "examples")]


def string_literals(path: Path) -> set[str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    found = set()
    for token in tokens:
        if token.type == tokenize.STRING and not token.string.startswith(('"""', "'''")):
            text = token.string.lstrip("rbuf").strip("\"'")
            found.add(text)
    return found


def test_framework_modules_name_no_option_or_measure_of_a_game():
    named = {}
    for path in framework_modules():
        where = path.relative_to(PACKAGE).as_posix()
        found = string_literals(path) & NAMES
        if found:
            named[where] = sorted(found)
    assert named == {}


def code_lines(text: str) -> str:
    """The module's text but its examples (``>>>`` and ``...`` lines): an example may play a
    game that ships, as a user would."""
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith((">>>", "...")))


def test_the_framework_names_no_game_but_the_command_lines_default():
    for path in framework_modules():
        text = code_lines(path.read_text(encoding="utf-8"))
        if path.relative_to(PACKAGE).as_posix() == "commandline/options.py":
            text = text.replace('DEFAULT_GAME = "beggar"', "", 1)   # --game's default
        assert "beggar" not in text or path.name == "__init__.py", path
