"""The command line: exit codes, one-line errors, JSON shape, files and stdin."""

from __future__ import annotations

import io
import json

import pytest

from dealsearch.cli import main

from deals import CASELLA, RECORD


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_verify_record_deal_prints_exact_counts(capsys):
    status, out, _ = run(capsys, "verify", RECORD)
    assert status == 0
    assert "hand 2 wins: 8,344 cards, 1,164 tricks" in out


def test_verify_json_has_exactly_the_documented_keys(capsys):
    status, out, _ = run(capsys, "verify", "--json", RECORD, CASELLA)
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert [set(r) for r in records] == [
        {"deal", "outcome", "winner", "cards", "tricks", "out", "cycle"}] * 2
    assert records[0]["cycle"] is None and records[0]["out"] == [1]
    assert records[1]["cycle"] == {"entry_cards": 34, "entry_tricks": 4,
                                   "period_cards": 440, "period_tricks": 62}


def test_verify_reads_files_and_stdin_one_deal_per_line(capsys, tmp_path, monkeypatch):
    path = tmp_path / "deals.txt"
    path.write_text(f"# published\n{RECORD}\n\n{CASELLA}\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{CASELLA}\n"))
    status, out, _ = run(capsys, "verify", "--json", str(path), "-")
    assert status == 0
    assert [json.loads(line)["outcome"] for line in out.splitlines()] == ["win", "cycle", "cycle"]


def test_verify_prints_deals_in_compact_notation(capsys):
    status, out, _ = run(capsys, "verify", "--deck", "any", "2A78Q10/3456K9J")
    assert status == 0
    assert out.splitlines()[0] == "-A--Q-/----K-J"


def test_trace_shows_every_trick_and_agrees_with_the_count(capsys):
    status, out, _ = run(capsys, "verify", "--trace", RECORD)
    trick_lines = [line for line in out.splitlines() if line.strip().startswith("trick ")]
    assert status == 0
    assert len(trick_lines) == 1164
    assert sum(line.count(":") - 1 for line in trick_lines) == 8344
    assert trick_lines[-1].endswith("hands 0/52") or "hand 1 is out" in trick_lines[-1]


def test_limit_option_reports_limit(capsys):
    status, out, _ = run(capsys, "verify", "--json", "--max-tricks", "10", RECORD)
    record = json.loads(out)
    assert status == 0
    assert record["outcome"] == "limit" and record["tricks"] == 10


def test_known_deals_all_match(capsys):
    status, out, _ = run(capsys, "verify", "--known")
    assert status == 0
    assert "0 mismatches" in out and "MISMATCH" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--Z-/---"], "hand 1, position 3: unknown card 'Z'"),
        (["verify", "-A-/-K-"], "4 numerals, the deck has 36; 0 jacks, the deck has 4"),
        (["verify", "A" + RECORD[1:]], "35 numerals, the deck has 36; 5 aces, the deck has 4"),
        (["verify", "--deck", "any", "-A/"], "hand 2 is empty"),
        (["verify", "--deck", "any", "-AK"], "1 hand: a deal has 2 to 4 hands"),
        (["verify", "--deck", "any", "-/-/-/-/-"], "5 hands: a deal has 2 to 4 hands"),
        (["verify", "--max-cards", "0", RECORD], "'0' must be at least 1"),
        (["verify", "--max-tricks", "ten", RECORD], "'ten' is not a whole number"),
        (["verify", "--rules", "klondike", RECORD], "invalid choice: 'klondike'"),
        (["verify"], "verify needs a deal"),
        (["unknown-command"], "invalid choice: 'unknown-command'"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


def test_a_bad_line_in_a_file_names_the_line_and_the_rest_still_plays(capsys, tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text(f"{RECORD}\n--X/--\n{CASELLA}\n", encoding="utf-8")
    status, out, err = run(capsys, "verify", "--json", str(path))
    assert status == 2
    assert f"{path}, line 2: hand 1, position 3: unknown card 'X'" in err
    assert len(out.splitlines()) == 2


def test_bench_plays_every_contender_on_the_same_deals_and_they_agree(capsys):
    status, out, _ = run(capsys, "bench", "--deals", "3000", "--json")
    report = json.loads(out)
    assert status == 0
    names = [entry["name"] for entry in report["results"]]
    assert any("engine" in name for name in names) and any("reference" in n for n in names)
    assert all(entry["deals_per_s"] > 0 for entry in report["results"])
    assert report["checks"]["reference_mismatches"] == 0


def test_a_lower_case_compact_deal_is_a_deal_not_an_option(capsys):
    status, out, _ = run(capsys, "verify", "--json", RECORD.lower())
    assert status == 0
    assert json.loads(out) | {"deal": RECORD} == json.loads(out)
    assert json.loads(out)["cards"] == 8344


def test_a_negative_number_after_an_option_is_its_value_not_a_deal(capsys):
    status, _, err = run(capsys, "verify", "--max-cards", "-12", RECORD)
    assert status == 2
    assert err == "dealsearch: error: argument --max-cards: '-12' must be at least 1\n"


def test_json_with_trace_keeps_stdout_json_and_traces_on_stderr(capsys):
    status, out, err = run(capsys, "verify", "--json", "--trace", RECORD, CASELLA)
    assert status == 0
    assert [json.loads(line)["cards"] for line in out.splitlines()] == [8344, 474]
    tricks = [line for line in err.splitlines() if line.strip().startswith("trick ")]
    assert len(tricks) == 1164 + 66
