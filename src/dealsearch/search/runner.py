"""Run a search: hand out tasks to a backend's workers, log finds, checkpoint, report.

The coordinator (this process) is the only writer of the log, whatever the backend (local
processes or a Dask cluster). It absorbs every report that is ready and, at most every
``COMMIT_SECONDS``, commits the new finds of all of them together with the run's counters and
checkpoint in one transaction, and only then tells anyone: so what was printed is on disk, and
a resumed run starts from the last commit. Tasks are sized by the workers' measured speed to
take about ``TASK_SECONDS`` each (smaller as a ``--time`` budget nears its end), so a thousand
fast workers send a coordinator hundreds of reports a second, not tens of thousands; a task
of any size does the same work as its units one by one, so the size never changes a result.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from tqdm import tqdm

from .. import interrupt
from ..game import CycleCatalogue, GameResult, cycle_id, finished, throughput_measure
from ..interrupt import POLL, deferred
from ..log import Find, ManagedRun, RecordLog
from ..log.ownership import RENEW_SECONDS, Owner, claim, give_back, let_go
from ..log.schema import LogWriteFailed
from ..projection import hours_unit, live_projection
from ..strategies import Strategy, get_strategy
from ..text import duration, progress_stream
from .backends import Backend, LocalBackend
from .base import Report, Task, bin_widths, score
from .hooks import TestHooks
from .spec import SearchSpec

SAMPLE_SECONDS = 10.0  # throughput is logged at least this often (and at the end)
PROJECTION_SECONDS = 5.0  # the progress line's projection is refitted this often
COMMIT_SECONDS = 0.5   # finds and checkpoint are committed at most this often (and at the end)
TASK_SECONDS = 1.0     # a task is sized to take about this long on a worker ...
MAX_UNITS = 256        # ... at most this many units of its strategy (random: 100,000 deals)
QUEUE_PER_SLOT = 2     # tasks in flight per worker: one running, one waiting
DRAIN_SECONDS = 1.0    # after Ctrl-C or the --time budget, how long the tasks running may
                       # take to report (the rest are redone on --resume, or dropped)


class _WorkerFailed(Exception):
    """A task raised in its worker (or its worker died): the run stops as ``failed``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(describe_failure(error))


class _PlaysDiffer(_WorkerFailed):
    """A task played twice (``--verify-blocks``) gave two different reports."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)


def _fingerprint(report: Report) -> tuple[Any, ...]:
    """What two plays of one task must agree on: counts, histograms, finds (not timings)."""
    return (report.deals, report.total, list(report.outcomes),
            {m: np.asarray(h).tolist() for m, h in report.histograms.items()},
            [(deal, r.outcome, dict(r.measures), dict(r.entry), dict(r.period), dict(r.details))
             for deal, r in report.finds])


def _compare_plays(task: Task, first: Report, second: Report, device: str = "cpu") -> None:
    """Raise :class:`_PlaysDiffer`, naming the task's shards, if two plays differ (the first
    on ``device``; the second on the CPU)."""
    if _fingerprint(first) == _fingerprint(second):
        return
    where = f"task {task.key}"
    if "start" in task.payload:
        start = task.payload["start"]
        where = (f"the shards from {task.key} (ranks {start:,} to "
                 f"{start + task.payload['deals'] - 1:,})")
    on, wrong = ("two workers", "a worker") if device == "cpu" else \
        (f"--device {device} and the CPU", "the device")
    raise _PlaysDiffer(f"{where} gave different results on {on} ({first.deals:,} deals, "
                       f"outcomes {first.outcomes} against {second.outcomes}): {wrong} plays "
                       "wrongly")


def describe_failure(error: BaseException) -> str:
    """A worker's exception in one line, e.g. 'a worker raised OverflowError: ...'."""
    name = type(error).__name__
    if name == "KilledWorker":  # distributed's: not imported here, Dask is optional
        return ("the Dask workers running one task died again and again (KilledWorker): "
                "see the workers' logs")
    text = " ".join(str(error).split())
    return f"a worker raised {name}: {text}" if text else f"a worker raised {name}"


def warm_worker() -> None:
    """A worker's first task: running it imports this module, and with it the strategies, the
    engines and the games every task uses."""


def run_task(spec: SearchSpec, task: Task) -> Report:
    """Worker side: run one task of the spec's strategy; time it and name its cycles."""
    began = time.perf_counter()
    report = get_strategy(spec.strategy).work(spec, task)
    game, options = spec.plugin, spec.options
    if isinstance(game, CycleCatalogue):
        for deal, result in report.finds:
            if result.outcome == "cycle" and deal not in report.cycles:
                key = game.cycle_key(game.parse(deal, options), options)
                report.cycles[deal] = (key, cycle_id(game, key, options))
    report.seconds = time.perf_counter() - began
    return report


def _deals(task: Task) -> int:
    """The deals (or games) a task plays, if it says."""
    return int(task.payload.get("deals") or task.payload.get("games") or 0)


def _played(strategy: Strategy) -> list[list[int]] | None:
    """The ranks a strategy that numbers its deals has played (exhaustive), else None."""
    played = getattr(strategy, "played", None)
    return played() if played is not None else None


def _report(future: Future[Report]) -> Report:
    try:
        return future.result()
    except Exception as error:  # raised in the worker, or the worker died ...
        interrupt.check()   # ... of the signal that stops this run too (kill to the group)
        raise _WorkerFailed(error) from error


@dataclass
class RunState:
    """The counters of a run, as stored with its checkpoint."""

    outcome_names: tuple[str, ...]
    deals: int = 0
    total: int = 0     # of the game's :func:`~dealsearch.game.throughput_measure`
    outcomes: dict[str, int] = field(default_factory=dict)
    best: dict[str, Any] | None = None   # deal and measures of the longest finished game
    seconds: float = 0.0
    histograms: dict[str, dict[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.outcomes = {name: int(self.outcomes.get(name, 0)) for name in self.outcome_names}
        self._unmerged: dict[str, Any] = {}   # histograms of reports since the last merge

    def add(self, report: Report) -> None:
        """Count a report's games."""
        self.deals += report.deals
        self.total += report.total
        for code, name in enumerate(self.outcome_names):
            self.outcomes[name] += report.outcomes[code]
        for measure, counts in report.histograms.items():
            unmerged = self._unmerged.get(measure)
            if unmerged is None or len(unmerged) != len(counts):
                self._merge(measure)
                self._unmerged[measure] = np.array(counts, dtype=np.int64)
            else:
                unmerged += counts

    def _merge(self, measure: str) -> None:
        counts = self._unmerged.pop(measure, None)
        if counts is None:
            return
        merged = self.histograms.setdefault(measure, {})
        for b in np.flatnonzero(counts).tolist():
            merged[b] = merged.get(b, 0) + int(counts[b])

    def merged_histograms(self) -> dict[str, dict[int, int]]:
        """Every measure's histogram, {bin: count}, reports so far included."""
        for measure in list(self._unmerged):
            self._merge(measure)
        return self.histograms


@dataclass
class Summary:
    """What a finished (or interrupted) run prints last."""

    run_id: int
    strategy: str
    deals: int
    total: int                  # of the throughput measure, over every session
    outcomes: dict[str, int]
    best: dict[str, Any] | None
    seconds: float              # the search's own time, over every session (rates use it)
    status: str                 # done | interrupted | failed
    error: str | None = None    # failed: what went wrong, in one line
    signal: int | None = None   # interrupted: the signal that stopped it (SIGINT, SIGTERM)
    wall: float | None = None   # this session's wall time, workers' start-up included
    measure: str = ""           # the game's throughput measure, which ``total`` sums
    checked: int | None = None  # a device run: chunks replayed on the CPU, this session
    ranks: list[list[int]] | None = None   # exhaustive: the ranks played, [start, stop) spans

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` summary line (with ``ranks`` for an exhaustive search)."""
        return {"run_id": self.run_id, "strategy": self.strategy, "deals": self.deals,
                self.measure: self.total, "outcomes": self.outcomes, "best": self.best,
                "seconds": round(self.seconds, 3),
                "wall_seconds": None if self.wall is None else round(self.wall, 3),
                **({} if self.checked is None else {"checked_chunks": self.checked}),
                **({} if self.ranks is None else {"ranks": self.ranks})}


class Runner:
    """One search run against one log. ``on_find`` and ``on_note`` receive what to report.

    ``backend`` runs the tasks (default: local worker processes, started by :meth:`run`); the
    caller closes a backend it passes in. A new run records the number of workers its work is
    cut for (``workers=0`` becomes the backend's count), so a resume on another machine or
    another backend cuts it the same way. ``clock`` and ``hooks`` are for tests (default:
    time.monotonic, and no :class:`~dealsearch.search.hooks.TestHooks`).

    The runner owns its run from here to the end of :meth:`run` (:mod:`dealsearch.log.ownership`):
    resuming a run that a live process plays raises :class:`~dealsearch.log.ownership.RunOwned`.
    Whoever resumes a run checks the log first (:meth:`RecordLog.refuse_damage`, as ``search
    --resume`` does before it reads the run): the integrity check reads every page, once.
    """

    def __init__(self, spec: SearchSpec, log: RecordLog, run_id: int | None = None,
                 on_find: Callable[[Find], None] = lambda find: None,
                 on_note: Callable[[str], None] = lambda note: None,
                 progress: bool = True, backend: Backend | None = None,
                 clock: Callable[[], float] = time.monotonic, target: int | None = None,
                 hooks: TestHooks | None = None) -> None:
        if run_id is None and spec.workers == 0:
            spec = replace(spec, workers=(backend.slots if backend else 0) or spec.worker_count)
        self.spec = spec
        self.log = log
        self.on_find = on_find
        self.on_note = on_note
        self.show_progress = progress
        self.backend = backend
        self.game = spec.plugin
        self.widths = bin_widths(self.game)
        self.full_options = spec.options.to_json()
        self.finished = finished(self.game)
        self.owner = Owner.this_process()
        found: dict[str, Any] | None = None
        if run_id is not None:
            found = log.run(run_id)
            # before its checkpoint is read: the owner may be writing it
            claim(log.db, run_id, self.owner)
        try:
            if run_id is None:
                checkpoint: dict[str, Any] = {}
                self.state = RunState(self.game.outcomes)
            else:
                run = log.run(run_id)
                assert run is not None
                self.run_id = run_id
                checkpoint = run["checkpoint"]
                self.state = RunState(self.game.outcomes, run["deals"], self._total(run),
                                      run["outcomes"], checkpoint.get("best"), run["seconds"],
                                      {m: log.histogram([run_id], m)[1] for m in self.widths})
            self.strategy: Strategy = get_strategy(spec.strategy)(
                spec, checkpoint.get("strategy", {}))
        except BaseException:
            if run_id is not None and found is not None:   # refused: leave it as it was
                give_back(log.db, run_id, self.owner.token, found["status"], found["ended"])
            raise
        if run_id is None:  # logged once the strategy is ready: no run left 'running' unused
            self.run_id = ManagedRun.start(log, spec.strategy, spec.to_json(), spec.seed,
                                           spec.worker_count, spec.game,
                                           spec.options.to_json(), spec.options.key(),
                                           owner=self.owner, objective=spec.objective).run_id
        self.managed = ManagedRun(log, self.run_id, self.owner.token)
        self.clock = clock
        self.last_sample = -SAMPLE_SECONDS   # search seconds at the last throughput sample
        self.target = target     # a length to project the cost of (--target)
        self.projected, self.projected_at = "", -PROJECTION_SECONDS
        self.hurry = False   # interrupted twice: stop without waiting for running tasks
        self.told = 0        # finds handed to on_find
        self.hooks = hooks or TestHooks()   # a test's moments to reach (none in real use)
        # Absorbed but not yet committed: the finds and notes of reports since the last
        # commit (the counters, best and strategy already count them; a failed commit takes
        # all back to the log's state, see _reload).
        self.pending: list[Find] = []
        self.pending_notes: list[str] = []
        self.uncommitted = 0       # reports absorbed since the last commit
        # a device run's chunks replayed on the CPU and found equal, this session
        self.checked: int | None = None if spec.device == "cpu" else 0
        self.last_commit = -float("inf")
        self.last_renewal = clock()   # the owner's lease: renewed by commits, and this often
        self.rate: float | None = None   # deals per worker-second, measured from reports
        self.in_flight_deals = 0         # deals of the tasks submitted and not yet absorbed
        self.commits = 0
        # --verify-blocks: each task's second play, by the future of its first; a device's
        # tasks are played again on the CPU (another device, and the engine the kernel copies)
        self.second_plays: dict[Future[Report], Future[Report]] = {}
        self.second_spec = spec if spec.device == "cpu" else replace(
            spec, device="cpu", gpu_check_every=None)

    # ------------------------------------------------------------------ bookkeeping

    def _keep(self, deal: str, result: GameResult) -> bool:
        """Whether a reported game is a find: any cycle, or a new best of the run among games
        that finished (:func:`~dealsearch.game.finished`); every one it reports, if the
        strategy :attr:`~dealsearch.strategies.Strategy.keeps_every_find`. Otherwise
        stalemates and limits are counted in the run's outcomes, never stored as finds."""
        if result.outcome == "cycle":
            return True
        if result.outcome not in self.finished:
            return self.strategy.keeps_every_find
        best = self.state.best
        new = score(result, self.spec)
        old = None if best is None else best[self.spec.objective or ""]
        # Ties go to the smaller deal, so the best does not depend on which worker was first.
        if old is None or new > old or (new == old and deal < best["deal"]):
            self.state.best = {"deal": deal, **result.measures}
            return True
        return self.strategy.keeps_every_find

    def _progress(self, started: float) -> dict[str, Any]:
        return {"seconds": self.state.seconds + self.clock() - started,
                "deals": self.state.deals,
                "totals": {throughput_measure(self.game): self.state.total},
                "outcomes": self.state.outcomes,
                "checkpoint": {"strategy": self.strategy.checkpoint(), "best": self.state.best}}

    def _find(self, deal: str, result: GameResult, named: dict[str, tuple[str, str]]
              ) -> Find:
        game, options = self.game, self.spec.options
        key = cycle = None
        if result.outcome == "cycle" and isinstance(game, CycleCatalogue):
            # name the cycle, so the catalogue can group its deals (the worker has, usually)
            if deal in named:
                key, cycle = named[deal]
            else:
                key = game.cycle_key(game.parse(deal, options), options)
                cycle = cycle_id(game, key, options)
        return Find(deal, result.outcome, dict(result.measures), self.spec.strategy,
                    self.run_id, dict(result.entry), dict(result.period),
                    dict(result.details), key, cycle, options.key(), self.full_options,
                    game=game.name)

    def _save(self, finds: list[Find], started: float, status: str = "running") -> None:
        progress = self._progress(started)
        sample = status != "running" or progress["seconds"] - self.last_sample >= SAMPLE_SECONDS
        if sample:
            self.last_sample = progress["seconds"]
        merged = self.state.merged_histograms()
        histograms = {m: (self.widths[m], merged.get(m, {})) for m in self.widths}
        extra = {"histograms": histograms, "sample": sample}
        if status == "running":
            self.managed.save(finds, progress, **extra)
        else:
            self.managed.finish(status, progress, **extra)

    def _absorb(self, task: Task, report: Report) -> None:
        """Add a report to the run: its counters, best and strategy now, its finds with the
        next commit (:meth:`_commit`), which commits both or neither.

        Signals wait until the report is wholly absorbed (:func:`~dealsearch.interrupt.
        deferred`); if absorbing fails the run's state goes back to what the log holds.
        """
        if report.key != task.key:
            raise RuntimeError(f"task {task.key} came back as the report of task {report.key}")
        with deferred():
            try:
                for settled in self.strategy.absorb(report):   # the work that now counts
                    self.state.add(settled)
                    self.pending.extend(self._find(deal, result, settled.cycles)
                                        for deal, result in settled.finds
                                        if self._keep(deal, result))
                    self.pending_notes.extend(settled.notes)
                    if self.checked is not None:
                        self.checked += settled.checked
                    self.uncommitted += 1
            except BaseException:
                self._reload()
                raise
        if report.seconds > 0 and report.deals:
            rate = report.deals / report.seconds
            self.rate = rate if self.rate is None else 0.8 * self.rate + 0.2 * rate

    def _commit(self, started: float, ending: bool = False) -> None:
        """Commit the finds absorbed since the last commit with the run's state: both or
        neither, signals waiting until it is done; if the commit fails (a full disk, a log
        locked too long) the run's state goes back to what the log holds, so a later save
        cannot commit a checkpoint past finds that were never saved. Then tell the finds
        (``ending``: the run's last commit, where signals wait, so no test hook holds there:
        a signal that came while the hold's find was being told ended the run instead)."""
        with deferred():
            try:
                self.hooks.before_commit()
                self._save(self.pending, started)
            except BaseException:
                self._reload()
                raise
            finds, notes = self.pending, self.pending_notes
            self.pending, self.pending_notes, self.uncommitted = [], [], 0
            self.last_commit = self.last_renewal = self.clock()
            self.commits += 1
        for find in finds:  # committed: now it may be told
            self.on_find(find)
            self.told += 1
            if not ending:
                self.hooks.after_find(self.told)
        for note in notes:
            self.on_note(note)

    def _busy_past(self, left: float | None, slots: int) -> bool:
        """Whether the work in flight already keeps the workers busy for the time left (so
        a task submitted now would only run past a --time deadline)."""
        if left is None or not self.rate:
            return False
        return self.in_flight_deals >= left * self.rate * slots

    def _units(self, left: float | None) -> int:
        """How many units of work the next task gets: about TASK_SECONDS of a worker's time
        at the measured rate, and at most a quarter of the time left (so the tasks in flight
        at a --time deadline are the smallest: one unit each)."""
        unit = getattr(self.strategy, "task_deals", None)
        if not unit or not self.rate:
            return 1
        seconds = TASK_SECONDS if left is None else min(TASK_SECONDS,
                                                        left / (2 * QUEUE_PER_SLOT))
        most = getattr(self.strategy, "max_units", None) or MAX_UNITS  # a GPU's: longer
        return max(1, min(most, int(self.rate * seconds / unit)))

    def _total(self, run: dict[str, Any]) -> int:
        """The run's logged total of the game's throughput measure."""
        return int(run["totals"].get(throughput_measure(self.game), 0))

    def _reload(self) -> None:
        """The run's counters, best and strategy as the log last committed them."""
        run = self.log.run(self.run_id)
        assert run is not None
        checkpoint = run["checkpoint"]
        self.state = RunState(self.game.outcomes, run["deals"], self._total(run), run["outcomes"],
                              checkpoint.get("best"), self.state.seconds,
                              {m: self.log.histogram([self.run_id], m)[1] for m in self.widths})
        self.strategy = get_strategy(self.spec.strategy)(self.spec,
                                                         checkpoint.get("strategy", {}))
        self.pending, self.pending_notes, self.uncommitted = [], [], 0

    def _drain(self, backend: Backend, in_flight: dict[Future[Report], Task]) -> None:
        """After an interrupt: keep the work of tasks already running that report within
        DRAIN_SECONDS, unless interrupted again; what is still running then is redone on
        --resume (``hurry``: the workers are stopped, not waited for)."""
        backend.cancel(in_flight)
        running = set(in_flight)
        give_up = time.monotonic() + DRAIN_SECONDS
        try:
            while running:
                done, running = wait(running, timeout=POLL, return_when=FIRST_COMPLETED)
                for future in done:
                    task = in_flight.pop(future)
                    self.in_flight_deals -= _deals(task)
                    if future.cancelled():   # never started: redone on --resume
                        continue
                    try:
                        report = self._checked(task, future)
                    except Exception:  # a worker killed by the same signal: redone on --resume
                        continue
                    self._absorb(task, report)
                interrupt.check()
                if running and time.monotonic() >= give_up:
                    self.hurry = True
                    return
        except KeyboardInterrupt:
            self.hurry = True

    def _spent(self, started: float) -> bool:
        """Whether the budget is spent and nothing handed out is left undone (a run
        stopped then is done, whatever signal came)."""
        if self.hurry:
            return False
        time_spent = (self.spec.time is not None
                      and self.state.seconds + self.clock() - started >= self.spec.time)
        return self.strategy.finished or time_spent

    def _end(self, started: float, status: str) -> None:
        """Commit what is absorbed, then the run's status. If the commit fails the state is
        the log's again (:meth:`_commit`) and the status is still written."""
        try:
            if self.uncommitted:
                self._commit(started, ending=True)
        except BaseException:
            # not done: what the commit held is not in the log (interrupted stays resumable)
            with contextlib.suppress(Exception):
                self._save([], started, "interrupted" if status == "interrupted" else "failed")
            raise
        self._save([], started, status)

    # ------------------------------------------------------------------ the run

    def run(self) -> Summary:
        """Run to the budget, the last task or Ctrl-C; the log is up to date on return.

        The search's clock starts once the workers are up (:meth:`Backend.warm_up`): the
        run's seconds, its rates and a --time budget count the search, not start-up.
        Stop signals are noted and raised at the loop's safe points (:mod:`dealsearch.
        interrupt`), so a run stopped at any moment, workers' start-up included, ends
        ``interrupted``; one whose budget was spent ends ``done``, whatever came after.
        """
        try:
            with interrupt.noting():
                return self._run()
        finally:
            let_go(self.owner.token)

    def _run(self) -> Summary:
        spec = self.spec
        began = started = self.clock()
        backend = self.backend or LocalBackend(spec.worker_count)
        bar = tqdm(total=self.strategy.total_deals, initial=self.state.deals, unit=" deals",
                   unit_scale=True, dynamic_ncols=True, smoothing=0.1,
                   disable=not self.show_progress or not sys.stderr.isatty(),
                   file=progress_stream())
        # Each submission is its own future, absorbed once when it leaves in_flight: a task
        # that a backend recomputes (Dask, after losing a worker) still reports only once.
        in_flight: dict[Future[Report], Task] = {}
        ready: queue.SimpleQueue[Future[Report]] = queue.SimpleQueue()  # done, in turn
        status, error, stop_signal = "done", None, None
        try:
            try:
                try:
                    backend.warm_up(warm_worker)
                    self._renew()
                finally:   # a stop during start-up counts no search time
                    started = self.clock()
                deadline = None if spec.time is None else started + spec.time - self.state.seconds
                while True:
                    interrupt.check()
                    now = self.clock()
                    left = None if deadline is None else deadline - now
                    if left is not None and left <= -DRAIN_SECONDS:
                        # The time is spent, and what still runs would overrun it (many
                        # workers on few cores, tasks of slow games): dropped, not waited for.
                        self.hurry = True
                        break
                    slots = max(1, backend.slots)
                    while ((left is None or left > 0)
                           and len(in_flight) < QUEUE_PER_SLOT * slots
                           and not self._busy_past(left, slots)):
                        task = self.strategy.next_task(self._units(left))
                        if task is None:
                            break
                        future = backend.submit(run_task, spec, task)
                        if self.strategy.plays_twice:   # the same task again, to compare
                            self.second_plays[future] = backend.submit(
                                run_task, self.second_spec, task)
                        in_flight[future] = task
                        self.in_flight_deals += _deals(task)
                        future.add_done_callback(ready.put)
                    if not in_flight:
                        break
                    pause = max(0.0, COMMIT_SECONDS - (now - self.last_commit))
                    try:  # the first report ready (or none, to commit on time) ...
                        done = [ready.get(timeout=min(pause, POLL) if self.uncommitted
                                          else POLL)]
                    except queue.Empty:
                        done = []
                    with contextlib.suppress(queue.Empty):  # ... and every other one
                        while len(done) < len(in_flight):
                            done.append(ready.get_nowait())
                    before = self.state.deals
                    for future in done:
                        task = in_flight.pop(future, None)
                        if task is not None:  # not one cancelled and already gone
                            self.in_flight_deals -= _deals(task)
                            self._absorb(task, self._checked(task, future))
                    bar.update(self.state.deals - before)
                    if self.uncommitted and self.clock() - self.last_commit >= COMMIT_SECONDS:
                        self._commit(started)   # (and the run's end commits the rest)
                    elif self.clock() - self.last_renewal >= RENEW_SECONDS:
                        self._renew()
                    self._show(bar, started)
            except KeyboardInterrupt as stop:
                status, stop_signal = "interrupted", getattr(stop, "signum", signal.SIGINT)
                self._drain(backend, in_flight)
                if self._spent(started):
                    status, stop_signal = "done", None
        except (_WorkerFailed, LogWriteFailed) as failure:
            # the work committed so far stays (a failed commit is rolled back whole, and the
            # run's state read back: _commit); --resume redoes the rest
            status = "failed"
            error = (failure.__cause__ and backend.explain(failure.__cause__)) or str(failure)
        except BaseException:
            # A failure of this process (the log's disk, a bug): never leave the run 'running'.
            with deferred(reraise=False):
                self._close(backend, in_flight, bar)
                with contextlib.suppress(Exception):
                    self._end(started, "failed")
            raise
        # From here the run only ends: a further Ctrl-C may hurry it, never leave it 'running'.
        with deferred(reraise=False):
            self._close(backend, in_flight, bar)
            try:
                self._end(started, status)
            except LogWriteFailed as failure:   # its status written where it could be
                status, error = "failed", str(failure)
        return Summary(self.run_id, spec.strategy, self.state.deals, self.state.total,
                       self.state.outcomes, self.state.best, self._progress(started)["seconds"],
                       status, error, stop_signal, self.clock() - began,
                       throughput_measure(self.game), self.checked, _played(self.strategy))

    def _checked(self, task: Task, future: Future[Report]) -> Report:
        """The task's report; with ``--verify-blocks``, once its second play agrees."""
        report = _report(future)
        second = self.second_plays.pop(future, None)
        if second is not None:
            _compare_plays(task, report, _report(second), self.spec.device)
        return report

    def _renew(self) -> None:
        """Renew the lease by which this process owns the run (no commit came for a while)."""
        with deferred():
            self.managed.renew()
        self.last_renewal = self.clock()

    def _close(self, backend: Backend, in_flight: dict[Future[Report], Task],
               bar: tqdm) -> None:
        backend.cancel([*in_flight, *self.second_plays.values()])
        if self.backend is None:
            backend.close(wait=not self.hurry)
        elif self.hurry:   # the caller closes it, but the tasks still running are not waited for
            backend.close(wait=False)
        bar.close()

    def _show(self, bar: tqdm, started: float) -> None:
        if bar.disable:
            return
        elapsed = max(self.clock() - started, 1e-9)
        best = self.state.best
        postfix = {
            f"{throughput_measure(self.game)}/s":
                f"{self.state.total / (self.state.seconds + elapsed):.3g}",
            "best": best[self.spec.objective or ""] if best else "-",
        }
        if "cycle" in self.state.outcomes:   # a game may know no cycle
            postfix["cycles"] = self.state.outcomes["cycle"]
        if self.spec.time is not None:
            postfix["left"] = duration(self.spec.time - self.state.seconds - elapsed)
        projection = self._projection(elapsed)
        if projection:
            postfix["tail"] = projection
        bar.set_postfix(postfix, refresh=False)

    def _projection(self, elapsed: float) -> str:
        """What the run's own tail predicts (random search), refreshed every few seconds."""
        now = self.clock()
        if now - self.projected_at < PROJECTION_SECONDS:
            return self.projected
        self.projected_at = now
        spec, state = self.spec, self.state
        measure = spec.objective or self.game.measures[0]
        seconds = state.seconds + elapsed
        projection = live_projection(
            self.game.name, spec.strategy, measure, self.widths[measure],
            state.merged_histograms().get(measure, {}), state.deals,
            state.best[measure] if state.best else 0, spec.deals,
            state.deals / seconds if seconds > 0 else None, spec.worker_count, self.target,
            None if spec.time is None else max(0.0, spec.time - seconds),
            hours_unit(spec.device))
        self.projected = projection.progress_text() if projection else ""
        return self.projected

