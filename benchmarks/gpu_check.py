"""Check the GPU engine on a machine with a GPU: exact against the CPU engine, and how fast.

    python benchmarks/gpu_check.py [--emulate] [--deals N] [--seconds S] [--seed S]

1. builds the kernel (NVRTC, through CuPy) on the current GPU and prints the GPU (name,
   clocks, multiprocessors), the grid and the kernel's registers and shared memory;
2. plays 10^6 deals on the GPU and compares every deal's score with the same kernel compiled
   for the CPU (deal by deal: a difference names the deal);
3. plays ``--deals`` random 2-player standard deals (default 10^7) with ``--max-cards``
   (default 3,000: about one game in 10^6 goes past it and is handed back to the CPU) as a
   random search of ``--seed`` on the GPU, in launches of 16 chunks (so many slices and their
   offsets are checked), one chunk in 10 cross-checked, and the same deals on the CPU engine
   (every core), and compares the two reports: counts, card total, histograms and finds;
4. runs ``dealsearch search random --device gpu`` through the command line, and the same
   search on the CPU, and compares their summaries (deals, cards, outcomes, best);
5. times the kernel alone (launches of whole slices, nothing done on the host) and at least
   ``--seconds`` (default 10) of steady search play, as a search plays;
6. a block of ranks (exhaustive search, ``bmn_unrank`` and ``bmn_blocks``): 10^6 deals of the
   52-card space past 2^64 deal by deal against the kernels compiled for the CPU, then a
   block of ``--deals`` Italian deals around Zanotto's never-ending deal (in launches of 16
   shards, one in 10 cross-checked) against the CPU's block player on every core (counts,
   histograms, the never-ending deals' ranks, the best), and the rank kernels' rate alone.

``--emulate`` runs the same script on the kernel compiled for the CPU (``--device emulate``),
on fewer deals, on any machine (step 2 is then the same code twice: skipped). The last line is
always ``gpu check: N deals, D differences, R deals/s (DEVICE)`` (R: the search's rate); the
exit status is 0 when D is 0, 1 when there are differences (or a step failed: its error is
printed), 2 when there is no GPU (or CuPy) to check. A watchdog ends it after 330 s; on an
H200 it takes about two minutes.

On the GPU machine (no package registry; Python with CuPy, Cython, numpy, setuptools, tqdm):

    python3 -m pip install --no-build-isolation --no-deps -e . && python3 benchmarks/gpu_check.py
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from dealsearch.devices import DeviceUnavailable
from dealsearch.games.beggar import gpu, gpu_build
from dealsearch.search.base import Report, Task, compact
from dealsearch.search.device import (
    device_block_player,
    device_sampler,
    play_block_on_device,
    play_on_device,
    task_finds,
)
from dealsearch.search.exhaustive import MAX_SHARD, play_shard_cpu
from dealsearch.search.random_search import CHUNK_DEALS, GPU_MAX_UNITS, play_chunk_cpu
from dealsearch.search.spec import SearchSpec
from dealsearch.text import counted

WATCHDOG_SECONDS = 330
DEAL_BY_DEAL = 10**6
SLICE_CHUNKS = 16       # chunks per launch in step 3: many slices, each at its own offset
ZANOTTO = 90016849133615    # a never-ending Italian deal's rank (N1k06's numbering)
HIGH_RANK = 5 * 10**20      # a 52-card block past 2^64


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
    spec_json = {**spec.to_json(), "device": "cpu", "gpu_check_every": None}
    return on_every_core(spec, cpu_chunk, [(spec_json, k, min(CHUNK_DEALS,
                                                              deals - k * CHUNK_DEALS))
                                           for k in range(-(-deals // CHUNK_DEALS))])


def on_every_core(spec: SearchSpec, play: Any, work: list[Any]) -> Report:
    """The reports of ``play`` for each item of ``work`` (on every core), summed."""
    total = Report.for_game(0, spec.plugin)
    # spawn: a forked child of a process that has started CUDA cannot be trusted
    with ProcessPoolExecutor(os.cpu_count() or 1,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for report in pool.map(play, work, chunksize=4):
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


def describe(sampler: Any, emulate: bool) -> None:
    """The device, its grid, the kernel's registers and shared memory (as CuPy reports them
    on a GPU; as NVRTC builds them for sm_90, where NVRTC is installed)."""
    device = sampler.device
    say(f"grid: {device.grid} blocks of {gpu.BLOCK} threads; slices of {device.slice_chunks} "
        f"chunks of {CHUNK_DEALS:,} deals")
    if not emulate:
        cp = device.cp
        runtime, device_id = cp.cuda.runtime, cp.cuda.Device().id
        props = runtime.getDeviceProperties(device_id)

        def ghz(attribute: int, name: str) -> str:
            """A clock (CUDA 13's properties dropped them: asked as attributes first)."""
            try:
                return f"{runtime.deviceGetAttribute(attribute, device_id) / 1e6:.2f} GHz"
            except Exception:
                return f"{props.get(name, 0) / 1e6:.2f} GHz"

        # cudaDevAttrClockRate 13, cudaDevAttrMemoryClockRate 36 (both in kHz)
        say(f"GPU: {device.name}, {props['multiProcessorCount']} multiprocessors, "
            f"{ghz(13, 'clockRate')}, memory {ghz(36, 'memoryClockRate')}, compute "
            f"capability {props.get('major')}.{props.get('minor')}")
        for name in ("bmn_random", "bmn_blocks"):
            kernel = device.functions[name]
            say(f"{name} as loaded: {getattr(kernel, 'num_regs', '?')} registers, "
                f"{getattr(kernel, 'shared_size_bytes', '?')} B shared, "
                f"{getattr(kernel, 'local_size_bytes', '?')} B local")
    library = gpu_build.find_nvrtc()
    if library is not None:
        try:
            report = gpu_build.build(gpu.kernel_source(), "sm_90", library,
                                     gpu_build.cupy_include())
            say(f"NVRTC {report.nvrtc}: " + "; ".join(report.lines()))
        except Exception as error:   # reported; the device's own build is what runs
            say(f"NVRTC build for sm_90 failed: {error}")


def deal_by_deal(spec: SearchSpec, sampler: Any) -> int:
    """Every deal's score on the GPU against the kernel compiled for the CPU: how many
    differ."""
    t = sampler.table
    work = gpu.Work(0, DEAL_BY_DEAL, CHUNK_DEALS, 10, 2048, 4096)
    on_gpu = sampler.device.scores(t, work)
    on_cpu = gpu.EmulatedDevice().scores(t, work)
    bad = np.flatnonzero(on_gpu != on_cpu)
    for w in bad[:5]:
        chunk, deal = divmod(int(w), CHUNK_DEALS)
        row = sampler.rows(np.array([chunk], np.uint64), np.array([deal], np.uint64))[0]
        say(f"  deal {deal} of chunk {chunk} ({compact(row, spec)}): GPU {on_gpu[w]}, "
            f"CPU {on_cpu[w]} ({gpu._gpu_emulate.HANDBACK} = handed back)")
    handed = int((on_cpu == gpu._gpu_emulate.HANDBACK).sum())
    say(f"  {len(bad)} deals differ ({handed} handed back)")
    return len(bad)


def cpu_shard(args: tuple[dict, int, int, int]) -> Report:
    """One shard of ranks on the CPU's block player (in a worker process)."""
    spec_json, shard, start, deals = args
    return play_shard_cpu(SearchSpec.from_json(spec_json),
                          Task(shard, {"start": start, "deals": deals}))


def block_check(device: str, deals: int, seconds: float, emulate: bool) -> tuple[int, float]:
    """Step 6: the rank kernels against the CPU (see the module); the differences and the
    kernels' rate alone."""
    differ = 0
    high = SearchSpec.from_json({"game": "beggar", "strategy": "exhaustive", "device": device,
                                 "workers": 1,
                                 "ranks": [HIGH_RANK, HIGH_RANK + DEAL_BY_DEAL]})
    player = device_block_player(high)
    if not emulate:
        work = gpu.Work(0, DEAL_BY_DEAL, MAX_SHARD, 10, 2048, 4096, first_rank=HIGH_RANK)
        on_gpu = player.device.scores(player.table, work)
        on_cpu = gpu.EmulatedDevice().scores(player.table, work)
        differ += int((on_gpu != on_cpu).sum())
        say(f"  deal by deal from rank {HIGH_RANK:,}: {differ} of {DEAL_BY_DEAL:,} deals differ")
    first = ZANOTTO - deals // 2
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "exhaustive", "device": device,
                                 "workers": 1,
                                 "ranks": [first, first + deals], "gpu_check_every": 10,
                                 "game_options": {"rules": "italian"}})
    player = device_block_player(spec)
    player.device.slice_chunks = SLICE_CHUNKS
    t = time.perf_counter()
    on_device = play_block_on_device(spec, Task(0, {"start": first, "deals": deals}), MAX_SHARD,
                                     play_shard_cpu)
    device_s = time.perf_counter() - t
    player.device.slice_chunks = gpu.SLICE_CHUNKS
    spec_json = {**spec.to_json(), "device": "cpu", "gpu_check_every": None}
    t = time.perf_counter()
    on_cpu = on_every_core(spec, cpu_shard, [
        (spec_json, k, first + k * MAX_SHARD, min(MAX_SHARD, deals - k * MAX_SHARD))
        for k in range(-(-deals // MAX_SHARD))])
    cpu_s = time.perf_counter() - t

    def summary(report: Report) -> tuple[Any, ...]:
        cycles = sorted(r.details["rank"] for _, r in report.finds if r.outcome == "cycle")
        best = max((r.measures["cards"], r.details["rank"]) for _, r in report.finds
                   if r.outcome == "win")
        return report.deals, report.total, report.outcomes, cycles, best

    mine, theirs = summary(on_device), summary(on_cpu)
    bins = sum(int((on_cpu.histograms[m] != on_device.histograms[m]).sum())
               for m in on_cpu.histograms)
    differ += bins + sum(a != b for a, b in zip(mine, theirs, strict=True))
    say(f"  block of {deals:,} Italian deals from rank {first:,}: device {device_s:.1f} s, CPU "
        f"({os.cpu_count()} cores) {cpu_s:.1f} s; never-ending at ranks {mine[3]}, best "
        f"{mine[4][0]} cards at rank {mine[4][1]}; {counted(on_device.checked, 'shards')} "
        f"cross-checked; differences: {differ} (CPU: {theirs[2]}, cycles {theirs[3]}, best "
        f"{theirs[4]})")
    shards, played, began = 4 * SLICE_CHUNKS if emulate else 4 * gpu.SLICE_CHUNKS, 0, \
        time.perf_counter()
    start = first + deals
    while time.perf_counter() - began < seconds:
        work = gpu.Work(0, shards * MAX_SHARD, MAX_SHARD, 10, 2048, 4096, first_rank=start)
        player.device.collect(player.device.launch(player.table, work))
        played += work.n
        start += work.n
    return differ, played / (time.perf_counter() - began)


def cli_search(device: str, deals: int, seed: int, max_cards: int, folder: str) -> dict:
    """``dealsearch search random`` through the command line: its JSON summary."""
    argv = [sys.executable, "-m", "dealsearch", "search", "random", "--device", device,
            "--deals", str(deals), "--seed", str(seed), "--max-cards", str(max_cards),
            "--json", "--quiet", "--db", os.path.join(folder, f"{device}.sqlite")]
    if device == "cpu":
        argv += ["--workers", str(os.cpu_count() or 1)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=200)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[2:])}: exit {done.returncode}: "
                           f"{done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def kernel_rate(sampler: Any, first_chunk: int, seconds: float, chunks: int) -> float:
    """Deals per second of the kernels alone: whole slices, back to back, no host work but
    the small copies back."""
    device, t = sampler.device, sampler.table
    played, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        work = gpu.Work(first_chunk, chunks * CHUNK_DEALS, CHUNK_DEALS, 10, 2048, 4096)
        device.collect(device.launch(t, work))
        played += work.n
        first_chunk += chunks
    return played / (time.perf_counter() - began)


def search_rate(spec: SearchSpec, chunk: int, seconds: float) -> tuple[float, int]:
    """Deals per second of steady search play, tasks sized as the runner sizes them; and the
    task size."""
    # one task to size the others: about a second each, as the search runner sizes them
    # (a power of two chunks, all alike, so that each finds the next already launched)
    t = time.perf_counter()
    play_on_device(spec, Task(chunk, {"deals": 10 * CHUNK_DEALS}), CHUNK_DEALS, play_chunk_cpu)
    first_rate = 10 * CHUNK_DEALS / (time.perf_counter() - t)
    chunk += 10
    units = max(1, min(GPU_MAX_UNITS, int(first_rate) // CHUNK_DEALS))
    task_deals = (1 << (units.bit_length() - 1)) * CHUNK_DEALS
    played, elapsed = 0, 0.0
    while elapsed < seconds:
        t = time.perf_counter()
        play_on_device(spec, Task(chunk, {"deals": task_deals}), CHUNK_DEALS, play_chunk_cpu)
        elapsed += time.perf_counter() - t
        played += task_deals
        chunk += task_deals // CHUNK_DEALS
    return played / elapsed, task_deals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emulate", action="store_true",
                        help="the kernel compiled for the CPU, no GPU")
    parser.add_argument("--deals", type=int, help="deals compared (default: 10^7, "
                                                  "10^6 with --emulate)")
    parser.add_argument("--seconds", type=float, help="each timing's length (default: 10, "
                                                      "2 with --emulate)")
    parser.add_argument("--max-cards", type=int,
                        help="the agreed limit of the compared searches, so that some games "
                             "go back to the CPU (default: 3000, about one game in 10^6; "
                             "2000 with --emulate)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    device = "emulate" if args.emulate else "gpu"
    deals = args.deals or (10**6 if args.emulate else 10**7)
    cli_deals = 3 * 10**5 if args.emulate else 5 * 10**7
    seconds = args.seconds or (2.0 if args.emulate else 10.0)
    args.max_cards = args.max_cards or (2000 if args.emulate else 3000)
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "seed": args.seed,
                                 "device": device})
    limited = replace(spec, game_options={"max_cards": args.max_cards}, gpu_check_every=10)
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
        sampler = device_sampler(limited)
    except DeviceUnavailable as error:
        say(f"no device to check: {error}")
        say(last_line(0, 0, 0, f"none: {error}"))
        return 2
    name = state["name"] = sampler.name
    say(f"device: {name}; kernel built in {time.perf_counter() - began:.1f} s")
    try:
        describe(sampler, args.emulate)
        if not args.emulate:
            say(f"deal by deal: {DEAL_BY_DEAL:,} deals on {name} and on the CPU ...")
            state["differences"] += deal_by_deal(limited, sampler)

        say(f"exactness: {deals:,} deals of seed {args.seed}, --max-cards {args.max_cards}, "
            f"on {name} (slices of {SLICE_CHUNKS} chunks, one chunk in 10 cross-checked) and "
            "on the CPU engine ...")
        sampler.device.slice_chunks = SLICE_CHUNKS
        t = time.perf_counter()
        on_device = play_on_device(limited, Task(0, {"deals": deals}), CHUNK_DEALS, play_chunk_cpu)
        device_s = time.perf_counter() - t
        sampler.device.slice_chunks = gpu.SLICE_CHUNKS
        t = time.perf_counter()
        on_cpu = cpu_report(limited, deals)
        cpu_s = time.perf_counter() - t
        diff = differences(limited, on_cpu, on_device)
        state["differences"] += sum(diff.values())
        say(f"  device {device_s:.1f} s, CPU ({os.cpu_count()} cores) {cpu_s:.1f} s; "
            f"{len(on_device.finds)} finds, {on_cpu.outcomes[2]} games handed back at the "
            f"limit, {counted(on_device.checked, 'chunks')} cross-checked; differences: "
            + ", ".join(f"{k} {v}" for k, v in diff.items()))

        say(f"command line: dealsearch search random --device {device} --deals {cli_deals:,} "
            "and the same on the CPU ...")
        with tempfile.TemporaryDirectory() as folder:
            runs = {where: cli_search(where, cli_deals, args.seed + 1, args.max_cards, folder)
                    for where in (device, "cpu")}
        differ = [key for key in ("deals", "cards", "outcomes", "best")
                  if runs[device][key] != runs["cpu"][key]]
        state["differences"] += len(differ)
        say(f"  {device}: {runs[device]['deals']:,} deals in {runs[device]['seconds']:.1f} s "
            f"({runs[device]['deals'] / max(runs[device]['seconds'], 1e-9):,.0f} deals/s), "
            f"{counted(runs[device].get('checked_chunks', 0), 'chunks')} cross-checked, best "
            f"{runs[device]['best'] and runs[device]['best']['cards']} cards; differences from "
            f"the CPU's summary: {', '.join(differ) or 'none'}")

        chunk = 10**6       # past the deals compared: new deals
        kernel_chunks = 4 if args.emulate else 4 * gpu.SLICE_CHUNKS
        say(f"speed: the kernels alone ({kernel_chunks * CHUNK_DEALS:,} deals a work), at least "
            f"{seconds:g} s ...")
        rate = kernel_rate(sampler, chunk, seconds, kernel_chunks)
        say(f"  kernel only: {rate:,.0f} deals/s")
        say(f"speed: a search's steady play, at least {seconds:g} s ...")
        state["rate"], task_deals = search_rate(spec, 2 * 10**6, seconds)
        say(f"  search: {state['rate']:,.0f} deals/s (tasks of {task_deals:,} deals)")

        block_deals = 3 * 10**5 if args.emulate else 10**7
        say(f"blocks of ranks: exhaustive search on {name} and on the CPU ...")
        differ, block_rate = block_check(device, block_deals, seconds, args.emulate)
        state["differences"] += differ
        say(f"  rank kernels only: {block_rate:,.0f} deals/s")
    except Exception as error:   # say what failed, and still end with the summary line
        traceback.print_exc(file=sys.stdout)
        say(f"failed: {type(error).__name__}: {error}")
        say(last_line(deals, state["differences"] + 1, state["rate"], name))
        return 1
    say(f"all steps in {time.perf_counter() - began:.0f} s")
    say(last_line(deals, state["differences"], state["rate"], name))
    return 1 if state["differences"] else 0


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


if __name__ == "__main__":
    sys.exit(main())
