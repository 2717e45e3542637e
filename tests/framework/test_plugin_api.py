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

import pytest

from dealsearch.cli import main
from dealsearch.examples.war import War, register_war
from dealsearch.log import RecordLog
from dealsearch.plugin import OptionSpec, register
from dealsearch.report import Group
from dealsearch.testing import CHECKS, Subject


@pytest.mark.parametrize("module", ["log", "game", "search", "report", "cli", "plugin",
                                    "testing"])
def test_importing_the_framework_loads_no_game(module):
    code = (f"import dealsearch.{module}, sys; "
            "print([m for m in sys.modules if '.games.' in m])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout  # a fresh interpreter: nothing imported yet
    assert out.strip() == "[]"


def test_the_default_game_is_loaded_when_its_play_is_asked_for(record):
    import dealsearch

    assert dealsearch.play(record).cards == 8344


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
