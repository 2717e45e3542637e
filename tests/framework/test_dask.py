"""Searches on a Dask cluster: the same counts, finds and log as on local worker processes."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from dealsearch.cli import main
from dealsearch.log import Find, RecordLog
from dealsearch.search.backends import DaskBackend
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find, run_cli, search_json

pytestmark = pytest.mark.slow  # each test starts a Dask cluster

SMALL_DECK = "------JJQQK"          # 13,860 deals, 42 of them never end
BIG_DECK = "------------JJQQKK"     # 1,670,760 deals in 34 shards: long enough to kill a worker


def new_cluster() -> Any:
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=":0")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a two-worker cluster of processes, as `dask worker` would start."""
    with new_cluster() as cluster:
        yield cluster.scheduler_address


def same_results(one: dict, other: dict) -> None:
    for key in ("deals", "cards", "outcomes", "best"):
        assert one[key] == other[key], key


def test_random_search_on_a_dask_cluster_gives_the_local_results(capsys, tmp_path, scheduler):
    argv = ["random", "--deals", "300000", "--seed", "11", "--workers", "2"]
    _, local = search_json(capsys, *argv, "--db", str(tmp_path / "local.sqlite"))
    db = str(tmp_path / "dask.sqlite")
    finds, on_dask = search_json(capsys, *argv, "--db", db, "--backend", "dask",
                                 "--scheduler", scheduler)
    same_results(on_dask, local)
    assert on_dask["deals"] == 300000 == sum(on_dask["outcomes"].values())
    # The client wrote the log: every printed find, the counters, status done.
    log = sqlite3.connect(db)
    assert {f["deal"] for f in finds} == {row[0] for row in log.execute("SELECT deal FROM finds")}
    assert log.execute("SELECT status, deals, workers FROM runs").fetchall() == [
        ("done", 300000, 2)]


def test_exhaustive_search_on_a_cluster_it_starts_gives_identical_counts_and_cycles(
        capsys, tmp_path):
    pytest.importorskip("distributed")
    argv = ["exhaustive", "--deck", SMALL_DECK, "--workers", "2"]
    local_finds, local = search_json(capsys, *argv, "--db", str(tmp_path / "local.sqlite"))
    dask_finds, on_dask = search_json(capsys, *argv, "--db", str(tmp_path / "dask.sqlite"),
                                      "--backend", "dask")  # no --scheduler: a LocalCluster
    same_results(on_dask, local)
    assert on_dask["deals"] == 13860 and on_dask["outcomes"]["cycle"] == 42

    def cycles(finds: list[dict]) -> set[str]:
        return {f["deal"] for f in finds if f["outcome"] == "cycle"}

    assert len(cycles(dask_finds)) == 42 and cycles(dask_finds) == cycles(local_finds)


def run_collecting(spec: SearchSpec, db: str, backend: DaskBackend | None = None,
                   also: Any = None) -> tuple[Any, set[str]]:
    """Run a search through the Runner API; the summary and the cycles it found."""
    cycles: set[str] = set()

    def on_find(find: Find) -> None:
        if find.outcome == "cycle":
            cycles.add(find.deal)
        if also is not None:
            also(find)

    log = RecordLog(db)
    summary = Runner(spec, log, on_find=on_find, progress=False, backend=backend).run()
    log.close()
    return summary, cycles


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = SearchSpec("exhaustive", game="beggar", game_options={"deck": BIG_DECK}, workers=2)
    expected, expected_cycles = run_collecting(spec, str(tmp_path / "local.sqlite"))
    marker = tmp_path / "killed"

    class KillAtSecondTask(distributed.WorkerPlugin):
        """The first worker to start its second task dies there (kill -9), once per cluster."""

        def setup(self, worker: Any) -> None:
            self.worker, self.started = worker, 0

        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if finish != "executing":
                return
            self.started += 1
            if self.started == 2 and not marker.exists():
                marker.write_text(self.worker.address)
                os.kill(os.getpid(), signal.SIGKILL)

    with new_cluster() as cluster, DaskBackend(cluster.scheduler_address) as backend:
        backend.client.register_plugin(KillAtSecondTask())
        summary, cycles = run_collecting(spec, str(tmp_path / "dask.sqlite"), backend)
        assert marker.exists(), "a worker was killed while it ran a task"
        assert marker.read_text() not in backend.client.nthreads()

    assert summary.status == "done"
    assert (summary.deals, summary.total, summary.outcomes, summary.best) == (
        expected.deals, expected.total, expected.outcomes, expected.best)
    assert summary.deals == 1670760 and cycles == expected_cycles and len(cycles) == 15


def test_an_interrupted_dask_run_resumes_to_the_exact_budget(capsys, tmp_path, scheduler):
    db = str(tmp_path / "log.sqlite")
    spec = SearchSpec("random", game="beggar", deals=1_200_000, seed=5, workers=2)

    ctrl_c = ctrl_c_after_first_find()

    with DaskBackend(scheduler) as backend:
        interrupted, _ = run_collecting(spec, db, backend, also=ctrl_c)
    assert interrupted.status == "interrupted" and interrupted.deals < spec.deals

    _, resumed = search_json(capsys, "--resume", str(interrupted.run_id), "--db", db,
                             "--backend", "dask", "--scheduler", scheduler)
    _, fresh = search_json(capsys, "random", "--deals", "1200000", "--seed", "5", "--workers",
                           "2", "--db", str(tmp_path / "fresh.sqlite"))
    assert resumed["run_id"] == interrupted.run_id
    same_results(resumed, fresh)
    assert resumed["deals"] == 1_200_000 == sum(resumed["outcomes"].values())


def test_an_unreachable_scheduler_is_one_line_and_exit_2_within_seconds(tmp_path):
    pytest.importorskip("distributed")
    db = tmp_path / "log.sqlite"
    # The bound is the subprocess timeout: without the connect timeout it would wait forever.
    search = run_cli("search", "random", "--deals", "1000", "--backend", "dask",
                     "--scheduler", "tcp://127.0.0.1:1", "--db", str(db), timeout=60)
    assert search.returncode == 2
    assert search.stderr.splitlines() == [
        "dealsearch: error: no Dask scheduler answered at tcp://127.0.0.1:1 within 3 s"]
    assert not db.exists(), "no run is started without a backend"


def test_the_dask_backend_without_dask_says_what_to_install(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", "--deals", "1000", "--backend", "dask",
                 "--db", str(db)]) == 2
    assert capsys.readouterr().err == (
        "dealsearch: error: --backend dask needs Dask: pip install 'dealsearch[dask]'\n")
    assert not db.exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "local", "--scheduler", "tcp://127.0.0.1:8786"],
     "--scheduler needs --backend dask"),
    (["--scheduler", "nonsense"], "bad Dask scheduler address 'nonsense'"),
    (["--tls-cert", "cert.pem"], "are for a tls:// --scheduler"),
    (["--dashboard"], "--dashboard is for the cluster --backend dask starts"),
    (["--scheduler", "tls://127.0.0.1:1", "--tls-cert", "cert.pem"],
     "TLS needs --tls-ca-file and --tls-cert"),
    (["--scheduler", "tls://127.0.0.1:1", "--tls-ca-file", "missing.pem", "--tls-cert",
      "missing.pem"], "no such certificate file: missing.pem"),
])
@pytest.mark.parametrize("command", [["search", "random"], ["factory", "--nodes", "1"]])
def test_bad_backend_options_give_one_line_and_exit_2(capsys, tmp_path, argv, message,
                                                      command):
    if "--backend" not in argv:
        pytest.importorskip("distributed")
    assert main([*command, "--db", str(tmp_path / "log.sqlite"), *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
