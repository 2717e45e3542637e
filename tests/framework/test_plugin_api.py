"""What a plug-in author relies on: the framework loads no game of its own accord, a game
without options keeps the contract and reads cleanly everywhere, and the game's own words
reach the user."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.examples.war import War, register_war
from dealsearch.log import RecordLog
from dealsearch.plugin import OptionSpec, PythonKernel, register
from dealsearch.report import Group
from dealsearch.search import _generic
from dealsearch.testing import CHECKS, Subject


@pytest.mark.parametrize("module", ["log", "game", "search", "report", "cli", "plugin",
                                    "testing"])
def test_importing_the_framework_loads_no_game(module):
    code = (f"import dealsearch.{module}, sys; "
            "print([m for m in sys.modules if '.games.' in m])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout  # a fresh interpreter: nothing imported yet
    assert out.strip() == "[]"


@dataclass(frozen=True)
class Nothing:
    """The options of a game that has none: War with two card values."""

    values: ClassVar[int] = 2
    max_rounds: ClassVar[int] = 200

    def key(self) -> str:
        return ""

    def to_json(self) -> dict[str, Any]:
        return {}


class PlainWar(War):
    """War without options."""

    name: ClassVar[str] = "plainwar"
    title: ClassVar[str] = "Plain War"
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    def options(self, **values: Any) -> Nothing:
        return Nothing()   # make_options has refused any name already: there are none

    def describe_options(self, options: Any) -> str:
        return super(War, self).describe_options(options)  # the framework's own


PLAIN = register(PlainWar())
register_war()


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_a_game_without_options_keeps_the_contract(check):
    check(Subject(PLAIN, ({},), rows=60))


def test_a_game_without_options_reads_cleanly(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--game", "plainwar", "--deals", "500", "--workers", "1",
                 "--seed", "1", "--db", db, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "random search, Plain War, " in out and ", ," not in out
    assert main(["status", "--all", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "search of plainwar, 1 worker\n" in out and "()" not in out
    assert main(["records", "--game", "plainwar", "--all", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "plainwar:" not in out
    assert "projection for random Plain War deals:" in out and "deals, :" not in out
    with RecordLog(db, readonly=True) as log:
        run = log.runs()[0]
    assert Group("random", run["options_key"], (run,)).label == "random"


def test_the_games_own_parse_error_reaches_the_user(capsys):
    assert main(["verify", "--game", "war", "0231310X/22311203"]) == 2
    err = capsys.readouterr().err
    assert "a war deal is two hands of digits" in err and "no such file" not in err
    assert main(["verify", "--game", "war", "deals.txt"]) == 2
    assert "no such file: deals.txt" in capsys.readouterr().err


def test_exhaustive_names_no_option_the_game_lacks(capsys):
    assert main(["search", "exhaustive", "--game", "war", "--values", "10", "--workers",
                 "1"]) == 2
    err = capsys.readouterr().err
    assert "would never end" in err and "--deck" not in err


@pytest.mark.slow
def test_a_kernel_compiles_outside_the_repository_as_the_docs_show(tmp_path):
    """The plug-in page's compiled kernel and setup.py, built against the installed .pxd."""
    page = (Path(__file__).parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8")
    engine = re.search(r"```cython\n# mygame/_engine.pyx\n(.*?)```", page, re.S)
    setup = re.search(r"```python\n# setup.py of the plug-in package\n(.*?)```", page, re.S)
    assert engine and setup
    (tmp_path / "mygame").mkdir()
    (tmp_path / "mygame" / "__init__.py").write_text("")
    (tmp_path / "mygame" / "_engine.pyx").write_text(engine.group(1))
    (tmp_path / "setup.py").write_text(setup.group(1))
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=600)
    code = ("import numpy as np; from mygame._engine import make_kernel; "
            "print(make_kernel(4).play(np.array([3, 1, 2, 0], np.uint8)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "(0, (3,), (0,), (0,))"


def _failing_kernel() -> PythonKernel:
    """A pure-Python game with a bug of its own: every game it plays raises."""
    def play_row(row: Any) -> tuple[int, Any, Any, Any]:
        raise ValueError(f"the game's own bug at card {int(row[0])}")

    return PythonKernel(play_row, 8, 1)


@pytest.mark.parametrize("call", ["sample", "play_current", "climb"])
def test_a_python_games_own_exception_reaches_the_search(call):
    # The compiled loops once turned it into "MemoryError: the game's scratch memory could
    # not be allocated", hiding the plug-in author's real error.
    deck = np.repeat(np.arange(2, dtype=np.uint8), 4)
    where = {"deck": deck, "segments": (4, 4), "unordered": (False, False),
             "fixed": (False, False), "seed": 1, "stream": 0}
    with pytest.raises(ValueError, match="the game's own bug at card"):
        if call == "sample":
            _generic.Sampler(_failing_kernel(), **where).play(10)
        else:
            climber = _generic.Climber(_failing_kernel(), **where)
            climber.reset(deck, 0, 0.0)
            if call == "play_current":
                climber.play_current()
            else:
                climber.climb(10, 5, 1.0, False, np.zeros(3, dtype=np.int64))


CAPPED_WAR = '''
import sys
from typing import ClassVar

from dealsearch.cli import main
from dealsearch.examples.war import War, play
from dealsearch.plugin import PythonKernel, register


class CappedWar(War):
    """War whose rules know no cycle: a game that repeats runs to the agreed limit."""

    name: ClassVar[str] = "cappedwar"
    title: ClassVar[str] = "Capped War"
    outcomes: ClassVar[tuple[str, ...]] = ("win", "limit")

    def kernel(self, options):
        def play_row(row):
            result = play(row, options)
            if result.outcome == "win":
                return 0, (result.measures["rounds"],), (), ()
            return 1, (options.max_rounds,), (), ()

        return PythonKernel(play_row, 4 * options.values, 1)


register(CappedWar())
sys.exit(main(["search", "random", "--game", "cappedwar", "--values", "2", "--deals", "3000",
               "--workers", "1", "--seed", "1", "--db", sys.argv[1]]))
'''


def test_a_game_without_a_cycle_outcome_shows_its_progress_on_a_terminal(tmp_path):
    # The progress bar (shown only when stderr is a terminal) once read the run's cycles
    # whether or not the game has that outcome: KeyError: 'cycle'.
    import fcntl
    import os
    import pty
    import struct
    import termios

    terminal, child_end = pty.openpty()
    # a terminal 100 columns wide (a new one has none: the bar would be drawn empty)
    fcntl.ioctl(child_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen([sys.executable, "-c", CAPPED_WAR, str(tmp_path / "log.sqlite")],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=child_end)
    os.close(child_end)
    shown = b""
    while True:   # read the terminal until the child closes it (EIO), or it would block
        try:
            chunk = os.read(terminal, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(terminal)
    out = process.communicate(timeout=120)[0].decode()
    text = shown.decode(errors="replace")
    assert process.returncode == 0, text
    assert "rounds/s" in text and "cycles" not in text   # the bar, without a cycle count
    assert "3,000 deals" in out
