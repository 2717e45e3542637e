"""How fast the engine is, measured side by side against a plain per-card C loop (the yardstick).

"Fast" needs something to be fast against: ``yardstick.c`` beside this module is the simple
per-card ring-buffer loop public simulators use, compiled here at run time with the system C
compiler and the engine's flags (-O3, no -march=native) and called through ctypes. Every
contender plays the same seeded random two-player deals, in one run, so the ratios compare like
with like; the counts are checked to agree deal by deal before any figure is reported.

>>> report = run_bench(deals=2_000)                      # doctest: +SKIP
>>> print(format_bench(report))                          # doctest: +SKIP
"""

from __future__ import annotations

import ctypes
import hashlib
import multiprocessing
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _engine, _lanes
from .engine import play_batch
from .notation import STANDARD, Deal
from .reference import play_reference

_SOURCE = Path(__file__).with_name("yardstick.c")
_FLAGS = ["-O3", "-fPIC", "-shared"]  # the engine's optimisation, portable (no -march=native)
_REPEATS = 3  # each contender is timed this many times and its best time is kept
_SIZES = (26, 26)


class Yardstick:
    """The compiled per-card loop (see ``yardstick.c``), loaded through ctypes."""

    def __init__(self, library: Path) -> None:
        self.library = library
        lib = ctypes.CDLL(str(library))
        pointer, count = ctypes.c_void_p, ctypes.c_longlong
        self._rows = lib.yardstick_play_rows
        self._rows.restype = count
        self._rows.argtypes = [pointer, count, ctypes.c_int, pointer, pointer, pointer]
        self._random = lib.yardstick_play_random
        self._random.restype = count
        self._random.argtypes = [count, ctypes.c_int, pointer, pointer, ctypes.c_ulonglong,
                                 ctypes.c_ulonglong, pointer, pointer]

    def play_rows(
        self, rows: npt.NDArray[np.uint8], payments: tuple[int, ...]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Cards and tricks of each two-player deal (-1 where the guard stopped a game)."""
        rows = np.ascontiguousarray(rows, dtype=np.uint8)
        n, n_cards = rows.shape
        pay = np.array(payments, dtype=np.uint8)
        cards = np.empty(n, dtype=np.int64)
        tricks = np.empty(n, dtype=np.int64)
        self._rows(rows.ctypes.data, n, n_cards, pay.ctypes.data, cards.ctypes.data,
                   tricks.ctypes.data)
        return cards, tricks

    def play_random(
        self, n: int, deck: tuple[int, ...], payments: tuple[int, ...], seed: int, stream: int = 0
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Deal (with the engine's generator) and play ``n`` random two-player deals."""
        cards_of_deck = np.repeat(np.arange(len(deck), dtype=np.uint8), deck)
        pay = np.array(payments, dtype=np.uint8)
        cards = np.empty(n, dtype=np.int64)
        tricks = np.empty(n, dtype=np.int64)
        self._random(n, len(cards_of_deck), cards_of_deck.ctypes.data, pay.ctypes.data, seed,
                     stream, cards.ctypes.data, tricks.ctypes.data)
        return cards, tricks


def _compiler() -> str | None:
    configured = (sysconfig.get_config_var("CC") or "").split()
    for name in ([configured[0]] if configured else []) + ["cc", "gcc", "clang"]:
        if shutil.which(name):
            return name
    return None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "dealsearch"
    try:
        path.mkdir(parents=True, exist_ok=True)
        return path
    except OSError:
        return Path(tempfile.gettempdir())


def load_yardstick() -> tuple[Yardstick | None, str]:
    """Compile (once per source version and compiler) and load the yardstick.

    Returns (yardstick, note); yardstick is None, and note says why, when it cannot be built.
    """
    compiler = _compiler()
    if compiler is None:
        return None, "no C compiler found (set CC or install cc)"
    source = _SOURCE.read_bytes()
    key = hashlib.sha256(source + " ".join([compiler, *_FLAGS]).encode()).hexdigest()[:16]
    suffix = ".dll" if sys.platform == "win32" else ".so"
    library = _cache_dir() / f"yardstick-{key}{suffix}"
    if not library.exists():
        partial = library.with_name(f"{library.stem}.{os.getpid()}{suffix}")
        command = [compiler, *_FLAGS, "-o", str(partial), str(_SOURCE)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as error:
            return None, f"{compiler} failed: {error}"
        if done.returncode != 0:
            return None, f"{compiler} failed: {done.stderr.strip()[:300]}"
        os.replace(partial, library)  # atomic: concurrent builds cannot load half a file
    try:
        return Yardstick(library), f"{compiler} {' '.join(_FLAGS)}"
    except OSError as error:
        return None, f"cannot load {library}: {error}"


def machine_info() -> dict[str, Any]:
    """Where the figures were measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def _best_time(run: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(_REPEATS):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def _play_rows_chunk(rows: npt.NDArray[np.uint8]) -> int:
    return int(_engine.play_rows(rows, _SIZES, STANDARD.payments)[2].sum())


@contextmanager
def _scalar_engine() -> Iterator[None]:
    """The random player on the exact scalar engine alone (no lanes) while inside."""
    previous = _lanes.set_kernel("scalar")
    try:
        yield
    finally:
        _lanes.set_kernel(previous)


def _random_chunk(args: tuple[int, int, int]) -> int:
    n, seed, stream = args
    with _scalar_engine():
        player = _lanes.RandomPlayer(STANDARD.deck, _SIZES, STANDARD.payments, seed, stream)
        return int(player.play(n)[2][0])


def _entry(name: str, deals: int, cards: int, seconds: float) -> dict[str, Any]:
    return {"name": name, "deals": deals, "cards": cards, "seconds": seconds,
            "deals_per_s": deals / seconds, "cards_per_s": cards / seconds}


GPU_DEALS = 200_000_000     # the GPU row times this many deals at least (a GPU needs work)


def _gpu_row(deals: int, seed: int, engine_cards: int, engine_tricks: int
             ) -> tuple[dict[str, Any] | None, str, int]:
    """The GPU's row, if this machine has CuPy and a GPU: (entry, note, mismatches). The GPU
    first plays the bench's own deals (stream 0 of ``seed``; their totals must be the
    engine's), then is timed on at least GPU_DEALS deals (a whole random-search report each)."""
    from ...plugin import DeviceUnavailable
    from .gpu import CupyDevice, GpuSampler
    from .options import beggar_options

    try:
        device = CupyDevice()
    except DeviceUnavailable as error:
        return None, str(error), 0
    sampler = GpuSampler(beggar_options(), seed, "cards", device)
    hists = [np.zeros(2048, dtype=np.int64), np.zeros(4096, dtype=np.int64)]
    same = sampler.play(0, deals, deals, hists, [10, 1])
    mismatches = int(bool(same.handbacks) or same.totals != [engine_cards, engine_tricks])
    timed = max(deals, GPU_DEALS)
    sampler.play(0, min(timed, 10_000_000), 100_000, hists, [10, 1])     # warm up
    seconds, played = _best_time(lambda: sampler.play(0, timed, 100_000, hists, [10, 1]))
    return (_entry(f"gpu ({device.name}, generation included)", timed, played.totals[0],
                   seconds), device.name, mismatches)


def run_bench(deals: int = 200_000, workers: int = 1, seed: int = 1) -> dict[str, Any]:
    """Play the same seeded random two-player deals through every contender; time and check.

    Contenders: the engine on rows (``play_batch``), the engine dealing its own deals
    (``RandomPlayer``: generation included; it deals exactly the rows of ``random_rows``), the
    lanes engine (``_lanes``, the widest kernel this machine runs) both ways, the
    yardstick on the same rows and dealing the same deals itself, and the pure-Python reference
    on a subset (``deals // 100``, at least 200). Each is timed ``_REPEATS`` times, best kept.
    With ``workers > 1`` the engine is also run in that many processes, to show the scaling.
    Where CuPy finds a GPU, the GPU engine (``--device gpu``) gets a row too, checked on the
    same deals and timed on at least ``GPU_DEALS``.

    Returns a dict: ``machine``, ``deals``, ``seed``, ``workers``, ``yardstick`` (how it was
    built, or why not), ``results`` (name, deals, cards, seconds, deals_per_s, cards_per_s and
    ``vs_yardstick`` where it applies) and ``checks`` (mismatch counts; all must be 0).
    """
    if deals < 1 or workers < 1:
        raise ValueError("deals and workers must be at least 1")
    rows = _engine.random_rows(STANDARD.deck, deals, seed, 0)
    results: list[dict[str, Any]] = []
    checks: dict[str, Any] = {}

    seconds, batch = _best_time(lambda: play_batch(rows, STANDARD))
    engine_cards = int(batch.cards.sum())
    engine = _entry("engine (play_batch, rows given)", deals, engine_cards, seconds)
    results.append(engine)

    def deal_and_play() -> tuple[Any, ...]:
        player = _lanes.RandomPlayer(STANDARD.deck, _SIZES, STANDARD.payments, seed, 0)
        return player.play(deals, max_finds=1 << 20)

    with _scalar_engine():
        seconds, played = _best_time(deal_and_play)
    engine_gen = _entry("engine + generation (RandomPlayer)", deals, int(played[2][0]), seconds)
    results.append(engine_gen)
    # RandomPlayer deals the rows of random_rows: the totals must be the same games'
    checks["random_player_total_mismatch"] = int(
        played[2].tolist() != [engine_cards, int(batch.tricks.sum())])

    # The lanes engine (_lanes: several deals at once, one per SIMD lane) on the
    # same rows and dealing the same deals; its results must be the engine's, deal by deal.
    kernel = _lanes.kernel()
    seconds, lanes_batch = _best_time(lambda: _lanes.play_rows(rows, _SIZES, STANDARD.payments))
    lanes = _entry(f"lanes ({kernel}, rows given)", deals, int(lanes_batch[2].sum()), seconds)
    results.append(lanes)
    checks["lanes_vs_engine_mismatches"] = int(
        (lanes_batch[0] != batch.outcome).sum() + (lanes_batch[2] != batch.cards).sum()
        + (lanes_batch[3] != batch.tricks).sum() + (lanes_batch[1] + 1 != batch.winner).sum())

    seconds, lanes_played = _best_time(deal_and_play)
    lanes_gen = _entry(f"lanes + generation ({kernel})", deals, int(lanes_played[2][0]),
                       seconds)
    results.append(lanes_gen)
    checks["lanes_random_player_mismatches"] = int(
        lanes_played[0] != played[0]
        or not all(np.array_equal(a, b) for a, b in zip(lanes_played[1:], played[1:],
                                                          strict=True)))

    yardstick, note = load_yardstick()
    ys_rows = ys_gen = None
    if yardstick is not None:
        seconds, (ys_cards, ys_tricks) = _best_time(
            lambda: yardstick.play_rows(rows, STANDARD.payments))
        finished = ys_cards >= 0
        ys_rows = _entry("yardstick (per-card C, rows given)", deals, int(ys_cards[finished].sum()),
                         seconds)
        # a game the guard stopped must be one the engine found endless, and vice versa
        checks["engine_vs_yardstick_mismatches"] = int(
            (finished != (batch.outcome != 1)).sum()
            + (batch.cards[finished] != ys_cards[finished]).sum()
            + (batch.tricks[finished] != ys_tricks[finished]).sum())
        seconds, (gen_cards, gen_tricks) = _best_time(
            lambda: yardstick.play_random(deals, STANDARD.deck, STANDARD.payments, seed, 0))
        ys_gen = _entry("yardstick + generation", deals, int(gen_cards[gen_cards >= 0].sum()),
                        seconds)
        checks["yardstick_generation_mismatches"] = int(
            (gen_cards != ys_cards).sum() + (gen_tricks != ys_tricks).sum())
        results += [ys_rows, ys_gen]
        engine["vs_yardstick"] = engine["deals_per_s"] / ys_rows["deals_per_s"]
        engine_gen["vs_yardstick"] = engine_gen["deals_per_s"] / ys_gen["deals_per_s"]
        lanes["vs_yardstick"] = lanes["deals_per_s"] / ys_rows["deals_per_s"]
        lanes_gen["vs_yardstick"] = lanes_gen["deals_per_s"] / ys_gen["deals_per_s"]

    subset = min(deals, max(200, deals // 100))
    hands = [Deal((tuple(row[:26].tolist()), tuple(row[26:].tolist()))) for row in rows[:subset]]
    start = time.perf_counter()
    reference = [play_reference(deal, STANDARD) for deal in hands]
    seconds = time.perf_counter() - start
    ref = _entry("pure-Python reference (subset)", subset,
                 sum(result.cards for result in reference), seconds)
    if ys_rows is not None:
        ref["vs_yardstick"] = ref["deals_per_s"] / ys_rows["deals_per_s"]
    results.append(ref)
    checks["reference_deals"] = subset
    checks["reference_mismatches"] = sum(
        batch.result(i) != result for i, result in enumerate(reference))

    scaling: list[dict[str, Any]] = []
    if workers > 1:
        chunks = np.array_split(rows, workers)
        sizes = [len(chunk) for chunk in chunks]
        context = multiprocessing.get_context("spawn" if sys.platform == "win32" else None)
        with context.Pool(workers) as pool:
            pool.map(_play_rows_chunk, [chunk[:10] for chunk in chunks])  # start the workers
            seconds, totals = _best_time(lambda: pool.map(_play_rows_chunk, chunks))
            scaling.append(_entry(f"engine rows, {workers} processes", deals, sum(totals),
                                  seconds))
            tasks = [(size, seed, stream) for stream, size in enumerate(sizes)]
            seconds, totals = _best_time(lambda: pool.map(_random_chunk, tasks))
            scaling.append(_entry(f"engine + generation, {workers} processes", deals,
                                  sum(totals), seconds))
        scaling[0]["speedup"] = scaling[0]["deals_per_s"] / engine["deals_per_s"]
        scaling[1]["speedup"] = scaling[1]["deals_per_s"] / engine_gen["deals_per_s"]

    # last: CUDA is started only once the worker processes above are done
    gpu, gpu_note, checks["gpu_total_mismatches"] = _gpu_row(
        deals, seed, engine_cards, int(batch.tricks.sum()))
    if gpu is not None:
        if ys_gen is not None:
            gpu["vs_yardstick"] = gpu["deals_per_s"] / ys_gen["deals_per_s"]
        results.append(gpu)

    return {
        "machine": machine_info(),
        "gpu": gpu_note,
        "deals": deals,
        "seed": seed,
        "workers": workers,
        "yardstick": note,
        "results": results,
        "scaling": scaling,
        "checks": checks,
    }


TIMES = "\N{MULTIPLICATION SIGN}"


def format_bench(report: dict[str, Any]) -> str:
    """The report of :func:`run_bench` as a table."""
    machine = report["machine"]
    lines = [
        f"{machine['cpu']} ({machine['cpus']} CPUs), {machine['platform']}, "
        f"Python {machine['python']}",
        f"{report['deals']:,} random 2-player deals, seed {report['seed']}; best of "
        f"{_REPEATS} runs; yardstick: {report['yardstick']}",
        *([f"gpu: {report['gpu']}"] if report.get("gpu") else []),
        "",
        f"{'contender':38} {'deals/s':>12} {'cards/s':>10} {'ns/card':>8} {'vs yardstick':>13}",
    ]
    # The columns and figures of the tables on the performance page (docs/performance.md).
    for entry in report["results"] + report["scaling"]:
        ratio = f"{entry['vs_yardstick']:.2f}{TIMES}" if "vs_yardstick" in entry else ""
        if "speedup" in entry:
            ratio = f"({entry['speedup']:.2f}{TIMES} 1 proc)"
        lines.append(
            f"{entry['name']:38} {entry['deals_per_s']:>12,.0f} "
            f"{entry['cards_per_s'] / 1e6:>8.1f} M {1e9 / entry['cards_per_s']:>8.2f} "
            f"{ratio:>13}")
    checks = report["checks"]
    bad = {name: value for name, value in checks.items()
           if name != "reference_deals" and value}
    lines.append("")
    lines.append(
        f"checks: engine = yardstick = lanes on every deal, engine = reference on "
        f"{checks['reference_deals']:,} deals: " + ("all agree" if not bad else f"FAILED {bad}"))
    return "\n".join(lines)
