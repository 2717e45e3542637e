"""Dask safe by default: a cluster dealsearch starts opens no port beyond loopback, a TLS
scheduler works from the recipe of docs/dask.md ("Start a cluster and search", on loopback),
and a scheduler gone is one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealsearch.cli import main

from conftest import run_cli, start_cli

pytestmark = pytest.mark.slow  # each test starts a Dask cluster

psutil = pytest.importorskip("psutil")
pytest.importorskip("distributed")
DASK = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker"]
LOOPBACK = {"127.0.0.1", "::1"}


def listening() -> set[tuple[str, int]]:
    """The addresses this process and its children listen on."""
    me = psutil.Process()
    found = set()
    for process in [me, *me.children(recursive=True)]:
        try:
            connections = process.net_connections(kind="inet")
        except psutil.Error:   # a child gone meanwhile
            continue
        found |= {(c.laddr.ip, c.laddr.port) for c in connections
                  if c.status == psutil.CONN_LISTEN}
    return found


def test_backend_dask_opens_no_port_beyond_loopback(tmp_path, capsys, monkeypatch):
    import dealsearch.commandline.service as search

    before = listening()
    opened: list[set[tuple[str, int]]] = []
    real_open = search.open_backend

    def open_and_look(*args: Any, **kwargs: Any) -> Any:
        backend = real_open(*args, **kwargs)
        opened.append(listening() - before)
        return backend

    monkeypatch.setattr(search, "open_backend", open_and_look)
    assert main(["search", "random", "--backend", "dask", "--workers", "2", "--deals", "20000",
                 "--seed", "1", "--db", str(tmp_path / "log.sqlite"), "--quiet"]) == 0
    new = opened[0]
    # the scheduler, its HTTP server, and each worker and its nanny
    assert len(new) >= 4
    assert {ip for ip, _ in new} <= LOOPBACK, new


def certificate(folder: Path) -> list[str]:
    """A self-signed certificate and its key, as docs/dask.md makes them: the --tls-*
    options of every command of the recipe."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate with")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=dealsearch-cluster", "-keyout", "key.pem", "-out",
                    "cert.pem"], cwd=folder, check=True, capture_output=True, timeout=60)
    return ["--tls-ca-file", "cert.pem", "--tls-cert", "cert.pem", "--tls-key", "key.pem"]


def started(command: list[str], folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def scheduler_address(folder: Path, scheduler: subprocess.Popen[bytes]) -> str:
    """The address the scheduler wrote to its scheduler file, once it is up."""
    path = folder / "scheduler.json"
    deadline = time.monotonic() + 60
    while not path.exists() or not path.read_text():
        assert scheduler.poll() is None, "the scheduler did not start"
        assert time.monotonic() < deadline, "the scheduler did not start within 60 s"
        time.sleep(0.1)
    return str(json.loads(path.read_text())["address"])


@pytest.fixture
def cluster(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, list[str]]]:
    """A scheduler and a worker on loopback, started as docs/dask.md says (TLS, if the test
    is parametrized with ``tls``): (the scheduler's address, the --tls-* options)."""
    tls = certificate(tmp_path) if getattr(request, "param", "") == "tls" else []
    protocol = ["--protocol", "tls"] if tls else []
    scheduler = started([*DASK, "--host", "127.0.0.1", "--port", "0", *protocol, *tls,
                         "--no-dashboard", "--scheduler-file", "scheduler.json"], tmp_path)
    worker = None
    try:
        address = scheduler_address(tmp_path, scheduler)
        worker = started([*WORKER, address, "--nthreads", "1", "--nworkers", "1", "--host",
                          "127.0.0.1", "--no-dashboard", *tls], tmp_path)
        yield address, tls
    finally:
        if worker is not None:
            stop(worker)
        stop(scheduler)


@pytest.mark.parametrize("cluster", ["tls"], indirect=True)
def test_a_tls_scheduler_works_from_the_docs_recipe(cluster, tmp_path):
    address, tls = cluster
    assert address.startswith("tls://127.0.0.1:")
    done = run_cli("search", "exhaustive", "--deck", "------JJQQK", "--scheduler", address,
                   *tls, "--db", "log.sqlite", "--json", "--quiet", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["deals"] == 13_860 and summary["outcomes"]["cycle"] == 42
    # without the certificates: one line that says what to give
    refused = run_cli("search", "exhaustive", "--deck", "------JJQQK", "--scheduler", address,
                      "--db", "other.sqlite", cwd=tmp_path, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr == (f"dealsearch: error: the Dask scheduler at {address} speaks TLS: "
                              "give --tls-ca-file, --tls-cert and --tls-key (or set "
                              "distributed.comm.tls in Dask's configuration)\n")


def test_a_scheduler_gone_ends_the_search_in_one_line_with_its_resume_command(tmp_path):
    scheduler = started([*DASK, "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                         "--scheduler-file", "scheduler.json"], tmp_path)
    worker = None
    search = None
    try:
        address = scheduler_address(tmp_path, scheduler)
        worker = started([*WORKER, address, "--nthreads", "1", "--nworkers", "1", "--host",
                          "127.0.0.1", "--no-dashboard"], tmp_path)
        db = tmp_path / "log.sqlite"
        search = start_cli("search", "random", "--scheduler", address, "--seed", "1",
                           "--db", str(db), "--quiet")
        assert search.stdout is not None and search.stderr is not None
        assert search.stdout.readline().startswith("starting run 1: ")
        stop(scheduler)
        _, err = search.communicate(timeout=120)
    finally:
        for process in (search, worker):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        stop(scheduler)
    assert search.returncode == 1
    *before, last = err.splitlines()   # (a line while the worker had not joined yet)
    assert all(line.startswith("waiting for a worker to join") for line in before), err
    assert last == (f"dealsearch: error: run 1 failed: the Dask scheduler at {address} is gone "
                    f"(stopped or unreachable); continue with: dealsearch search --resume 1 "
                    f"--db {db} --backend dask --scheduler {address}")
