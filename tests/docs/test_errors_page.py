"""The errors page quotes each message as the tool prints it: every line of its table is
produced here by the command it names (or, where that takes a failing worker, a dying Dask
cluster or a sleeping machine, by the named test that asserts the same line)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog

PAGE = Path(__file__).parents[2] / "docs" / "errors.md"
ROW = re.compile(r"^\|.*\| (\d) \| `(dealsearch: error: .*)` \|$")
RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
SINCE = "2026-12-01 15:50:03"   # the page's owner: pid 4242 on host-a since then

# What prints each line: a command run in a folder holding the page's files ...
COMMANDS = {
    "argument --seed: '-5'": ["search", "random", "--seed", "-5"],
    "seed -5:": ["search", "--config", "campaign.toml"],
    "has no option 'colour'": ["search", "--config", "durak.toml"],
    "notes.txt is not": ["records", "--db", "notes.txt"],
    "no log at missing.sqlite": ["records", "--db", "missing.sqlite"],
    "no directory missing/dir": ["search", "random", "--db", "missing/dir/x.sqlite"],
    "logs is a directory": ["records", "--db", "logs"],
    "no run 99:": ["search", "--resume", "99"],   # (in a folder without a log)
    "no run 999 in": ["records", "--run", "999"],
    "run 1 is being played": ["search", "--resume", "1"],
    "deals.bin is not": ["verify", "deals.bin"],
    "no such file: deals.txt": ["verify", "deals.txt"],
    "data is a directory": ["verify", "data"],
    "unknown card 'Z'": ["verify", "--Z-/---"],
    "27/25 cards": ["search", "climb", "--start", RECORD[:26] + "-/" + RECORD[28:]],
    "18/17/17": ["search", "climb", "--start", RECORD, "--players", "3"],
    "bad duration '90'": ["search", "random", "--time", "90"],
    "bad duration '-5m'": ["search", "random", "--time", "-5m"],
    "bad duration '1h90'": ["search", "random", "--time", "1h90"],
    "bad duration 'soon'": ["search", "random", "--time", "soon"],
    "is for random and exhaustive searches": ["search", "climb", "--device", "gpu"],
    "plays two players": ["search", "random", "--device", "gpu", "--players", "3"],
    "durak has no engine": ["search", "random", "--game", "durak", "--device", "gpu"],
    "bad duration '0'": ["search", "random", "--time", "0"],
    "it is beggar's": ["search", "--game", "durak", "--rules", "italian"],
    "reverse has no option": ["reverse", RECORD, "--players", "3"],
    "drop the strategy": ["search", "random", "--resume", "1"],
    "an empty argument is not a deal": ["verify", ""],
    "an empty argument is not a log": ["records", "--db", ""],
    "an empty argument is not a directory": ["report", "--out", ""],
    "not '|'": ["verify", RECORD.replace("/", "|")],
    "one deal's hands": ["verify", *RECORD.split("/")],
    "are for a tls:// --scheduler": ["search", "random", "--tls-cert", "cert.pem"],
    "--dashboard is for": ["search", "random", "--dashboard"],
}
# ... or the test that asserts it.
TESTS = {
    "a worker raised RuntimeError": ("framework/test_errors.py",
                                     "test_a_worker_that_raises_fails_the_run_and_resume"),
    "is gone (stopped or unreachable)": (
        "framework/test_dask_security.py",
        "test_a_scheduler_gone_ends_the_search_in_one_line_with_its_resume_command"),
    "(KilledWorker)": ("framework/test_errors.py",
                       "test_dask_workers_that_keep_dying_fail_the_run_in_one_line"),
    "a log of a development version": (
        "framework/test_log.py",
        "test_an_older_development_log_is_refused_in_one_line_and_left_alone"),
    "of another application": (
        "framework/test_log.py", "test_another_applications_sqlite_file_is_refused_and_left_alone"),
    "its schema is not this release's": (
        "framework/test_log.py",
        "test_a_log_whose_schema_is_not_this_releases_is_refused_and_named"),
    "is locked by another process": ("framework/test_log.py",
                                     "test_a_locked_log_is_named_locked"),
    "run 1 failed: cannot write the log dealsearch.sqlite: the disk is full": (
        "framework/test_log_full_disk.py", "test_a_full_disk_at_a_checkpoint_fails_the_run_in_"
        "one_line_keeping_every_printed_find"),
    "error: cannot write the log dealsearch.sqlite: the disk is full": (
        "framework/test_log_full_disk.py",
        "test_a_full_disk_at_a_new_runs_start_is_one_line_and_no_run"),
    "cannot write the output: No space left on device": (
        "framework/test_terminal.py",
        "test_a_search_whose_output_fills_its_disk_plays_its_budget_and_says_so_in_one_line"),
    "mygame has no trace": ("framework/test_small_game.py",
                            "test_a_core_only_game_searches_and_verifies"),
    "cannot write the log /mnt/ro/log.sqlite": ("framework/test_readers.py",
                             "test_a_search_on_a_read_only_log_says_it_cannot_write_there"),
    "was taken over by": ("framework/test_ownership.py",
                          "test_an_owner_that_was_taken_over_stops_without_writing"),
    "add --oversubscribe to insist": ("framework/test_workers_and_time.py",
                                      "test_more_workers_than_cores_is_refused_in_one_line"),
    "cannot be resumed": ("framework/test_not_resumable.py",
                          "test_a_lost_run_says_it_cannot_be_resumed"),
    "not a factory run;": ("framework/test_not_resumable.py",
                           "test_factory_resume_of_a_search_run_names_the_search"),
    "needs CuPy": ("games/beggar/test_gpu.py",
                   "test_without_cupy_device_gpu_is_one_line_and_exit_2"),
    "chunk 4000 differs from its replay on the CPU": (
        "games/beggar/test_gpu.py",
        "test_a_spoilt_chunk_stops_the_run_in_one_line_and_it_resumes_on_the_cpu"),
    "shard 2000 (ranks 100000000:100050000) differs from its replay on the CPU": (
        "games/beggar/test_gpu_blocks.py", "test_a_spoilt_shard_stops_the_block_in_one_line"),
    "on --device gpu and the CPU": (
        "games/beggar/test_gpu_blocks.py",
        "test_verify_blocks_on_a_device_plays_each_task_again_on_the_cpu"),
    "earlier beggar dealer": ("framework/test_log.py", "test_a_random_run_dealt_by_an_earlier_"
                              "dealer_keeps_its_finds_but_is_not_continued"),
    # a damaged log: the page's numbers are an example; these tests assert each line's form
    "rows that cannot be read left out": (
        "framework/test_log_damage.py",
        "test_damage_inside_a_row_is_seen_by_the_check_though_sqlite_says_ok"),
    "(database disk image is malformed)": (
        "framework/test_log_damage.py",
        "test_a_log_cut_short_is_malformed_to_readers_and_recover_says_what_it_left"),
    "nothing is written into a damaged log": (
        "framework/test_log_damage.py", "test_resume_refuses_to_write_into_a_damaged_log"),
    "(runs row 2: game_options is not UTF-8 text)": (
        "framework/test_log_damage.py", "test_text_that_is_not_utf8_is_one_line_naming_the_row"),
    "7 problems in 4 runs": (
        "framework/test_log_damage.py",
        "test_damage_inside_a_row_is_seen_by_the_check_though_sqlite_says_ok"),
    "could not be recovered": (
        "framework/test_log_damage.py",
        "test_a_log_cut_short_is_malformed_to_readers_and_recover_says_what_it_left"),
    "exists: recover writes a new log": ("framework/test_log_damage.py",
                                         "test_recover_writes_a_new_log_only"),
}


def quoted() -> list[tuple[int, str]]:
    """(exit status, line) of each row of the page's table of every error."""
    rows = [ROW.match(line) for line in PAGE.read_text(encoding="utf-8").splitlines()]
    return [(int(row[1]), row[2]) for row in rows if row]


def the_pages_files(folder: Path) -> None:
    (folder / "campaign.toml").write_text('strategy = "random"\nseed = -5\n', encoding="utf-8")
    (folder / "durak.toml").write_text(
        'strategy = "random"\ngame = "durak"\n[game_options]\ncolour = "red"\n',
        encoding="utf-8")
    (folder / "notes.txt").write_text("these are my notes\n", encoding="utf-8")
    (folder / "logs").mkdir()
    (folder / "empty").mkdir()
    (folder / "data").mkdir()
    (folder / "deals.bin").write_bytes(b"\xff\xfe\x00binary")
    with RecordLog(folder / "dealsearch.sqlite") as log:   # run 1, played on host-a
        run_id = log.start_run("random", {"strategy": "random", "seed": 1, "workers": 1}, 1, 1,
                               "beggar")
        since = time.mktime(time.strptime(SINCE, "%Y-%m-%d %H:%M:%S"))
        log.db.execute("INSERT INTO owners VALUES (?, 'theirs', 4242, 'host-a', NULL, ?, ?)",
                       (run_id, since, time.time() + 3600))


def test_the_page_quotes_every_line_of_its_table_as_printed(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    the_pages_files(tmp_path)
    rows = quoted()
    assert len(rows) >= 20
    for status, line in rows:
        command = [argv for key, argv in COMMANDS.items() if key in line]
        tests = [where for key, where in TESTS.items() if key in line]
        assert len(command) + len(tests) == 1, f"the page's line is checked by nothing: {line}"
        if tests:
            (path, name), = tests
            source = (Path(__file__).parents[1] / path).read_text(encoding="utf-8")
            assert f"def {name}" in source, (path, name)
            continue
        argv = command[0]
        monkeypatch.chdir(tmp_path / "empty" if "no run 99:" in line else tmp_path)
        assert main(argv) == status, argv
        printed = capsys.readouterr().err.splitlines()
        assert printed == [line], (argv, printed)


@pytest.mark.parametrize("line", [line for _, line in quoted()])
def test_no_line_on_the_page_is_a_traceback(line):
    assert "Traceback" not in line
