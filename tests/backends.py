"""Backends the tests share (importable because tests/ is on sys.path)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from dealsearch.search.backends import Backend


class Stuck(Backend):
    """Tasks that run forever and never report, as on many workers sharing few cores: only
    a deadline or a signal ends the run. ``closed`` holds each close's ``wait``."""

    name = "stuck"

    def __init__(self, slots: int = 1) -> None:
        self._slots = slots
        self.closed: list[bool] = []

    @property
    def slots(self) -> int:
        return self._slots

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()
        return future

    def describe(self) -> str:
        return "stuck"

    def close(self, wait: bool = True) -> None:
        self.closed.append(wait)

    def wait_for_workers(self) -> None:
        pass
