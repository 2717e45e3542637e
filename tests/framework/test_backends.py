"""The backends release what they start, even when starting fails (no Dask cluster needed:
the ``distributed`` module is replaced by a stand-in that records what was closed)."""

from __future__ import annotations

import sys
import threading
import types
from typing import Any

import pytest

from dealsearch.search import backends
from dealsearch.search.backends import BackendError, DaskBackend


class Closable:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def stand_in(client: Any, cluster: Any = None) -> types.ModuleType:
    module = types.ModuleType("distributed")
    module.Client = client  # type: ignore[attr-defined]
    module.LocalCluster = cluster  # type: ignore[attr-defined]
    return module


def test_a_client_that_connects_after_the_timeout_is_closed(monkeypatch):
    late = Closable()
    gave_up = threading.Event()

    def slow_client(address: str, timeout: str) -> Closable:
        gave_up.wait(10)   # the caller stops waiting first, then the connection succeeds
        return late

    module = stand_in(slow_client)
    original_join = threading.Thread.join

    def short_join(self: threading.Thread, timeout: float | None = None) -> None:
        original_join(self, 0.05)  # the caller's wait runs out while the connection hangs

    monkeypatch.setattr(threading.Thread, "join", short_join)
    with pytest.raises(BackendError, match="no Dask scheduler answered"):
        backends._connect(module, "tcp://10.0.0.1:8786", 0.01)
    monkeypatch.undo()
    gave_up.set()   # now the connection succeeds, after the caller gave up
    (connecting,) = [t for t in threading.enumerate() if t.name == "dask-connect"]
    connecting.join(10)
    assert late.closed, "a client connected after the timeout was left open"


def test_a_cluster_is_closed_when_its_client_cannot_start(monkeypatch):
    cluster = Closable()

    def broken_client(*args: Any, **kwargs: Any) -> None:
        raise OSError("cannot reach the cluster it just started")

    monkeypatch.setitem(sys.modules, "distributed",
                        stand_in(broken_client, lambda **kwargs: cluster))
    with pytest.raises(OSError):
        DaskBackend(None, workers=1)
    assert cluster.closed, "the LocalCluster's workers would outlive a failed start"
