"""Where tasks run: worker processes on this machine (``local``) or a Dask cluster (``dask``).

A backend hands the runner concurrent.futures Futures for ``run_task(spec, task)`` and says how
many tasks it can run at once; the runner neither knows nor cares where they run. Workers only
compute: the runner's process alone absorbs reports and writes the log, whatever the backend.

>>> with open_backend("local", workers=1) as backend:
...     backend.submit(pow, 2, 10).result(), backend.slots
(1024, 1)
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from types import TracebackType
from typing import Any

from .. import interrupt
from ..text import unit

BACKENDS = ("local", "dask")
DASK_EXTRA = "pip install 'dealsearch[dask]'"
CONNECT_TIMEOUT = 3.0  # seconds: an unreachable scheduler is an input error, not a wait
LOOPBACK = "127.0.0.1"  # where a cluster dealsearch starts listens: this machine alone


class BackendError(Exception):
    """A backend cannot start (bad or unreachable scheduler address): one line for the user."""


class MissingDask(BackendError):
    """The ``dask`` backend was asked for but the ``distributed`` package is not installed."""


class Backend(ABC):
    """What the runner needs of a backend; ``with open_backend(...) as backend:`` closes it."""

    name: str

    @property
    @abstractmethod
    def slots(self) -> int:
        """Tasks that can run at once (0 while a cluster has no workers)."""

    @abstractmethod
    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` somewhere: a new, independent computation on every call."""

    @abstractmethod
    def describe(self) -> str:
        """Where the work runs, in a few words."""

    def cancel(self, futures: Collection[Future[Any]]) -> None:
        """Cancel those of ``futures`` whose task has not started (a running one goes on); the
        run submits nothing more after."""
        for future in futures:
            future.cancel()

    @abstractmethod
    def close(self, wait: bool = True) -> None:
        """Cancel what has not started and release the workers; without ``wait``, stop the
        running tasks too instead of letting them finish."""

    @abstractmethod
    def wait_for_workers(self) -> None:
        """Block until there is a worker to run tasks (Ctrl-C to give up)."""

    def explain(self, error: BaseException) -> str | None:
        """What a task's failure means, if the backend knows better than the task's own
        exception (a Dask scheduler gone cancels every task): one line, or None."""
        return None

    def warm_up(self, first: Callable[[], object]) -> None:  # noqa: B027  (optional)
        """Start the workers, if the backend starts them lazily, and wait until each has run
        ``first`` (the caller's, e.g. to import what its tasks use): the search's clock starts
        after this (a Dask cluster's workers are already up)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close(wait=error is None)   # stopped or failed: no task is waited for


PARENT_CHECK = 0.5  # seconds between a worker's checks that its coordinator still lives


def _worker_signals(coordinator: int) -> None:
    """Initialise a local worker process: it takes no Ctrl-C, and dies with the coordinator.

    Ctrl-C goes to the whole process group; the coordinator alone decides how to stop. A
    coordinator killed outright (SIGKILL, a crash) cannot tell its workers, who would wait for
    tasks forever: on Linux the kernel sends them SIGKILL (PR_SET_PDEATHSIG), and everywhere a
    watchdog thread ends the worker once its parent is no longer the coordinator.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):  # a closed terminal hangs up the group: the same
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    threading.Thread(target=_watch_parent, args=(coordinator,), name="dealsearch-parent-watch",
                     daemon=True).start()


PR_SET_PDEATHSIG = 1  # <sys/prctl.h>


def _watch_parent(coordinator: int) -> None:
    while os.getppid() == coordinator:  # also catches a coordinator gone before prctl ran
        time.sleep(PARENT_CHECK)
    os._exit(1)


def installed_version() -> str:
    """The dealsearch version installed here (run on each Dask worker to compare with ours)."""
    try:
        return version("dealsearch")
    except PackageNotFoundError:
        return "unknown"


def dask_setup(worker: object) -> None:
    """Dask preload hook, run in each worker process of a cluster dealsearch starts itself.

    Those processes share our process group, so Ctrl-C reaches them too; as with local workers
    the coordinator alone decides how to stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


class LocalBackend(Backend):
    """Worker processes on this machine (a ProcessPoolExecutor)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool = ProcessPoolExecutor(workers, initializer=_worker_signals,
                                        initargs=(os.getpid(),))
        self.warm = False
        self.processes: dict[int, Any] = {}   # the workers, once cancel() has shut the pool

    @property
    def slots(self) -> int:
        """The number of worker processes."""
        return self.workers

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` in a worker process."""
        return self.pool.submit(fn, *args)

    def wait_for_workers(self) -> None:
        """Local workers are there from the start."""

    def warm_up(self, first: Callable[[], object]) -> None:
        """Start every worker process (the pool starts them at the first tasks) and let each
        run ``first``, so that start-up is not counted as search time. A stop signal is raised
        between waits (:func:`~dealsearch.interrupt.results`), never inside the pool's
        start-up; once warm, nothing more is done."""
        if not self.warm:
            interrupt.results([self.pool.submit(first) for _ in range(self.workers)])
            self.warm = True

    def cancel(self, futures: Collection[Future[Any]]) -> None:
        """Cancel every task not started, in the pool's own thread: a future cancelled here
        while the workers die of the same signal (``kill`` to the group) would break that
        thread as it marks them failed (InvalidStateError)."""
        if futures:
            self.processes = dict(getattr(self.pool, "_processes", None) or self.processes)
            self.pool.shutdown(wait=False, cancel_futures=True)

    def describe(self) -> str:
        """E.g. '4 workers'."""
        return f"{self.workers} {unit('workers', self.workers)}"

    def close(self, wait: bool = True) -> None:
        """Drop queued tasks, let running ones finish (or kill them), stop the processes."""
        if not wait:
            # The executor has no public way to stop a running task: end its processes.
            workers = getattr(self.pool, "_processes", None) or self.processes
            for process in list(workers.values()):
                with contextlib.suppress(OSError):
                    process.kill()
        # Joined even after a kill (the pool's thread sees its workers gone at once): a thread
        # left running raced the interpreter's exit, which writes to its wake-up pipe as the
        # thread closes it (an OSError traceback after "interrupted").
        self.pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class DaskSecurity:
    """TLS for a Dask cluster: a certificate authority and this client's certificate and key
    (PEM files), as ``dask scheduler`` and ``dask worker`` take them (``--tls-ca-file``,
    ``--tls-cert``, ``--tls-key``). Not given, Dask's own configuration applies
    (``distributed.comm.tls`` in a Dask config file)."""

    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None

    def given(self) -> bool:
        """Whether any file is given."""
        return any((self.ca_file, self.cert, self.key))

    def security(self, distributed: Any) -> Any:
        """Dask's ``Security`` for a client (None: Dask's configuration)."""
        if not self.given():
            return None
        if not (self.ca_file and self.cert):
            raise BackendError("TLS needs --tls-ca-file and --tls-cert (and --tls-key, unless "
                               "the certificate file holds the key)")
        for path in filter(None, (self.ca_file, self.cert, self.key)):
            if not os.path.isfile(path):
                raise BackendError(f"no such certificate file: {path}")
        return distributed.Security(tls_ca_file=self.ca_file, tls_client_cert=self.cert,
                                    tls_client_key=self.key, require_encryption=True)


class DaskBackend(Backend):
    """A Dask cluster: the scheduler at ``scheduler``, or a LocalCluster of ``workers`` processes.

    Dask recomputes the tasks of a lost worker on another one; each submission is a distinct
    task (``pure=False``), so a resubmitted chunk is never taken for one already computed.

    A LocalCluster listens on this machine's loopback only, and starts its dashboard (on
    loopback too) only if asked: a port open to the network lets whoever reaches it run code
    here. ``security`` gives TLS certificates for a ``tls://`` scheduler.
    """

    name = "dask"
    SLOTS_REFRESH = 5.0  # seconds between asking the scheduler how many workers it has

    def __init__(self, scheduler: str | None = None, workers: int = 0,
                 timeout: float = CONNECT_TIMEOUT, security: DaskSecurity | None = None,
                 dashboard: bool = False) -> None:
        try:
            import dask
            import distributed
        except ImportError:
            raise MissingDask(f"the dask backend needs Dask: {DASK_EXTRA}") from None
        self.cluster: Any = None
        self.dashboard = dashboard and scheduler is None
        self._quiet = _QuietDask()
        try:
            self._start(dask, distributed, scheduler, workers, timeout, security, dashboard)
        except BaseException:
            self._quiet.restore()
            raise

    def _start(self, dask: Any, distributed: Any, scheduler: str | None, workers: int,
               timeout: float, security: DaskSecurity | None, dashboard: bool) -> None:
        if scheduler is None:
            # Process workers: the engine releases the GIL, but the strategies' Python does not.
            # The scheduler always serves HTTP: on loopback, at a free port, and without the
            # dashboard nothing but its health check (no logs, no call stacks).
            routes = {} if dashboard else {"distributed.scheduler.http.routes":
                                           ["distributed.http.health"]}
            with dask.config.set(routes):
                self.cluster = distributed.LocalCluster(
                    n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                    processes=True, host=LOOPBACK, preload=[__name__],
                    scheduler_kwargs={"dashboard": dashboard,
                                      "dashboard_address": f"{LOOPBACK}:0"},
                    # Its housekeeping (tasks cancelled at Ctrl-C, a worker restarted) is not
                    # news.
                    silence_logs=logging.ERROR)
            try:
                self.client = distributed.Client(self.cluster)
            except BaseException:
                self.cluster.close()  # else its worker processes outlive the failed start
                raise
        else:
            self.client = _connect(distributed, scheduler, timeout,
                                   (security or DaskSecurity()).security(distributed))
        self._address = str(self.client.scheduler.address)
        self.executor = self.client.get_executor(pure=False)
        self._slots = 0
        self._counted = -self.SLOTS_REFRESH
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise

    def _check_workers(self) -> None:
        """Every worker can import dealsearch, and the same version as ours (else one line)."""
        try:
            versions = self.client.run(installed_version)
        except Exception as error:
            raise BackendError(f"the Dask workers cannot run dealsearch ({type(error).__name__}: "
                               f"{error}); install it on every worker: {DASK_EXTRA}") from None
        ours = installed_version()
        for worker, theirs in sorted(versions.items()):
            if theirs != ours:
                raise BackendError(f"Dask worker {worker} has dealsearch {theirs}, this machine "
                                   f"{ours}: install the same version everywhere")

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return self._address


    def explain(self, error: BaseException) -> str | None:
        """A scheduler gone (stopped, or its machine unreachable) cancels every task: said
        as such, not as a worker's CancelledError."""
        if self.client.status == "running":
            return None
        return f"the Dask scheduler at {self.address} is gone (stopped or unreachable)"

    @property
    def slots(self) -> int:
        """Worker threads in the cluster (asked again every few seconds: workers may join)."""
        now = time.monotonic()
        if now - self._counted >= self.SLOTS_REFRESH or not self._slots:
            self._slots = sum(self.client.nthreads().values())
            self._counted = now
        return self._slots

    def wait_for_workers(self) -> None:
        """Block until the cluster has a worker (Ctrl-C to give up: a safe point a second)."""
        while True:
            interrupt.check()
            try:
                self.client.wait_for_workers(1, timeout=1.0)
                break
            except TimeoutError:
                continue
        self._counted = -self.SLOTS_REFRESH
        self._check_workers()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` on the cluster."""
        return self.executor.submit(fn, *args)

    def describe(self) -> str:
        """E.g. 'Dask at tcp://10.0.0.1:8786, 16 workers' (and the dashboard, if started)."""
        dashboard = f", dashboard {self.client.dashboard_link}" if self.dashboard else ""
        return f"Dask at {self.address}, {self.slots} {unit('workers', self.slots)}{dashboard}"

    def close(self, wait: bool = True) -> None:
        """Cancel our tasks and disconnect (and stop the LocalCluster, if we started it)."""
        self.executor.shutdown(wait=False)
        with contextlib.suppress(Exception):   # a scheduler gone: nothing to disconnect
            self.client.close(timeout=CONNECT_TIMEOUT)
        if self.cluster is not None:
            self.cluster.close()
        self._quiet.restore()


class _QuietDask:
    """While a backend is open, distributed's own loggers in this process keep quiet: a
    scheduler gone, a worker lost or a task cancelled at Ctrl-C is told by the search in
    one line (:meth:`DaskBackend.explain`), not by thirty lines of tracebacks."""

    def __init__(self) -> None:
        # Dask's configuration gives some of them their own level (distributed.client): each
        # is set; one created later inherits from "distributed".
        names = ["distributed", *(name for name in logging.root.manager.loggerDict
                                  if name.startswith("distributed."))]
        self.levels = {name: logging.getLogger(name).level for name in names}
        for name in names:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        """Back to the levels the loggers had."""
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


def _connect(distributed: Any, address: str, timeout: float, security: Any = None) -> Any:
    """A Client of the scheduler at ``address``, or BackendError within about ``timeout``.

    The Client's own timeout covers reaching the address, but a service that accepts the
    connection and never answers in Dask's protocol (a web server, the dashboard's port) can
    hold it forever: so the connection is made in a thread that we stop waiting for.
    """
    outcome: dict[str, Any] = {}
    lock = threading.Lock()

    def connect() -> None:
        try:
            secured = {} if security is None else {"security": security}  # else Dask's config
            client = distributed.Client(address, timeout=f"{timeout}s", **secured)
        except Exception as error:  # reported below, in the caller's thread
            outcome["error"] = error
            return
        with lock:
            if outcome.get("abandoned"):  # connected after we stopped waiting: not ours
                client.close()
            else:
                outcome["client"] = client

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    with lock:
        outcome.setdefault("abandoned", "client" not in outcome)
    error = outcome.get("error")
    if "client" in outcome:
        return outcome["client"]
    if isinstance(error, ValueError):
        raise BackendError(f"bad Dask scheduler address {address!r}: {error}")
    if error is None or isinstance(error, OSError | TimeoutError):
        raise BackendError(f"no Dask scheduler answered at {address} within {timeout:g} s")
    if address.startswith("tls://") and security is None:
        raise BackendError(f"the Dask scheduler at {address} speaks TLS: give --tls-ca-file, "
                           "--tls-cert and --tls-key (or set distributed.comm.tls in Dask's "
                           "configuration)")
    raise BackendError(f"no Dask scheduler at {address}: what answers there does not speak "
                       f"Dask ({type(error).__name__})")


def open_backend(name: str, workers: int, scheduler: str | None = None,
                 security: DaskSecurity | None = None, dashboard: bool = False) -> Backend:
    """A started backend. ``workers``: local processes, or the size of a LocalCluster that
    ``dask`` starts when no ``scheduler`` address is given (``dashboard``: with its
    dashboard, on loopback); ``security``: TLS files for a ``tls://`` scheduler.

    Raises :class:`BackendError` (or :class:`MissingDask`) when it cannot start.
    """
    if name == "local":
        if scheduler is not None:
            raise BackendError("a scheduler address is for the dask backend")
        return LocalBackend(workers)
    if name == "dask":
        return DaskBackend(scheduler, workers, security=security, dashboard=dashboard)
    raise BackendError(f"unknown backend {name!r}: choose from {', '.join(BACKENDS)}")
