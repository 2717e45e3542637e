"""A log is a file from a stranger: rows crafted to make a reader hang, recurse, overflow or
eat memory are held to the log's rules (``dealsearch.log.rules``) by every reader as by ``log
check``: each is left out and counted (one line, exit 1), never a traceback, a hang or a
gigabyte."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log.rules import MAX_BINS, chunks_problem, decode_json, judge

NESTED = "[" * 100_000 + "]" * 100_000   # json.loads: RecursionError, not ValueError


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small log: a BMN random run of 3,000 deals (finds, histograms, samples)."""
    db = tmp_path_factory.mktemp("bounds") / "log.sqlite"
    assert main(["search", "random", "--deals", "3000", "--seed", "1", "--workers", "1",
                 "--quiet", "--json", "--db", str(db)]) == 0
    return db


@pytest.fixture
def log(sound: Path, tmp_path: Path) -> Path:
    db = tmp_path / "log.sqlite"
    shutil.copy(sound, db)
    return db


def craft(db: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(db) as raw:
        raw.execute(sql, args)
    raw.close()


def one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run a command: exit 0, 1 or 2 with at most one line on stderr (no traceback)."""
    capsys.readouterr()
    status = main(list(argv))
    err = capsys.readouterr().err.splitlines()
    assert status in (0, 1, 2) and len(err) == (status != 0), err
    return status, err[0] if err else ""


READERS = (["records"], ["records", "--all"], ["status", "--all"], ["log", "check"])

CRAFTED = {
    "a bin a trillion lengths out": (
        "UPDATE histograms SET counts = '{\"1000000000000\": 1, \"3\": 5}'",
        "counts is not a histogram"),
    "2.8 million bins": (
        "UPDATE histograms SET counts = (WITH RECURSIVE b(n) AS (SELECT 0 UNION ALL SELECT"
        " n + 1 FROM b WHERE n < 70000) SELECT json_group_object(n, 1) FROM b)",
        "counts is not a histogram"),
    "a bin width of 0": ("UPDATE histograms SET bin_width = 0", "bin_width is not from 1"),
    "a bin width of 10^18": ("UPDATE histograms SET bin_width = 1000000000000000000",
                             "bin_width is not from 1"),
    "JSON nested 100,000 deep in a find": (
        f"UPDATE finds SET details = '{NESTED}' WHERE id = 1", "details is nested too deep"),
    "JSON nested 100,000 deep in a run": (
        f"UPDATE runs SET options = '{NESTED}'", "options is nested too deep"),
    "JSON nested 100,000 deep in a histogram": (
        f"UPDATE histograms SET counts = '{NESTED}'", "counts is nested too deep"),
    "a checkpoint's chunks that are not counts": (
        "UPDATE runs SET checkpoint = json_set(checkpoint, '$.strategy.chunks',"
        " json('{\"prefix\": \"x\"}'))", "checkpoint chunks has no count"),
    "a checkpoint listing a span of 10^18 chunks": (
        "UPDATE runs SET checkpoint = json_set(checkpoint, '$.strategy.chunks',"
        " json('{\"prefix\": 0, \"spans\": [[0, 1000000000000000000]]}'))",
        "checkpoint chunks lists more than"),
    "a best so far that is no deal": (
        "UPDATE runs SET checkpoint = json_set(checkpoint, '$.best', 'x')",
        "checkpoint best is not a deal with its measures"),
    "a best so far of no count": (
        "UPDATE runs SET checkpoint = json_set(checkpoint, '$.best.cards', 'many')",
        "checkpoint best holds something other than counts"),
    "an objective that is no name": (
        "UPDATE runs SET options = json_set(options, '$.objective', json('[1]'))",
        "options objective is not the name of a measure"),
    "an owner's pid over 2^31": (
        "INSERT INTO owners VALUES (1, 't', 1099511627776, 'h', NULL, 0, 0)",
        "pid is not a process id"),
    "an owner since a time past any calendar": (
        "INSERT INTO owners VALUES (1, 't', 4242, 'h', NULL, 1e308, 1e308)",
        "since is not a time from 1970 to 9999"),
    "an owner's pid as text": (
        "INSERT INTO owners VALUES (1, 't', 'forty', 'h', NULL, 0, 0)", "pid is text"),
    "a text of 100,000 characters": (
        "UPDATE finds SET deal = printf('%.100000c', 'A') WHERE id = 1",
        "deal is longer than"),
    "an infinite number of seconds": ("UPDATE runs SET seconds = 1e999",
                                      "seconds is not a finite number"),
    # status and report reckon the time left from the budget
    "a budget of deals that is no count": (
        "UPDATE runs SET options = json_set(options, '$.deals', 'lots')",
        "options deals is not a count of deals"),
    "a time budget that is no number": (
        "UPDATE runs SET options = json_set(options, '$.time', 'long')",
        "options time is not a number of seconds"),
    # a figure's axis cannot hold it as a float
    "a measure of 4,001 digits": (
        "UPDATE finds SET measures = json_set(measures, '$.cards', json('1' ||"
        " printf('%.4000c', '0'))) WHERE id = 1", "measures holds something other than whole"),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_row_is_left_out_and_named_by_every_reader(log, capsys, name):
    sql, named = CRAFTED[name]
    craft(log, sql)
    if "owner" in name:   # an owner is asked about while its run reads 'running'
        craft(log, "UPDATE runs SET status = 'running'")
    before = log.read_bytes()
    for argv in READERS:   # each reads the row (and says so) or never needs it (status)
        status, err = one_line(capsys, *argv, "--db", str(log))
        assert status in (0, 1) and (status == 1 or argv[0] == "status"), (argv, err)
        if status == 1 and argv[0] != "log":
            assert "that cannot be read left out" in err and named in err, (argv, err)
    capsys.readouterr()
    main(["log", "check", "--db", str(log)])
    assert named in capsys.readouterr().out
    assert log.read_bytes() == before


@pytest.mark.parametrize("name", ["a bin a trillion lengths out", "a bin width of 0",
                                  "a bin width of 10^18",
                                  "JSON nested 100,000 deep in a histogram",
                                  "a budget of deals that is no count",
                                  "a time budget that is no number",
                                  "a measure of 4,001 digits"])
def test_a_report_of_a_crafted_row_is_one_line(log, tmp_path, capsys, name):
    pytest.importorskip("matplotlib")
    craft(log, CRAFTED[name][0])
    status, err = one_line(capsys, "report", "--db", str(log), "--out", str(tmp_path / "r"))
    assert status == 1 and CRAFTED[name][1] in err


@pytest.mark.parametrize("name", ["a checkpoint's chunks that are not counts",
                                  "a checkpoint listing a span of 10^18 chunks",
                                  "an owner's pid over 2^31", "an owner's pid as text",
                                  "an owner since a time past any calendar",
                                  "JSON nested 100,000 deep in a run"])
def test_resume_of_a_crafted_run_is_one_line_and_writes_nothing(log, capsys, name):
    craft(log, CRAFTED[name][0])
    craft(log, "UPDATE runs SET status = 'interrupted'")
    before = log.read_bytes()
    status, err = one_line(capsys, "search", "--resume", "1", "--quiet", "--db", str(log))
    assert status == 1 and CRAFTED[name][1] in err and "nothing is written" in err
    assert log.read_bytes() == before


@pytest.mark.parametrize("name", ["JSON nested 100,000 deep in a find",
                                  "a bin a trillion lengths out"])
def test_recover_leaves_a_crafted_row_behind_and_keeps_the_rest(log, tmp_path, capsys, name):
    craft(log, CRAFTED[name][0])
    saved = tmp_path / "saved.sqlite"
    status, err = one_line(capsys, "log", "recover", "--db", str(log), str(saved))
    assert status == 1 and "could not be recovered" in err
    assert one_line(capsys, "log", "check", "--db", str(saved)) == (0, "")


def test_the_rules_are_bounded_by_the_data_not_by_what_a_row_claims():
    assert decode_json(NESTED) == (None, "is nested too deep")
    assert decode_json("[" * 17 + "]" * 17) == (None, "is nested too deep")
    assert decode_json("[" * 16 + "]" * 16)[1] is None
    assert decode_json("1e999") == (None, "holds a number out of range")
    assert decode_json("9" * 5000)[1].startswith("is not JSON")
    counts = {str(MAX_BINS - 1): 1}
    assert judge("histograms", {"bin_width": 1, "counts": str(counts).replace("'", '"')},
                 whole=False)[1] == []
    assert chunks_problem({"chunks": {"prefix": 3, "extra": [5], "spans": [[7, 9]]}}) is None
    assert chunks_problem({"chunks": {"prefix": 3, "spans": [[9, 7]]}}) is not None


def test_a_find_keeps_its_runs_search_time_never_negative():
    assert judge("finds", {"seconds": 12.5}, whole=False)[1] == []
    assert judge("finds", {"seconds": -1.0}, whole=False)[1] == ["seconds is negative"]
    assert judge("finds", {"seconds": None}, whole=False)[1] == ["seconds is empty (NULL)"]


@pytest.fixture(scope="module")
def exhaustive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of an exhaustive run of a small deck, whose checkpoint holds the ranks played."""
    db = tmp_path_factory.mktemp("ranks") / "log.sqlite"
    assert main(["search", "exhaustive", "--deck", "------JJQQK", "--workers", "1", "--quiet",
                 "--json", "--db", str(db)]) == 0
    return db


@pytest.mark.parametrize("played", ["x", 5, [[1]], [["a", "b"]], [[5, 1]], [[0, 1]] * 70_000])
def test_the_ranks_an_exhaustive_run_played_are_spans(exhaustive, tmp_path, capsys, played):
    """status prints them (a traceback on a crafted log before the rule)."""
    db = Path(shutil.copy(exhaustive, tmp_path / "log.sqlite"))
    with closing(sqlite3.connect(db)) as log, log:
        checkpoint = json.loads(log.execute("SELECT checkpoint FROM runs").fetchone()[0])
        assert checkpoint["strategy"]["ranks"] == [[0, 13860]]   # as written: sound
        checkpoint["strategy"]["ranks"] = played
        log.execute("UPDATE runs SET checkpoint = ?", (json.dumps(checkpoint),))
    capsys.readouterr()
    assert main(["status", "--all", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "checkpoint ranks is not a list of the spans of ranks played" in err


@pytest.mark.parametrize("block", ["x", [1], [5, 1], [0, 1, 2]])
def test_the_block_of_an_exhaustive_run_is_a_span(block):
    options = json.dumps({"strategy": "exhaustive", "settings": {"ranks": block}})
    assert judge("runs", {"options": options}, whole=False)[1] == [
        "options settings ranks is not a block of ranks [start, end]"]
    assert judge("runs", {"options": json.dumps({"settings": {"ranks": [0, 9]}})},
                 whole=False)[1] == []


def test_ranks_past_64_bits_are_ranks():
    """A 52-card deck has 6.5e20 deals: its blocks, ranks played and finds' ranks are sound
    (a run there was called damaged as it ended)."""
    high = [5 * 10**20, 5 * 10**20 + 9]
    assert judge("runs", {"options": json.dumps({"ranks": high})}, whole=False)[1] == []
    checkpoint = json.dumps({"strategy": {"ranks": [high], "chunks": {"prefix": 1}}})
    assert judge("runs", {"checkpoint": checkpoint}, whole=False)[1] == []
    details = json.dumps({"rank": high[1]})
    assert judge("finds", {"details": details}, whole=False)[1] == []


def test_the_rank_of_an_exhaustive_find_is_a_rank(exhaustive, tmp_path, capsys):
    """records --cycles sorts the finds by rank (a traceback on a crafted log before)."""
    db = Path(shutil.copy(exhaustive, tmp_path / "log.sqlite"))
    with closing(sqlite3.connect(db)) as log, log:
        (find, details), = log.execute("SELECT id, details FROM finds WHERE outcome = 'cycle' "
                                       "ORDER BY id LIMIT 1")
        assert isinstance(json.loads(details)["rank"], int)   # as written: sound
        log.execute("UPDATE finds SET details = ? WHERE id = ?",
                    (json.dumps({**json.loads(details), "rank": "x"}), find))
    capsys.readouterr()
    assert main(["records", "--cycles", "--db", str(db)]) == 1
    out, err = capsys.readouterr()
    assert "41 never-ending deals found by exhaustive search, by rank" in out
    assert f"finds row {find}: details rank is not a rank" in err


def test_a_run_of_many_samples_is_read_evenly_spread_first_and_last_kept(log):
    from dealsearch.log import RecordLog
    from dealsearch.log.store import MAX_SAMPLES

    craft(log, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)"
               " INSERT INTO samples SELECT 1, 1000 + i, i, '{}' FROM n")
    with closing(sqlite3.connect(log)) as raw:
        (total,) = raw.execute("SELECT count(*) FROM samples WHERE run_id = 1").fetchone()
    with RecordLog(log, readonly=True) as read:
        samples = read.samples(1)
    assert len(samples) <= MAX_SAMPLES
    seconds = [s["seconds"] for s in samples]
    assert seconds == sorted(seconds) and seconds[-1] == 51_000   # the run's last sample
    planted = [x for x in seconds if x > 1000][:-1]   # whole seconds apart, but the last
    assert len({b - a for a, b in itertools.pairwise(planted)}) == 1   # evenly spread
    assert len(samples) > MAX_SAMPLES // 2 and total > MAX_SAMPLES   # as many as it may


def test_a_figure_draws_a_strategy_60000_characters_long_cut_short(log, tmp_path,
                                                                   monkeypatch):
    pytest.importorskip("matplotlib")
    from dealsearch import report

    craft(log, "UPDATE runs SET strategy = printf('%.60000c', 's')")
    labels: list[str] = []
    save = report._save

    def looked_at(fig, path):   # each figure's legend and bar names, as drawn
        for ax in fig.axes:
            labels.extend(ax.get_legend_handles_labels()[1])
            labels.extend(t.get_text() for t in ax.get_yticklabels())
        save(fig, path)

    monkeypatch.setattr(report, "_save", looked_at)
    assert main(["report", "--db", str(log), "--out", str(tmp_path / "r")]) == 0
    assert any(label.startswith("run 1: sss") for label in labels)
    assert max(map(len, labels)) <= report.MAX_LABEL


def test_a_report_reads_each_run_once_however_many_runs_the_log_holds(log, tmp_path,
                                                                      monkeypatch):
    pytest.importorskip("matplotlib")
    from dealsearch.log import RecordLog

    craft(log, "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 400)"
               " INSERT INTO runs (id, strategy, options, objective, seed, workers, machine,"
               " started, status, game) SELECT i, 'random', '{}', 'cards', 1, 1, 'm', 0,"
               " 'interrupted', 'beggar' FROM n")
    compared = [0]

    class Row(dict):   # a run as read, counting whole-row comparisons
        def __eq__(self, other):
            compared[0] += 1
            return dict.__eq__(self, other)

        __hash__ = None

    runs = RecordLog.runs
    monkeypatch.setattr(RecordLog, "runs", lambda self: [Row(r) for r in runs(self)])
    assert main(["report", "--db", str(log), "--out", str(tmp_path / "r")]) == 0
    assert compared[0] < 400   # not every run against every other (400 x 400 / 2)
