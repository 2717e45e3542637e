"""Readers alike: ``records``, ``records --verify``, ``report`` and ``status`` read a log on
read-only storage whatever files lie beside it (none, a ``-wal`` holding the last commits, a
``-wal`` and its ``-shm``), and print what they print from the log on writable storage;
``search`` on such a log says that it cannot write there."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

SPEC = {"strategy": "random", "game": "beggar", "seed": 3, "workers": 1, "deals": 300_000,
        "game_options": {"deck": "------JJQQK"}}
COMMANDS = [["records"], ["records", "--verify"], ["records", "--cycles"],
            ["status", "--all"], ["report", "--out", "{out}/report"]]


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders holding the same log: closed (the log alone), and copied while its search
    still had it open (with its -wal, with and without the -shm)."""
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a read-only mount here (unshare -rm)")
    root = tmp_path_factory.mktemp("readers")
    folders = {name: root / name for name in ("alone", "wal", "wal-shm")}
    for folder in folders.values():
        folder.mkdir()
    db = root / "log.sqlite"
    with RecordLog(db) as log:
        log.db.execute("PRAGMA wal_autocheckpoint = 0")  # every commit stays in the -wal
        Runner(SearchSpec.from_json(SPEC), log, progress=False).run()
        assert Path(f"{db}-wal").stat().st_size > 0
        for name, files in (("wal", ["", "-wal"]), ("wal-shm", ["", "-wal", "-shm"])):
            for suffix in files:
                shutil.copyfile(f"{db}{suffix}", folders[name] / f"log.sqlite{suffix}")
    shutil.copyfile(db, folders["alone"] / "log.sqlite")  # closed: all in the log itself
    folders["writable"] = root / "writable"   # the same, read where it can be written
    folders["writable"].mkdir()
    shutil.copyfile(db, folders["writable"] / "log.sqlite")
    return folders


def read_only(folder: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``dealsearch ARGV --db LOG`` with ``folder`` mounted read-only."""
    mounted = cwd / "mounted"
    mounted.mkdir(exist_ok=True)
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "dealsearch", *argv,
                                                "--db", f"{mounted}/log.sqlite"])
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c",
         f"mount --bind -o ro {folder} {mounted} && touch {mounted}/x 2>/dev/null; "
         f"test ! -e {mounted}/x && {command}"],
        capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("files", ["alone", "wal", "wal-shm"])
def test_every_reader_reads_a_log_on_read_only_storage(storage, tmp_path, files):
    before = {p.name: p.read_bytes() for p in storage[files].iterdir()}
    for argv in COMMANDS:
        argv = [a.replace("{out}", str(tmp_path)) for a in argv]
        expected = subprocess.run(
            [sys.executable, "-m", "dealsearch", *argv, "--db",
             str(storage["writable"] / "log.sqlite")],
            capture_output=True, text=True, timeout=120, cwd=tmp_path)
        done = read_only(storage[files], argv, tmp_path)
        assert done.returncode == 0, (argv, done.stderr)
        assert done.stdout.replace(f"{tmp_path}/mounted", "LOG") == \
            expected.stdout.replace(str(storage["writable"]), "LOG"), argv
        if argv == ["records"]:   # the log's content, not an empty log's
            with RecordLog(storage["writable"] / "log.sqlite", readonly=True) as log:
                wins = sum(find["outcome"] != "cycle" for find in log.finds())
            assert wins and f"the longest of {wins} finished games found" in done.stdout
    assert {p.name: p.read_bytes() for p in storage[files].iterdir()} == before


def test_a_search_on_a_read_only_log_says_it_cannot_write_there(storage, tmp_path):
    resume = read_only(storage["alone"], ["search", "--resume", "1"], tmp_path)
    new = read_only(storage["alone"], ["search", "random", "--deals", "1000"], tmp_path)
    for done in (resume, new):
        assert done.returncode == 2
        assert done.stderr == (f"dealsearch: error: cannot write the log {tmp_path}/mounted/"
                               f"log.sqlite: the file is read-only\n")
