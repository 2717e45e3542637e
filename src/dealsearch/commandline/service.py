"""The run service as a command uses it: ``search`` and a game's own run commands (BMN's
``factory``) start, resume and end a run of any strategy the same way.

A command parses its options into a :class:`~dealsearch.search.spec.SearchSpec` (or reads
the run to resume with :func:`resumable` and :func:`logged_spec`), then :func:`serve` opens
the backend (workers up before the log is touched, so a failed start leaves no run behind),
plays the run with the :class:`~dealsearch.search.runner.Runner` (claim, checkpoints on time,
signals, failure, finish, ownership) and returns its
:class:`~dealsearch.search.runner.Summary`; the command prints it, and :func:`ending` turns
its status into the exit status and the line that says how to go on.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sqlite3
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from .. import interrupt
from ..devices import DeviceUnavailable
from ..errors import BadLog, BadOption, RunFailed
from ..log import LOST, Find
from ..log.ownership import refuse_if_owned
from ..search.backends import DASK_EXTRA, Backend, BackendError, MissingDask, open_backend
from ..search.device import check_device
from ..search.hooks import TestHooks
from ..search.runner import Runner, Summary, warm_worker
from ..search.spec import SearchSpec
from ..strategies import strategy_names
from .advice import CANNOT_RESUME, how_to_continue
from .cluster import chosen_backend, dask_security
from .options import EXIT_OK, check_log_path, cores, open_log


def _kind(command: str) -> str:
    """What a command's runs are called: 'a search', 'a factory run'."""
    return "a search" if command == "search" else f"a {command} run"


def resumable(db: str, run_id: int, command: str) -> dict[str, Any]:
    """The run ``command --resume RUN_ID`` continues, read from a sound log; one line if it
    cannot be (no log, no such run, done, owned by a live process, kept by ``log recover``
    without its checkpoint, or a run of another command)."""
    try:
        missing = not Path(db).exists()
    except OSError:   # a name too long for a file, say: open_log says so in one line
        missing = False
    if missing:
        raise BadLog(f"no run {run_id}: no log at {db}")
    with closing(open_log(db)) as log:
        log.refuse_damage(run_id)   # before its row is read: one line if damaged
        run = log.run(run_id)
        if run is None:
            raise BadOption(f"no run {run_id} in {db}")
        if run["status"] == "done":
            raise BadOption(f"run {run_id} is already done")
        refuse_if_owned(log.db, run_id)   # before any worker starts
    if run["strategy"] == LOST:
        raise BadOption(f"run {run_id} {CANNOT_RESUME}")
    if run["strategy"] not in strategy_names(command):
        raise BadOption(f"run {run_id} is a {run['strategy']} run, not {_kind(command)}; "
                        f"{how_to_continue(run, db)}")
    return run


def logged_spec(run: dict[str, Any], run_id: int, changes: dict[str, Any] | None = None
                ) -> SearchSpec:
    """The spec a run was started with (with ``changes``, e.g. another device), checked as a
    new run's is (a log may come from anyone), and agreeing with the run's own game and
    options columns; else one line."""
    try:
        options = {**run["options"], **(changes or {})}
        if options.get("device") == "cpu":
            options.pop("gpu_check_every", None)
        spec = SearchSpec.from_json(options)
    except (ValueError, TypeError) as error:
        raise BadOption(f"run {run_id} cannot be resumed: {error}") from None
    if (run["game"], run["options_key"]) != (spec.game, spec.options.key()):
        raise BadOption(f"run {run_id} cannot be resumed: it is logged as a run of "
                        f"{run['game']} ({run['options_key'] or 'its defaults'}), but its "
                        f"search is of {spec.game} ({spec.options.key() or 'its defaults'})")
    # what readers describe the run's setting by: as the run wrote it (JSON, so lists)
    if run["game_options"] != json.loads(json.dumps(spec.options.to_json())):
        raise BadOption(f"run {run_id} cannot be resumed: the game options logged with it are "
                        f"not those of its search ({spec.options.key() or 'its defaults'})")
    return spec


def processes(args: argparse.Namespace, spec: SearchSpec) -> int:
    """Worker processes: --workers, else the spec's; a resumed run's spec is the log's, and
    a log may come from anyone, so it gets at most this machine's cores."""
    if args.resume is None:
        return spec.worker_count
    if args.workers is not None:
        return args.workers or cores()
    return min(spec.worker_count, cores())


def start_backend(args: argparse.Namespace, spec: SearchSpec, hooks: TestHooks) -> Backend:
    """The backend the options choose (``processes`` workers, if it starts them), started,
    with a worker and warmed up (:meth:`Backend.warm_up`), before any run is logged: so a
    stop signal during start-up leaves no run behind. Every failure is one line of bad
    input."""
    try:
        backend = open_backend(chosen_backend(args), processes(args, spec), args.scheduler,
                               dask_security(args), args.dashboard)
    except MissingDask:
        raise BadOption(f"--backend dask needs Dask: {DASK_EXTRA}") from None
    except BackendError as error:
        raise BadOption(str(error)) from None
    try:
        if not backend.slots:
            print(f"waiting for a worker to join {args.scheduler} (Ctrl-C to give up)",
                  file=sys.stderr, flush=True)
            backend.wait_for_workers()
        if spec.device != "cpu":    # a worker, where the device is used, builds the kernel
            interrupt.results([backend.submit(check_device, spec)])
        hooks.reach("workers-starting")
        backend.warm_up(warm_worker)
        interrupt.check()
    except DeviceUnavailable as error:
        backend.close(wait=False)
        raise BadOption(str(error)) from None
    except BaseException:
        backend.close(wait=False)
        raise
    return backend


def serve(args: argparse.Namespace, spec: SearchSpec, run_id: int | None,
          on_find: Callable[[Find], None], started: Callable[[Runner, Backend], None],
          on_note: Callable[[str], None] = lambda note: None) -> Summary:
    """Play a new run of ``spec`` (``run_id`` None) or resume ``run_id`` to its end, on the
    backend ``args`` choose, logging to ``args.db``; ``started`` is told once the run is
    logged and before its loop (to print the line that names it), ``on_find`` each find once
    it is committed. ``args.hooks`` (a test's, else None) reaches the moments of
    :data:`~dealsearch.search.hooks.MOMENTS`."""
    hooks = getattr(args, "hooks", None) or TestHooks()
    if run_id is None:
        check_log_path(args.db)   # before any worker starts
    # The backend is up before the log is touched: a missing package or an unreachable
    # scheduler leaves no run behind.
    with start_backend(args, spec, hooks) as backend, closing(open_log(args.db)) as log:
        runner = Runner(spec, log, run_id, on_find, on_note, progress=not args.quiet,
                        target=getattr(args, "target", None), backend=backend, hooks=hooks)
        hooks.reach("run-logged")
        started(runner, backend)
        hooks.reach("started")
        try:
            return runner.run()
        except sqlite3.DatabaseError as error:  # the log cannot be written: disk full, locked
            raise RunFailed(f"run {runner.run_id} failed: cannot write the log {args.db}: "
                            f"{error}") from None


def resume_command(args: argparse.Namespace, command: str, run_id: int) -> str:
    """The command that continues a run where it runs now (the backend's options too)."""
    words = ["dealsearch", command, "--resume", str(run_id), "--db", str(args.db)]
    if chosen_backend(args) != "local":
        words += ["--backend", "dask"]
    if args.scheduler is not None:
        words += ["--scheduler", args.scheduler]
    for option in ("tls_ca_file", "tls_cert", "tls_key"):
        if getattr(args, option):
            words += [f"--{option.replace('_', '-')}", getattr(args, option)]
    return shlex.join(words)


def ending(args: argparse.Namespace, command: str, summary: Summary, spec: SearchSpec) -> int:
    """The exit status of a run that ended: a failed run is one line with the command that
    continues it (on the CPU if a device failed: every device plays the same deals); an
    interrupted one prints that command (unless ``--json``) and exits as the signal says
    (130 after Ctrl-C, 143 after kill, 129 after a hang-up)."""
    resume = resume_command(args, command, summary.run_id)
    if summary.status == "failed":
        if spec.device != "cpu":
            resume += " --device cpu"
        raise RunFailed(f"run {summary.run_id} failed: {summary.error}; continue with: {resume}")
    if summary.status == "interrupted":
        if not args.json:
            print(f"continue with: {resume}")
        return interrupt.exit_status(summary.signal)
    return EXIT_OK
