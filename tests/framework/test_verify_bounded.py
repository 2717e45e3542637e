"""``verify`` on odd input: whatever it is given, one line and exit 0, 1 or 2, read within
bounds (a file of deals is a regular file under a size limit; a number is range-checked before
it is converted), and an error line quotes at most about 60 characters of a bad value."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealsearch.cli import main
from dealsearch.cli.deals import MAX_DEAL_FILE

from conftest import run_cli


def one_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """``dealsearch ARGV`` refused: its one line on stderr."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_device_is_not_read_as_a_file_of_deals():
    done = run_cli("verify", "/dev/zero", timeout=60)
    assert done.returncode == 2
    assert done.stderr == "dealsearch: error: /dev/zero is not a regular file of deals\n"


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    pipe = tmp_path / "deals"
    os.mkfifo(pipe)   # nobody ever writes it: opening it to read would wait for ever
    done = run_cli("verify", str(pipe), timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"dealsearch: error: {pipe} is not a regular file of deals\n"


def test_a_file_of_deals_over_the_limit_is_refused_unread(tmp_path, capsys):
    big = tmp_path / "deals.txt"
    with open(big, "wb") as file:
        file.truncate(MAX_DEAL_FILE + 1)   # sparse: nothing is written
    assert "is over 64 MiB" in one_error(capsys, ["verify", str(big)])


def test_an_endless_line_on_standard_input_is_refused(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("A" * 10**6))
    assert "stdin, line 1: over 65,536 characters" in one_error(capsys, ["verify", "-"])


@pytest.mark.parametrize("command", ["verify", "rank"])   # the deals both read
@pytest.mark.parametrize("game", ["beggar", "spite"])
@pytest.mark.parametrize("text", ["-J" * 200, "deals.txt" * 50, f"{'x' * 300}/deals.txt"])
def test_an_argument_too_long_to_be_a_file_name_is_a_deal(command, game, text, capsys):
    err = one_error(capsys, [command, "--game", game, text])
    assert "File name too long" not in err and "no such file" not in err


def test_a_seat_of_5000_digits_is_refused_before_it_is_converted(capsys):
    position = f"hands=9C AS/KS/JD QS; trump=H; attacker={'9' * 5000}"
    err = one_error(capsys, ["verify", "--game", "durak", "--players", "3", position])
    assert "attacker must be a seat 1 to 3" in err and "(5,000 characters)" in err
    assert len(err) < 200


@pytest.mark.parametrize("option", ["--deals", "--seed", "--workers"])
def test_a_number_of_5000_digits_is_refused_in_a_short_line(option, capsys):
    err = one_error(capsys, ["search", "random", option, "9" * 5000])
    assert "Exceeds the limit" not in err and len(err) < 200


@pytest.mark.parametrize(("argv", "line"), [
    (["verify", "x" * 1_000_000], "1 hand: a deal has 2 to 4 hands"),
    (["verify", f"{'x' * 200}.txt"], f"no such file: '{'x' * 60}'... (204 characters)"),
    (["rank", f"{'x' * 200}.txt"], f"no such file: '{'x' * 60}'... (204 characters)"),
    (["rank", "x" * 1_000_000], "1 hand: a deal has 2 to 4 hands"),
    (["search", "random", "--time", "x" * 1_000_000],
     f"argument --time: bad duration '{'x' * 60}'... (1,000,000 characters): write e.g."),
])
def test_an_error_line_quotes_at_most_60_characters_of_a_bad_value(capsys, argv, line):
    err = one_error(capsys, argv)
    assert line in err and len(err) < 250


SHIPPED = ("beggar", "durak", "spite")   # not the games other tests register


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(SHIPPED), text=st.text(min_size=1, max_size=400))
def test_verify_on_any_text_exits_0_1_or_2_with_at_most_one_line(game, text, capsys):
    if text.startswith("-") or "\0" in text:
        text = f"A{text}".replace("\0", "")   # an option, or what no argv can hold
    if text == "-" or os.path.lexists(text):
        return
    status = main(["verify", "--game", game, "--", text])
    err = capsys.readouterr().err
    assert status in (0, 1, 2)
    assert "Traceback" not in err and err.count("\n") == (status != 0)


@pytest.mark.parametrize("argv", [["records"], ["status"], ["log", "check"],
                                  ["report", "--out", "r"], ["search", "random", "--deals", "9"],
                                  ["search", "--resume", "1"]], ids=" ".join)
def test_a_log_name_too_long_for_a_file_is_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = one_error(capsys, [*argv, "--db", "x" * 300 + ".sqlite"])
    assert err == ("dealsearch: error: '" + "x" * 60 + "'... (307 characters) cannot be a log: "
                   "File name too long\n")


def test_a_recovered_log_named_too_long_for_a_file_is_one_line(capsys, tmp_path):
    log = tmp_path / "log.sqlite"
    assert main(["search", "random", "--deals", "100", "--workers", "1", "--quiet",
                 "--db", str(log)]) == 0
    capsys.readouterr()
    err = one_error(capsys, ["log", "recover", "--db", str(log), "x" * 300])
    assert err.endswith("(300 characters) cannot be a log: File name too long\n")


@pytest.mark.parametrize("game", ["beggar", "durak"])
def test_a_game_option_of_5000_digits_is_refused_before_it_is_converted(game, capsys):
    err = one_error(capsys, ["search", "random", "--game", game, "--players", "9" * 5000])
    assert err == ("dealsearch: error: argument --players: '" + "9" * 60 + "'... (5,000 "
                   "characters) is too large\n")
