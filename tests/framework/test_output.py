"""What a person reads (issue #19): a screenful per search and per `records`, plain text
everywhere (no Python repr), help with examples and defaults, and `status` watching a search
from another terminal."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealsearch.cli.main import all_commands, build_parser, main
from dealsearch.cli.screen import SearchScreen
from dealsearch.game import get_game
from dealsearch.log import Find

from conftest import run_cli, start_cli
from deals import CASELLA, RECORD

SCREENFUL = 60
DURAK = "hands=9C KH AS JD/8C AD 6S TC/6D TD 7S 9S; trump=H; talon=QS 8H; attacker=1"
DURAK_CYCLE = "hands=8D QC KS/8C 8S TS KD; trump=H; attacker=1"
SPITE = ("Q6TK52JJQKTK27365928753AK969A7QAT7Q45J8J48342836T94A/62Q279A48T34J3J326K*A5KK8*49*"
         "657TQ853T7986AQK*954TJAJ27Q")
# What a Python repr looks like in text: a dict or list of it, None/True/False.
REPR = re.compile(r"\{'|\['|\[\]|\[\d|\bNone\b|\bTrue\b|\bFalse\b|\w\(\w+=")


dealsearch = run_cli  # the real command line of the installed package


def lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return done.stdout.splitlines() + done.stderr.splitlines()


# ------------------------------------------------------------------ a screenful per search

@pytest.fixture(scope="module")
def spite_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A Spite search rich in cycles, through the real CLI: (log, what it printed)."""
    db = tmp_path_factory.mktemp("spite") / "log.sqlite"
    done = dealsearch("search", "random", "--game", "spite", "--deals", "200000", "--seed", "1",
                      "--workers", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return db, lines(done)


@pytest.mark.slow
def test_a_search_rich_in_cycles_prints_a_screenful(spite_log):
    db, printed = spite_log
    import sqlite3

    cycles = sqlite3.connect(db).execute(
        "SELECT count(*) FROM finds WHERE outcome = 'cycle'").fetchone()[0]
    assert cycles > 2 * SCREENFUL  # else the test proves nothing
    assert len(printed) <= SCREENFUL, "\n".join(printed)
    assert printed[0].startswith("starting run 1: random search, Spite and Malice")
    assert any(line.startswith("cycle ") for line in printed)
    assert any(line.startswith("run 1 done: 200,000 deals in ") for line in printed)
    table = printed[printed.index(next(x for x in printed if x.startswith("run 1 done"))) + 1:]
    assert table[0].split() == ["outcome", "deals"]
    assert any(re.match(r"\s+cycle\s+[\d,]+\s+[\d,]+ distinct, longest period \d+ turns", x)
               for x in table)
    assert not any(REPR.search(line) for line in printed)


def test_json_still_streams_every_find(tmp_path):
    db = tmp_path / "log.sqlite"
    done = dealsearch("search", "random", "--game", "spite", "--deals", "50000", "--seed", "1",
                      "--workers", "1", "--db", str(db), "--json")
    import sqlite3

    finds = sqlite3.connect(db).execute("SELECT count(*) FROM finds").fetchone()[0]
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(printed) == finds + 1 and "outcomes" in printed[-1]


def _cycle(n: int, cycle_id: str, period: int = 4) -> Find:
    return Find(f"deal{n}", "cycle", {"turns": 40, "cards": 90}, "random", 1,
                {"turns": 30, "cards": 60}, {"turns": period, "cards": 17}, {}, "key",
                cycle_id, game="spite")


def test_past_its_youth_a_search_folds_cycles_into_summary_lines():
    """5,000 cycles a second for 20 seconds (a fake clock): a screenful, with summaries."""
    now = [0.0]
    printed: list[str] = []
    screen = SearchScreen(get_game("spite"), printed.append, clock=lambda: now[0])
    for i in range(100_000):
        now[0] = i / 5000
        screen.find(_cycle(i, f"c{i % 4950}", period=2 + i % 5))
    assert 3 <= len(printed) <= 40, printed
    summaries = [line for line in printed if line.startswith("after ")]
    assert summaries and re.fullmatch(
        r"after [\d.]+ s: [\d,]+ cycles, 4,950 distinct, longest period 6 turns", summaries[-1])


# ------------------------------------------------------------------ records: a screenful

def test_records_shows_a_screenful_by_default_and_more_when_asked(spite_log):
    db, _ = spite_log
    default = dealsearch("records", "--game", "spite", "--db", str(db))
    assert default.returncode == 0
    shown = default.stdout.splitlines()
    assert len(shown) <= SCREENFUL
    assert any("distinct cycles; the most reached" in line for line in shown)
    assert any(line.startswith("... and ") and "more cycles" in line for line in shown)
    everything = dealsearch("records", "--game", "spite", "--all", "--db", str(db))
    assert len(everything.stdout.splitlines()) > 3 * SCREENFUL
    three = dealsearch("records", "--game", "spite", "--limit", "3", "--db", str(db))
    assert len(three.stdout.splitlines()) < len(shown)
    cycles = dealsearch("records", "--game", "spite", "--cycles", "--db", str(db))
    assert len(cycles.stdout.splitlines()) <= SCREENFUL
    assert cycles.stdout.splitlines()[-1].endswith(f"distinct cycles in {db}")


# ------------------------------------------------------------------ plain text everywhere

@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One log with a small search of each game."""
    db = tmp_path_factory.mktemp("logs") / "log.sqlite"
    for game, extra in (("beggar", ["--deck", "------JJQQK"]), ("durak", ["--players", "3"]),
                        ("spite", [])):
        strategy = "exhaustive" if game == "beggar" else "random"
        assert main(["search", strategy, "--game", game, *extra, "--deals", "3000", "--seed",
                     "2", "--workers", "1", "--quiet", "--db", str(db)]) == 0
    return db


def human_outputs(db: Path) -> list[list[str]]:
    """Every command's human output, for every game (argv without the program)."""
    commands: list[list[str]] = [
        ["verify", RECORD, CASELLA], ["verify", "--trace", CASELLA], ["verify", "--known"],
        ["verify", "--game", "durak", "--players", "3", DURAK],
        ["verify", "--game", "durak", "--trace", "--variant", "perevodnoy", DURAK_CYCLE],
        ["verify", "--game", "durak", "--variant", "perevodnoy", DURAK_CYCLE],
        ["verify", "--game", "spite", SPITE], ["verify", "--game", "spite", "--trace", SPITE],
        ["bench", "--deals", "2000"], ["bench", "--game", "durak", "--deals", "200"],
        ["bench", "--game", "spite", "--deals", "200"],
        ["reverse", "--max-states", "2000", CASELLA],
        ["factory", "--nodes", "3", "--quiet", "--db", str(db)],
    ]
    for game in ("beggar", "durak", "spite"):
        commands += [["search", "random", "--game", game, "--deals", "2000", "--seed", "3",
                      "--workers", "1", "--db", str(db)],
                     ["records", "--game", game, "--db", str(db)],
                     ["records", "--game", game, "--all", "--db", str(db)],
                     ["records", "--game", game, "--cycles", "--db", str(db)],
                     ["records", "--game", game, "--verify", "--db", str(db)]]
    commands += [["status", "--all", "--db", str(db)], ["status", "--db", str(db)]]
    return commands


@pytest.mark.slow
def test_no_human_output_holds_a_python_repr(logs, capsys):
    for argv in human_outputs(logs):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, (argv, captured.err)
        text = captured.out + captured.err
        assert text.strip(), argv
        found = [line for line in text.splitlines() if REPR.search(line)]
        assert not found, (argv, found[:3])


def test_outcomes_and_counts_read_as_words(logs, capsys):
    assert main(["status", "--all", "--db", str(logs)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"outcomes: win [\d,]+( · \w+ [\d,]+)*$", out, re.M), out
    assert re.search(r"[\d,]+ deals in [\d.]+ m?s \([\d,]+ deals/s\)", out), out


# ------------------------------------------------------------------ help that teaches

def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--help"])
    assert stopped.value.code == 0
    return capsys.readouterr().out


def test_the_top_help_describes_and_shows_examples(capsys):
    text = help_text(capsys)
    assert "thin layer" not in text
    assert text.split("\n\n")[1].startswith("Find record-long and never-ending deals")
    assert "examples:\n  dealsearch " in text


@pytest.mark.parametrize("game", ["beggar", "durak", "spite"])
def test_every_command_ends_with_examples_and_shows_its_defaults(capsys, game):
    for command in all_commands():
        text = help_text(capsys, command.name, "--game", game)
        examples = text.rsplit("examples:\n", 1)
        assert len(examples) == 2, command.name
        assert 2 <= len(examples[1].strip().splitlines()) <= 4, command.name
        assert "(default) (" not in text
    search = " ".join(help_text(capsys, "search", "--game", game).split())
    assert "--game NAME --help" in search
    for spec in get_game(game).option_specs:
        flag = f"--{spec.name.replace('_', '-')}"
        after = search.split(f" {flag} ", 1)[1].split(" --", 1)[0]
        assert "default" in after, (flag, after)


def test_restart_and_bench_help_say_what_they_mean(capsys):
    search = " ".join(help_text(capsys, "search").split())
    assert "(crossover) (default: random)" in search and "(default) (random)" not in search
    assert "(default: 5000)" in search and "(default: every core)" in search
    bench = help_text(capsys, "bench", "--game", "spite")
    assert "2-player" not in bench and "yardstick" not in bench
    assert "Spite and Malice" in bench
    default = " ".join(help_text(capsys, "bench").split())   # the game's yardstick, generic
    assert "Beggar-My-Neighbour" in default and "yardstick" in default and "cards/s" in default


def test_python_dash_m_dealsearch_help_works():
    done = dealsearch("--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: dealsearch")


HELP_IMPORTS = """
import sys
from dealsearch.game import iter_games
titles = [game.title for game in iter_games()]   # the registry: the games help names
before = set(sys.modules)
from dealsearch.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted(name for name in set(sys.modules) - before if "dealsearch" in name)))
"""


@pytest.mark.parametrize(("argv", "invoked"), [
    (["--help"], None), (["--help", "search"], None),
    (["records", "--help"], "dealsearch.cli.records"),
    (["factory", "--help"], "dealsearch.games.beggar.factory_command")])
def test_help_imports_only_the_command_it_shows(argv, invoked):
    # --help once imported every command, the search and every game's commands (1.1 s): a
    # command's module is imported when it is invoked, and help loads no game module
    # beyond the registry's (the games it names).
    done = subprocess.run([sys.executable, "-c", HELP_IMPORTS, *argv], capture_output=True,
                          text=True, check=True)
    loaded = set(done.stdout.splitlines()[-1].split())
    commands = loaded & {command.module for command in all_commands()}
    assert "dealsearch.cli.main" in loaded and commands == ({invoked} if invoked else set())
    if invoked is None:
        assert not any(name.startswith(("dealsearch.games.", "dealsearch.search"))
                       for name in loaded), loaded


COMMAND_HELP_IMPORTS = """
import sys
from dealsearch.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted(name for name in sys.modules if "dealsearch" in name or name == "tqdm")))
"""

# What only a run needs: a search's help reads the options and loads none of it.
RUN_ONLY = ("tqdm", "dealsearch.log", "dealsearch.search.runner", "dealsearch.projection",
            "dealsearch.commandline.service", "dealsearch.plugin.commands")


@pytest.mark.parametrize(("argv", "game"), [
    (["search", "--help"], "beggar"), (["verify", "--help"], "beggar"),
    (["verify", "--game", "durak", "--help"], "durak"),
    (["search", "--game", "spite", "--help"], "spite")])
def test_a_commands_help_imports_only_the_game_it_shows(argv, game):
    # A command's help once imported every game (for the program's description and the
    # games' commands); it shows the options of one game, and imports that game only.
    done = subprocess.run([sys.executable, "-c", COMMAND_HELP_IMPORTS, *argv],
                          capture_output=True, text=True, check=True)
    loaded = done.stdout.splitlines()[-1].split()
    games = {name.split(".")[2] for name in loaded if name.startswith("dealsearch.games.")}
    assert games == {game}, games
    if argv[0] == "verify":   # nor the search, which a deal's verify does not need
        assert not any(name.startswith("dealsearch.search") for name in loaded), loaded
    else:   # nor what only a run needs (the runner, the log, the progress bar)
        assert not [name for name in loaded if name.startswith(RUN_ONLY)], loaded


@pytest.mark.parametrize(("argv", "line"), [
    (["search", "random", "--workers", "abc"], "argument --workers: 'abc' is not a whole number"),
    (["verify", "--game", "durak", "hands=9C ZZ/8C AD; trump=H"], "hand 1: bad rank 'Z'"),
    (["verify", "--game", "durak", "hands=9C KH/8C AD; trump=H; talon=QX"], "talon: bad suit"),
])
def test_argument_errors_say_what_was_wrong(capsys, argv, line):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and line in err, err


# ------------------------------------------------------------------ game commands

def test_a_games_own_commands_come_from_the_game():
    beggar, durak = get_game("beggar"), get_game("durak")
    assert durak.commands() == ()
    assert [c.name for c in beggar.commands()] == ["factory", "reverse"]
    names = list(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert names[-2:] == ["factory", "reverse"]


# ------------------------------------------------------------------ status, live

def test_status_shows_a_running_search_from_another_process(tmp_path):
    db = tmp_path / "live.sqlite"
    search = start_cli("search", "random", "--time", "5m", "--seed", "4", "--workers", "1",
                       "--quiet", "--json", "--db", str(db), stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        figures = None
        while time.monotonic() < deadline and search.poll() is None:
            if db.exists():  # poll until the run has played and committed some deals
                done = dealsearch("status", "--json", "--db", str(db))
                runs = [json.loads(line) for line in done.stdout.splitlines()]
                if runs and runs[0]["deals"] > 0 and runs[0]["best"]:
                    figures = runs[0]
                    break
            time.sleep(0.2)
        assert figures is not None, search.stderr.read() if search.poll() is not None else ""
        assert figures["status"] == "running" and figures["deals_per_s"] > 0
        assert 0 < figures["remaining_seconds"] <= 300
        text = dealsearch("status", "--db", str(db)).stdout
        assert re.search(r"^run 1 running: random search of beggar", text, re.M), text
        assert re.search(r"[\d,]+ deals in [\d.]+ m?s \([\d,]+ deals/s\); [\d ]+min( [\d]+ s)? "
                         r"left of 5 min$", text, re.M), text
        assert "best so far: " in text and "outcomes: win" in text
        assert not REPR.search(text)
    finally:
        os.killpg(search.pid, signal.SIGINT)
        search.wait(timeout=60)
    assert "no search is running" in dealsearch("status", "--db", str(db)).stdout
