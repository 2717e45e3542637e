"""A log and an argument are texts from strangers: what they hold reaches a terminal only as
visible escapes (:func:`dealsearch.text.shown`), and the report's page only escaped.

The crafted log is a real one (a real search wrote it) with rows planted by ``sqlite3``
directly, as anyone who sends a log can: escape sequences in every text field a command
prints, and HTML in every text the report shows.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
from pathlib import Path

import pytest
from tqdm import tqdm

from dealsearch.cli import main
from dealsearch.commandline.terminal import escaped, screen_optional
from dealsearch.text import progress_stream

# A window title, a bell, a screen clear, a carriage return with an erase-line (a line that
# overwrites the deal printed before it), a C1 control sequence introducer, a bidi override.
EVIL = "\x1b]0;owned\x07\x1b[2J\r\x1b[2K\x9b31m\u202e"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
XSS = "<script>alert(1)</script>"
MATH = "$\\frac{$"   # mathtext that matplotlib could not draw, in a figure's label


def evil(field: str) -> str:
    """A text planted in ``field``: its name (to say which was shown) and the escapes."""
    return f"{field}{EVIL}"


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Spite log (run 1), with run 2 (a planted interrupted run of the same game, its
    find and cycle) and run 3 (of a game named by the stranger) holding escapes everywhere."""
    db = tmp_path_factory.mktemp("crafted") / "log.sqlite"
    assert main(["search", "random", "--game", "spite", "--deals", "3000", "--seed", "1",
                 "--workers", "1", "--db", str(db), "--json", "--quiet"]) == 0
    with sqlite3.connect(db) as con:
        columns = [row[1] for row in con.execute("PRAGMA table_info(runs)")]
        copied = ", ".join(columns[1:])
        for run_id, game in ((2, "spite"), (3, evil("game"))):
            con.execute(f"INSERT INTO runs (id, {copied}) SELECT ?, {copied} FROM runs "
                        "WHERE id = 1", (run_id,))
            best = {"deal": evil("best"), "turns": 3, evil("measure"): 4}
            con.execute("UPDATE runs SET strategy = ?, objective = ?, machine = ?, "
                        "options_key = ?, game = ?, status = 'running', outcomes = ?, "
                        "checkpoint = ? WHERE id = ?",
                        (evil("strategy"), evil("objective"), evil("machine"),
                         evil("options"), game, json.dumps({evil("outcome"): 1}),
                         json.dumps({"best": best}), run_id))
            con.execute("INSERT INTO owners VALUES (?, 't', 999999999, ?, NULL, 0, 1)",
                        (run_id, evil("host")))
        # Run 2's finds are read only under one of the game's measures.
        con.execute("UPDATE runs SET objective = 'turns' WHERE id = 2")
        con.execute("INSERT INTO histograms SELECT 2, measure, bin_width, counts FROM "
                    "histograms WHERE run_id = 1")
        find = [row[1] for row in con.execute("PRAGMA table_info(finds)")][1:]
        con.execute(f"INSERT INTO finds ({', '.join(find)}) SELECT 2, game, options_key, "
                    f"game_options, ?, ?, measures, entry, period, details, ?, found, "
                    f"NULL, seconds FROM finds WHERE run_id = 1 LIMIT 1",
                    (evil("deal"), evil("outcome"), evil("strategy")))
        con.execute("UPDATE cycles SET key = ? WHERE rowid = (SELECT min(rowid) FROM cycles)",
                    (evil("cycle key"),))
    return db


SPITE = ["--game", "spite"]
COMMANDS = [["records", *SPITE], ["records", "--all", *SPITE], ["records", "--cycles", *SPITE],
            ["records", "--verify", *SPITE], ["records", "--csv", *SPITE], ["records"],
            ["records", "--game", evil("game")], ["status", "--all"],
            ["status"], ["search", "--resume", "2"], ["search", "--resume", "3"],
            ["log", "check"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_no_escape_of_a_crafted_log_reaches_the_terminal(crafted, argv, capsys):
    main([*argv, "--db", str(crafted)])
    out, err = capsys.readouterr()
    assert not RAW.search(out + err)


def test_every_printed_field_of_the_crafted_log_is_shown_escaped(crafted, capsys):
    shown = ""
    for argv in COMMANDS:
        main([*argv, "--db", str(crafted)])
        out, err = capsys.readouterr()
        shown += out + err
    escaped = r"\x1b]0;owned\x07\x1b[2J\r\x1b[2K\x9b31m\u202e"
    for field in ("deal", "outcome", "cycle key", "strategy", "objective", "game", "host",
                  "options", "best", "measure"):
        assert f"{field}{escaped}" in shown, field


@pytest.mark.parametrize("argv", [["verify", f"{EVIL}deal"], ["records", "--db", evil("db")],
                                  ["search", "random", "--time", evil("time")],
                                  ["search", "random", "--game", evil("game")],
                                  ["verify", "--game", "spite", f"{EVIL}/{EVIL}"]],
                         ids=lambda argv: argv[0])
def test_an_argument_with_escapes_is_refused_in_one_escaped_line(argv, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not RAW.search(out + err)
    assert err.count("\n") == 1 and r"\x1b" in err


def test_the_report_escapes_every_text_of_the_log(crafted, tmp_path, capsys):
    with sqlite3.connect(crafted) as con:
        con.execute("UPDATE runs SET strategy = ?, options_key = ?, machine = ?, "
                    "objective = 'turns' WHERE id = 2",
                    (f"s{XSS}{MATH}", f"o{XSS}{MATH}", f"m{XSS}"))
        con.execute("UPDATE finds SET deal = ?, strategy = ?, outcome = 'win' WHERE run_id = 2",
                    (f"d{XSS}", f"f{XSS}"))
    try:
        assert main(["report", "--game", "spite", "--db", str(crafted),
                     "--out", str(tmp_path / "r")]) == 0
    finally:   # the other tests read the escapes, not the HTML
        with sqlite3.connect(crafted) as con:
            con.execute("UPDATE runs SET strategy = ?, options_key = ?, machine = ? "
                        "WHERE id = 2", (evil("strategy"), evil("options"), evil("machine")))
            con.execute("UPDATE finds SET deal = ?, strategy = ?, outcome = ? "
                        "WHERE run_id = 2", (evil("deal"), evil("strategy"), evil("outcome")))
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page
    assert "s&lt;script&gt;" in page   # the strategy, in the tail sentence and the runs table
    assert not RAW.search(capsys.readouterr().out)


def test_the_reports_figures_draw_the_escapes_of_a_log_as_text(crafted, tmp_path, recwarn):
    # A control character drawn as written is a missing glyph: a warning on stderr per glyph.
    assert main(["report", "--game", "spite", "--db", str(crafted),
                 "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "lengths.png").exists()
    assert not [str(w.message) for w in recwarn if "Glyph" in str(w.message)]


def test_bytes_of_an_argument_that_are_not_utf8_are_shown_escaped(capsys):
    # Python hands them over as lone surrogates; written out as they came, 0x9b is a C1 CSI.
    assert main(["records", "--db", "log\udc9b.sqlite"]) == 2
    err = capsys.readouterr().err
    assert not RAW.search(err) and "log\\udc9b.sqlite" in err


def test_the_progress_bar_keeps_its_carriage_returns_and_is_cleared_before_a_line(
        monkeypatch):
    screen = io.StringIO()   # one terminal for both streams
    monkeypatch.setattr(screen, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setattr("sys.stderr", screen)
    with escaped(), screen_optional():
        bar = tqdm(total=10, file=progress_stream(), ascii=True, mininterval=0)
        bar.update(3)
        tqdm.write(f"a find: {EVIL}")
        bar.close()
    text = screen.getvalue()
    line = r"a find: \x1b]0;owned\x07\x1b[2J\r\x1b[2K\x9b31m\u202e" + "\n"
    assert line in text and not RAW.search(text.replace("\r", ""))
    before = text[:text.index(line)]
    assert before.endswith("\r") and before.rstrip("\r ").endswith("it/s]")  # the bar, cleared
