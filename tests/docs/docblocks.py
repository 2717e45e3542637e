"""The commands of the docs (``docs/**/*.md`` and ``README.md``) and how the tests run them.

Every fenced block needs a language. Blocks in ``console`` hold ``$ dealsearch ...`` lines,
each followed by the output it prints (compared exactly; a line ``...`` stands for any number
of lines; no output shown: only the exit status is checked). Blocks in ``sh`` hold one command a
line (only the exit status is checked). A command exits 0 unless its comment says otherwise,
e.g. ``# exit 2``. A block that must not run (it installs packages, starts a cluster, or is the
test command itself) carries ``<!-- not-run: REASON -->`` on the line before its fence.

Commands run through the real command line (``python -m dealsearch``), each page in its own
directory holding a small log (see :func:`make_log`). Searches and the factory run with their
budget cut (:func:`budgeted`): a command of the docs must parse, load its campaign and play,
not run for hours.

>>> split_comment('dealsearch verify "a # b"   # exit 2')
('dealsearch verify "a # b"', 'exit 2')
>>> budgeted(["search", "random", "--time", "8h", "--workers", "4"])
['search', 'random', '--deals', '3000', '--workers', '1', '--quiet']
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from dealsearch.search.hooks import TestHooks

from hooked_cli import hook_args

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
COMMAND_LANGS = {"console", "sh"}
OTHER_LANGS = {"text", "toml", "json", "python", "pycon", "sql", "cython"}
TIMEOUT = 120   # seconds a docs command may take before the test calls it stuck
HOOKED_CLI = ROOT / "tests" / "hooked_cli.py"   # the command line with a run's test hooks

FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>```+)(?P<lang>[\w+-]*)[^\n]*\n"
                   r"(?P<body>.*?)^(?P=indent)(?P=fence)[ ]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(?P<reason>[^>]*?)\s*-->\s*\Z")
EXIT = re.compile(r"\bexit (\d+)\b")


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, text and the reason it is not run, if any."""

    page: str
    line: int
    lang: str
    body: str
    not_run: str | None


@dataclass(frozen=True)
class Command:
    """One command of a block: the argv after ``dealsearch``, the output shown, the status."""

    page: str
    line: int
    text: str
    args: tuple[str, ...]
    expected: str | None
    status: int

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()]
        marker = NOT_RUN.search(before)
        body = textwrap.dedent(match["indent"] + match["body"]) if match["indent"] else \
            match["body"]
        found.append(Block(relative(page), before.count("\n") + 1, match["lang"], body,
                           marker["reason"] if marker else None))
    return found


def split_comment(line: str) -> tuple[str, str]:
    """``(command, comment)``: the comment starts at a ``#`` outside quotes after a space."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def dealsearch_args(command: str) -> tuple[str, ...] | None:
    """The arguments after ``dealsearch`` (or ``python -m dealsearch``); None for others."""
    argv = shlex.split(command)
    if argv[:1] == ["dealsearch"]:
        return tuple(argv[1:])
    if argv[:3] == ["python", "-m", "dealsearch"]:
        return tuple(argv[3:])
    return None


def commands(block: Block) -> list[Command]:
    """The commands of a ``console`` or ``sh`` block (ValueError on anything else in it)."""
    found: list[Command] = []
    current: list[str] | None = None

    def add(line: str, number: int, output: list[str] | None) -> None:
        command, comment = split_comment(line)
        args = dealsearch_args(command)
        if args is None:
            raise ValueError(f"{block.page}:{number}: {command!r} is not a dealsearch "
                             f"command: mark its block <!-- not-run: REASON -->")
        status = EXIT.search(comment)
        expected = "".join(f"{out}\n" for out in output) if output else None
        found.append(Command(block.page, number, command, args, expected,
                             int(status[1]) if status else 0))

    lines = block.body.splitlines()
    if block.lang == "sh":
        for i, line in enumerate(lines):
            if line.strip() and not line.lstrip().startswith("#"):
                add(line, block.line + 1 + i, None)
        return found
    pending: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            if pending:
                add(*pending, current)
            pending, current = (line[2:], block.line + 1 + i), []
        elif pending is None:
            if line.strip():
                raise ValueError(f"{block.page}:{block.line + 1 + i}: output before any "
                                 f"'$ ' command")
        else:
            assert current is not None
            current.append(line)
    if pending:
        add(*pending, current)
    return found


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks(page)]


def all_commands(blocks_: list[Block] | None = None) -> list[Command]:
    """Every command of every runnable block, page by page."""
    return [command for block in (blocks_ or all_blocks())
            if block.lang in COMMAND_LANGS and block.not_run is None
            for command in commands(block)]


def budgeted(args: list[str] | tuple[str, ...]) -> list[str]:
    """The command with a test-sized budget: searches play 3,000 games on one worker, the
    factory expands at most 5 cycles of 512 samples, ``bench`` times 50 deals; other commands
    unchanged."""
    args = list(args)
    if not args or args[0] not in ("search", "factory", "bench"):
        return args
    if args[0] == "search" and "--resume" in args:
        return args   # a resumed run keeps its own budget and workers (the log's run is small)
    drop = {"search": ("--time", "--deals", "--workers"),
            "factory": ("--time", "--nodes", "--samples"), "bench": ("--deals",)}[args[0]]
    kept: list[str] = []
    nodes = 1
    i = 0
    while i < len(args):
        if args[i] in drop:
            if args[i] == "--nodes":
                nodes = min(int(args[i + 1]), 5)
            i += 2
            continue
        if args[i] != "--quiet":
            kept.append(args[i])
        i += 1
    if args[0] == "search":
        return [*kept, "--deals", "3000", "--workers", "1", "--quiet"]
    if args[0] == "factory":
        return [*kept, "--nodes", str(nodes), "--samples", "512", "--quiet"]
    return [*kept, "--deals", "50"]


def run(args: list[str] | tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m dealsearch ARGS`` in ``cwd``, output captured."""
    env = dict(os.environ, COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "dealsearch", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def matches(expected: str, actual: str) -> bool:
    """Does ``actual`` read as ``expected``, each line ``...`` standing for any lines?"""
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n"
                      for line in expected.splitlines())
    return re.fullmatch(pattern, actual) is not None


LOG_RUNS = (   # the log every page's commands find (run ids 1 to 6)
    ["search", "random", "--deals", "20000", "--workers", "1", "--seed", "1", "--quiet"],
    ["search", "climb", "--deals", "20000", "--workers", "1", "--seed", "1", "--quiet"],
    None,   # run 3: a random search stopped by SIGTERM, for --resume 3
    ["search", "exhaustive", "--deck", "------JJQQK", "--workers", "1", "--quiet"],
    ["search", "random", "--game", "durak", "--players", "3", "--policy", "aggressive",
     "--deals", "20000", "--workers", "1", "--seed", "1", "--quiet"],
    ["search", "random", "--game", "spite", "--deals", "3000", "--workers", "1", "--seed",
     "1", "--quiet"],
)


def make_log(directory: Path) -> None:
    """A log of six runs in ``directory``: 1 random and 2 climb (BMN), 3 interrupted (to
    resume), 4 every deal of ``------JJQQK`` (42 cycles), 5 Durak and 6 Spite and Malice;
    and two files the pages use: ``deals.txt`` (deals to verify) and ``notes.txt``."""
    for args in LOG_RUNS:
        if args is None:
            _interrupted_run(directory)
        else:
            result = run(args, directory)
            assert result.returncode == 0, result.stderr
    (directory / "deals.txt").write_text(
        "# two published deals\n"
        "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---\n"
        "-J------Q------AAA-----QQ-/K----JA-----------KQ-K-JJK\n", encoding="utf-8")
    (directory / "notes.txt").write_text("not a log\n", encoding="utf-8")


def _interrupted_run(directory: Path) -> None:
    """Run 3: a random search stopped by SIGTERM at a known moment, whatever the machine's
    speed: it holds after telling its first find, committed (a run's test hook,
    :class:`~dealsearch.search.hooks.TestHooks`), and the signal ends the hold."""
    argv = [sys.executable, str(HOOKED_CLI), *hook_args(TestHooks(hold_after_finds=1)),
            "search", "random", "--deals", "1000000", "--workers", "1", "--seed", "3",
            "--quiet", "--json"]
    with subprocess.Popen(argv, cwd=directory, stdout=subprocess.PIPE, text=True) as search:
        assert search.stdout is not None
        assert "deal" in json.loads(search.stdout.readline())   # the first find: holding
        search.send_signal(signal.SIGTERM)
        search.communicate(timeout=TIMEOUT)
    assert search.returncode == 128 + signal.SIGTERM   # interrupted, resumable


def copy_log(source: Path, target: Path) -> None:
    for path in source.iterdir():
        shutil.copy(path, target / path.name)
