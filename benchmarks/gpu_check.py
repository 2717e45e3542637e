"""Check the GPU engine on a machine with a GPU: exact against the CPU engine, and how fast.

    python benchmarks/gpu_check.py [--emulate] [--deals N] [--seconds S] [--seed S]

1. builds the kernel (NVRTC, through CuPy) on the current GPU;
2. plays 10^6 deals on the GPU and compares every deal's length with the kernel's own C run on
   the CPU (deal by deal: a difference names the deal);
3. plays ``--deals`` random 2-player standard deals (default 10^7) as a random search of
   ``--seed`` on the GPU, and the same deals on the CPU engine (every core), and compares the
   two reports: outcome counts, card total, both length histograms and the finds;
4. times at least ``--seconds`` (default 10) of steady play, as a search plays: each task's
   whole report, finds dealt and played again on the CPU.

``--emulate`` runs the same kernel source compiled for the CPU (``_gpu_emulate``) instead, on
10^6 deals by default, with no GPU (step 2 is then the same code twice: skipped). The last
line is always ``gpu check: N deals, D differences, R deals/s (DEVICE)``; the exit status is 0
when D is 0, 1 when there are differences (or a step failed: its error is printed), 2 when
there is no GPU (or CuPy) to check. A watchdog ends the check after 290 s in any case.

On the GPU machine (no package registry; Python with CuPy, Cython, numpy, setuptools, tqdm):

    python3 -m pip install --no-build-isolation --no-deps -e . && python3 benchmarks/gpu_check.py
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from dealsearch.devices import DeviceUnavailable
from dealsearch.games.beggar import _gpu_emulate, gpu
from dealsearch.search.base import Report, Task, compact
from dealsearch.search.device import device_sampler, play_on_device, task_finds
from dealsearch.search.random_search import CHUNK_DEALS, GPU_MAX_UNITS, play_chunk_cpu
from dealsearch.search.spec import SearchSpec

WATCHDOG_SECONDS = 290
DEAL_BY_DEAL = 10**6


def say(text: str) -> None:
    print(text, flush=True)


def last_line(deals: int, differences: int, rate: float, device: str) -> str:
    return f"gpu check: {deals} deals, {differences} differences, {rate:.0f} deals/s ({device})"


def cpu_chunk(args: tuple[dict, int, int]) -> Report:
    """One chunk on the CPU engine (in a worker process)."""
    spec_json, chunk, deals = args
    return play_chunk_cpu(SearchSpec.from_json(spec_json), Task(chunk, {"deals": deals}))


def cpu_report(spec: SearchSpec, deals: int) -> Report:
    """The CPU engine's report of deals 0..deals-1 (chunk by chunk, on every core)."""
    spec_json = {**spec.to_json(), "device": "cpu"}
    work = [(spec_json, k, min(CHUNK_DEALS, deals - k * CHUNK_DEALS, play_chunk_cpu))
            for k in range(-(-deals // CHUNK_DEALS, play_chunk_cpu))]
    total = Report.for_game(0, spec.plugin)
    # spawn: a forked child of a process that has started CUDA cannot be trusted
    with ProcessPoolExecutor(os.cpu_count() or 1,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for report in pool.map(cpu_chunk, work, chunksize=4):
            total.deals += report.deals
            total.total += report.total
            total.outcomes = [a + b for a, b in zip(total.outcomes, report.outcomes,
                                                    strict=True)]
            for measure, hist in report.histograms.items():
                total.histograms[measure] += hist
            total.finds.extend(report.finds)
    return total


def differences(spec: SearchSpec, cpu: Report, device: Report) -> dict[str, int]:
    """Items that differ: counts (deals, card total, each outcome), histogram bins, finds (the
    CPU's chunk records that a device task reports: task_finds)."""
    counts = int(cpu.deals != device.deals) + int(cpu.total != device.total) + sum(
        int(a != b) for a, b in zip(cpu.outcomes, device.outcomes, strict=True))
    bins = sum(int((cpu.histograms[m] != device.histograms[m]).sum()) for m in cpu.histograms)
    mine = [(deal, result.to_json()) for deal, result in task_finds(spec, cpu.finds)]
    theirs = [(deal, result.to_json()) for deal, result in device.finds]
    finds = sum(a != b for a, b in zip(mine, theirs, strict=False)) + abs(len(mine)
                                                                         - len(theirs))
    return {"counts": counts, "histogram bins": bins, "finds": finds}


def deal_by_deal(spec: SearchSpec, sampler: Any) -> int:
    """Every deal's score on the GPU against the kernel's C on the CPU: how many differ."""
    t = sampler.table
    work = gpu.Work(0, DEAL_BY_DEAL, CHUNK_DEALS, 10, 2048, 4096)
    on_gpu = sampler.device.scores(t, work)
    totals = np.zeros(4, dtype=np.int64)
    on_cpu = _gpu_emulate.play(t.pay_word, t.size0, t.total, t.cap_cards, t.cap_tricks,
                               t.by_tricks, t.courts, t.seed_key, 0, CHUNK_DEALS, DEAL_BY_DEAL,
                               10, np.zeros(2048, np.int64), np.zeros(4096, np.int64), totals)
    bad = np.flatnonzero(on_gpu != on_cpu)
    for w in bad[:5]:
        chunk, deal = divmod(int(w), CHUNK_DEALS, play_chunk_cpu)
        row = sampler.rows(np.array([chunk], np.uint64), np.array([deal], np.uint64))[0]
        say(f"  deal {deal} of chunk {chunk} ({compact(row, spec)}): GPU {on_gpu[w]}, "
            f"CPU {on_cpu[w]} ({_gpu_emulate.HANDBACK} = handed back)")
    return len(bad)


def environment(emulate: bool) -> str:
    if emulate:
        return f"Python {sys.version.split()[0]}, numpy {np.__version__}"
    try:
        import cupy

        runtime = cupy.cuda.runtime
        return (f"Python {sys.version.split()[0]}, numpy {np.__version__}, CuPy "
                f"{cupy.__version__}, CUDA runtime {runtime.runtimeGetVersion()}, driver "
                f"{runtime.driverGetVersion()}")
    except Exception as error:   # reported, not fatal: the device step says what is missing
        return f"Python {sys.version.split()[0]}, numpy {np.__version__}; CuPy: {error}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emulate", action="store_true",
                        help="the kernel's C compiled for the CPU, no GPU")
    parser.add_argument("--deals", type=int, help="deals compared (default: 10^7, "
                                                  "10^6 with --emulate)")
    parser.add_argument("--seconds", type=float, help="steady play timed (default: 10, "
                                                      "3 with --emulate)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    device = "emulate" if args.emulate else "gpu"
    deals = args.deals or (10**6 if args.emulate else 10**7)
    seconds = args.seconds or (3.0 if args.emulate else 10.0)
    spec = SearchSpec.from_json({"strategy": "random", "seed": args.seed, "device": device})
    state: dict[str, Any] = {"differences": 0, "rate": 0.0, "name": device}

    def watchdog(signum: int, frame: Any) -> None:
        say(f"watchdog: still running after {WATCHDOG_SECONDS} s; stopped")
        say(last_line(deals, state["differences"] + 1, state["rate"], state["name"]))
        os._exit(1)

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, watchdog)
        signal.alarm(WATCHDOG_SECONDS)
    say(environment(args.emulate))

    began = time.perf_counter()
    try:
        sampler = device_sampler(spec)
    except DeviceUnavailable as error:
        say(f"no device to check: {error}")
        say(last_line(0, 0, 0, f"none: {error}"))
        return 2
    name = state["name"] = sampler.name
    say(f"device: {name}; kernel built in {time.perf_counter() - began:.1f} s")
    try:
        if not args.emulate:
            say(f"deal by deal: {DEAL_BY_DEAL:,} deals on {name} and the kernel's C on the "
                "CPU ...")
            bad = deal_by_deal(spec, sampler)
            state["differences"] += bad
            say(f"  {bad} deals differ")

        say(f"exactness: {deals:,} deals of seed {args.seed} on {name} and on the CPU engine "
            "...")
        t = time.perf_counter()
        on_device = play_on_device(spec, Task(0, {"deals": deals}), CHUNK_DEALS, play_chunk_cpu)
        device_s = time.perf_counter() - t
        t = time.perf_counter()
        on_cpu = cpu_report(spec, deals)
        cpu_s = time.perf_counter() - t
        diff = differences(spec, on_cpu, on_device)
        state["differences"] += sum(diff.values())
        say(f"  device {device_s:.1f} s, CPU ({os.cpu_count()} cores) {cpu_s:.1f} s; "
            f"{len(on_device.finds)} finds, {on_cpu.outcomes} outcomes; differences: "
            + ", ".join(f"{k} {v}" for k, v in diff.items()))

        say(f"speed: at least {seconds:g} s of steady play ...")
        chunk = -(-deals // CHUNK_DEALS, play_chunk_cpu)      # past the deals compared: new deals
        # one task to size the others: about a second each, as the search runner sizes them
        # (a power of two chunks, all alike, so that each finds the next already launched)
        t = time.perf_counter()
        play_on_device(spec, Task(chunk, {"deals": 10 * CHUNK_DEALS}), CHUNK_DEALS, play_chunk_cpu)
        first_rate = 10 * CHUNK_DEALS / (time.perf_counter() - t)
        chunk += 10
        units = max(1, min(GPU_MAX_UNITS, int(first_rate) // CHUNK_DEALS, play_chunk_cpu))
        task_deals = (1 << (units.bit_length() - 1)) * CHUNK_DEALS
        rates = []
        played, elapsed = 0, 0.0
        while elapsed < seconds:
            t = time.perf_counter()
            play_on_device(spec, Task(chunk, {"deals": task_deals}), CHUNK_DEALS, play_chunk_cpu)
            spent = time.perf_counter() - t
            rates.append(task_deals / spent)
            played += task_deals
            elapsed += spent
            chunk += task_deals // CHUNK_DEALS
            state["rate"] = played / elapsed
        say(f"  {played:,} deals in {elapsed:.1f} s, tasks of {task_deals:,} deals: "
            f"{state['rate']:,.0f} deals/s (tasks from {min(rates):,.0f} to "
            f"{max(rates):,.0f} deals/s)")
    except Exception as error:   # say what failed, and still end with the summary line
        traceback.print_exc(file=sys.stdout)
        say(f"failed: {type(error).__name__}: {error}")
        say(last_line(deals, state["differences"] + 1, state["rate"], name))
        return 1
    say(last_line(deals, state["differences"], state["rate"], name))
    return 1 if state["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
