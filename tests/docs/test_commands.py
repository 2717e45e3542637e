"""Every command the docs and the README show runs, and prints what they say it prints."""

from __future__ import annotations

import doctest
import tomllib
from pathlib import Path

import pytest
from docblocks import (
    COMMAND_LANGS,
    OTHER_LANGS,
    PAGES,
    ROOT,
    all_blocks,
    all_commands,
    budgeted,
    copy_log,
    make_log,
    matches,
    relative,
    run,
)
from test_rules_examples import is_rules_example

BLOCKS = all_blocks()
COMMANDS = [command for command in all_commands(BLOCKS) if not is_rules_example(command)]
MACHINE_PATHS = ("/work/", "/root/", "/home/", "/Users/", "/tmp/")


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("log")
    make_log(directory)
    return directory


@pytest.fixture(scope="session")
def page_dirs(tmp_path_factory: pytest.TempPathFactory, log_dir: Path) -> dict[str, Path]:
    """page -> a directory with its own copy of the log, made on first use."""
    class Dirs(dict[str, Path]):
        def __missing__(self, page: str) -> Path:
            directory = tmp_path_factory.mktemp(page.replace("/", "-"))
            copy_log(log_dir, directory)
            self[page] = directory
            return directory
    return Dirs()


PASSED: set[tuple[str, ...]] = set()   # commands shown without output that already ran


def repeatable(command) -> bool:
    """A command shown without output whose run does not depend on the page's earlier ones."""
    return command.expected is None and "--resume" not in command.args


@pytest.mark.parametrize("command", COMMANDS, ids=[c.id for c in COMMANDS])
def test_docs_command(command, page_dirs):
    args = tuple(budgeted(command.args))
    if repeatable(command) and (*args, str(command.status)) in PASSED:
        return   # the same command, shown on another page, ran already
    result = run(args, page_dirs[command.page])
    output = result.stdout + result.stderr
    assert result.returncode == command.status, f"{command.text}\n{output}"
    if command.expected is not None:
        assert matches(command.expected, output), \
            f"{command.text}\n--- the page shows:\n{command.expected}--- it prints:\n{output}"
    if repeatable(command):
        PASSED.add((*args, str(command.status)))


NOT_RUN = [block for block in BLOCKS if block.not_run is not None]


@pytest.mark.parametrize("block", NOT_RUN, ids=[f"{b.page}:{b.line}" for b in NOT_RUN])
def test_not_run_blocks_say_why(block):
    assert len(block.not_run) >= 10, "say why the block is not run"
    pytest.skip(f"not run: {block.not_run}")


def test_few_blocks_are_not_run():
    # 17: the two of Dask's secured cluster (certificates, several machines) run on loopback
    # in tests/framework/test_dask_security.py instead
    assert len(NOT_RUN) <= 17, [f"{b.page}:{b.line}" for b in NOT_RUN]


def test_every_block_names_its_language():
    unknown = [f"{b.page}:{b.line} {b.lang!r}" for b in BLOCKS
               if b.lang not in COMMAND_LANGS | OTHER_LANGS]
    assert not unknown, "fenced blocks need a language (console, sh, text, toml, ...)"


def test_every_command_block_is_run_or_says_why():
    assert len(COMMANDS) > 50
    for block in BLOCKS:
        if block.lang in COMMAND_LANGS and block.not_run is None:
            assert all_commands([block]), f"{block.page}:{block.line} holds no command"


TOML = [block for block in BLOCKS if block.lang == "toml"]


@pytest.mark.parametrize("block", TOML, ids=[f"{b.page}:{b.line}" for b in TOML])
def test_toml_blocks_parse(block):
    assert tomllib.loads(block.body)


PYCON = [block for block in BLOCKS if block.lang == "pycon"]


@pytest.mark.parametrize("block", PYCON, ids=[f"{b.page}:{b.line}" for b in PYCON])
def test_python_examples_print_what_they_show(block):
    test = doctest.DocTestParser().get_doctest(block.body, {}, block.page, block.page,
                                               block.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_no_path_of_a_particular_machine(page):
    text = page.read_text(encoding="utf-8")
    assert not [path for path in MACHINE_PATHS if path in text]


def test_mkdocs_config_names_no_machine_path():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert not [path for path in MACHINE_PATHS if path in text]
