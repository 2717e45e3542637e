"""The screen and the log agree: every new best the log holds is printed as it is found, the
last one included; a deal that only ties the best is not printed as one; a resumed run's
summary tells the run's counts from this session's."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from dealsearch.cli import main
from dealsearch.cli.screen import SearchScreen
from dealsearch.game import get_game
from dealsearch.log import Find


def best(cards: int, deal: str = "A-/--") -> Find:
    return Find(deal, "win", {"cards": cards, "tricks": 1}, "random", 1, game="beggar")


def test_every_new_best_is_printed_however_many_and_however_late() -> None:
    lines: list[str] = []
    now = [0.0]
    screen = SearchScreen(get_game("beggar"), lines.append, clock=lambda: now[0])
    for cards in range(100, 4000, 100):   # 39 new bests over two minutes
        now[0] += 3.0
        screen.find(best(cards))
    printed = [line for line in lines if line.startswith("best ")]
    assert len(printed) == 39 and printed[-1].startswith("best 3,900 cards, 1 trick:")


def test_a_tie_is_no_new_best_and_a_resumed_run_prints_only_what_beats_its_best() -> None:
    lines: list[str] = []
    screen = SearchScreen(get_game("beggar"), lines.append)
    screen.resume_from({"deal": "x", "cards": 500, "tricks": 70})
    for cards, deal in ((500, "-A/--"), (400, "A-/--"), (600, "--/A-"), (600, "-/A--")):
        screen.find(best(cards, deal))
    assert lines == ["best 600 cards, 1 trick: --/A-"]


def new_bests(db: Path, measure: str) -> list[int]:
    """The log's new bests: its finished finds whose measure beat every earlier one."""
    rows = sqlite3.connect(db).execute(
        "SELECT measures FROM finds WHERE outcome != 'cycle' ORDER BY id").fetchall()
    found, top = [], None
    for (text,) in rows:
        value = json.loads(text)[measure]
        if top is None or value > top:
            found.append(value)
            top = value
    return found


@pytest.mark.parametrize(("argv", "measure"), [
    (["--deals", "3000000"], "cards"),
    (["--game", "durak", "--deals", "300000"], "bouts"),
])
def test_the_bests_printed_are_the_new_bests_the_log_holds(capsys, tmp_path, argv, measure):
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", *argv, "--seed", "2", "--workers", "1", "--quiet",
                 "--db", str(db)]) == 0
    out = capsys.readouterr().out
    printed = [int(line.split()[1].replace(",", "")) for line in out.splitlines()
               if line.startswith("best ")]
    assert len(printed) >= 10
    assert printed == new_bests(db, measure)
    assert printed == sorted(set(printed)), "a tie or a shorter game was printed as a best"
    last = next(line for line in out.splitlines() if line.startswith("  best: "))
    assert last.startswith(f"  best: {printed[-1]:,} {measure}")


def test_a_resumed_summary_labels_this_sessions_cycles_apart_from_the_runs() -> None:
    screen = SearchScreen(get_game("beggar"), lambda line: None)
    screen.find(Find("J-/-Q", "cycle", {"cards": 10, "tricks": 2}, "random", 1,
                     entry={"cards": 0, "tricks": 0}, period={"cards": 6, "tricks": 2},
                     cycle_id="c1", game="beggar"))
    summary = SimpleNamespace(run_id=1, status="done", deals=900, seconds=2.0, wall=None,
                              outcomes={"win": 774, "cycle": 126, "limit": 0}, best=None)
    table = screen.end(summary, resumed=True)
    row = next(line for line in table.splitlines() if line.strip().startswith("cycle"))
    assert row.split()[:2] == ["cycle", "126"]
    assert "this session: 1 distinct, longest period 6 cards" in row
