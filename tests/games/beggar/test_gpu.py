"""The GPU engine without a GPU: its kernel's C (``_gpu_step.h``, ``_deals.h``), compiled for
the CPU as ``_gpu_emulate``, plays every deal as the exact engine does; the host side
(``games/beggar/gpu.py``, ``search/device.py``) turns what the device reports into the very
report the CPU search gives for the same seed; and the CUDA source builds where nvcc is.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.devices import DeviceUnavailable
from dealsearch.games.beggar import _engine, _gpu_emulate, gpu, gpu_build
from dealsearch.games.beggar.notation import STANDARD
from dealsearch.games.beggar.options import beggar_options
from dealsearch.search import device as device_module
from dealsearch.search.base import Task
from dealsearch.search.device import task_finds
from dealsearch.search.random_search import play_chunk
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find

WIN = 0
CHUNK = 100_000


def rows_of(table, first_stream, n, chunk_deals=CHUNK):
    w = np.arange(n, dtype=np.uint64)
    return _gpu_emulate.deal_rows(table.courts, table.total, table.seed_key,
                                  first_stream + w // np.uint64(chunk_deals),
                                  w % np.uint64(chunk_deals))


def chunk_records(scores, settled, chunk_deals):
    """Each chunk's running-best deals (positions in it): what bmn_records must find."""
    found = []
    for c in range(0, len(scores), chunk_deals):
        s = np.where(settled[c:c + chunk_deals], scores[c:c + chunk_deals], 0).astype(np.int64)
        before = np.concatenate([[0], np.maximum.accumulate(s)[:-1]])
        found.append(np.flatnonzero(s > before))
    return found


def check_against_engine(options, seed, n, objective="cards", slice_chunks=None,
                         chunk_deals=CHUNK, first_stream=3):
    """The emulated kernel's launch of n deals, slice by slice, against the exact engine deal
    by deal: the games it settles are the engine's wins below the caps, it hands back the
    others (cycles, limits, past the caps) each once, and its totals, histograms, chunk
    records and scores are those of the engine's games. Returns the engine's outcomes and which
    deals were handed back."""
    table = gpu.KernelTable.build(options, seed, objective)
    device = gpu.EmulatedDevice()
    if slice_chunks:
        device.slice_chunks = slice_chunks
    run = device.collect(device.launch(table, gpu.Work(first_stream, n, chunk_deals, 10, 2048,
                                                       4096)))
    rows = rows_of(table, first_stream, n, chunk_deals)
    outcome, _, cards, tricks, _, _ = _engine.play_rows(
        rows, options.sizes, options.game_rules.payments, options.max_cards, options.max_tricks)
    measure = tricks if objective == "tricks" else cards
    # handed back: every game the engine does not win below the caps (a game whose last
    # trick reaches the tricks cap may be either: the kernel counts tricks before the last)
    settled = np.ones(n, dtype=bool)
    settled[run.handbacks] = False
    won = (outcome == WIN) & (cards < table.cap_cards)
    assert not (settled & ~(won & (tricks <= table.cap_tricks))).any()
    assert settled[won & (tricks < table.cap_tricks)].all()
    assert run.totals.tolist() == [settled.sum(), (~settled).sum(), cards[settled].sum(),
                                   tricks[settled].sum()]
    assert (run.card_hist == np.bincount(np.minimum(cards[settled] // 10, 2047),
                                         minlength=2048)).all()
    assert (run.trick_hist == np.bincount(np.minimum(tricks[settled], 4095),
                                          minlength=4096)).all()
    for c, want in enumerate(chunk_records(measure, settled, chunk_deals)):
        kept = min(len(want), gpu.RECORD_ROOM)
        assert run.record_counts[c] == len(want)
        assert run.records[c, :kept].tolist() == want[:kept].tolist()
        assert (run.record_scores[c, :kept] == measure[c * chunk_deals + want[:kept]]).all()
    if n <= device.slice_chunks * chunk_deals:      # one slice: its scores, deal by deal
        scores = device.host(device.score_buffer[:n])
        assert (scores == np.where(settled, measure, _gpu_emulate.HANDBACK)).all()
    return outcome, ~settled


def test_the_cpu_players_deal_the_kernels_deals() -> None:
    table = gpu.KernelTable.build(beggar_options(), 11, "cards")
    for stream in (0, 5):
        rows = _engine.random_rows(STANDARD.deck, 1000, 11, stream)
        assert (rows == rows_of(table, stream, 1000, chunk_deals=1000)).all()


def test_deal_d_of_a_stream_does_not_depend_on_the_deals_before_it() -> None:
    table = gpu.KernelTable.build(beggar_options(), 4, "cards")
    rows = _engine.random_rows(STANDARD.deck, 500, 4, 2)
    picked = np.array([499, 0, 250], dtype=np.uint64)
    again = _gpu_emulate.deal_rows(table.courts, 52, table.seed_key,
                                   np.full(3, 2, dtype=np.uint64), picked)
    assert (again == rows[picked.astype(np.int64)]).all()


def test_the_kernels_own_code_plays_a_million_deals_as_the_engine() -> None:
    """The kernel's loop, dealing, sums and hand-back list, run for the CPU: 10^6 deals in
    three launches (slices of 4 chunks), a cap low enough that some games go back."""
    _, handed = check_against_engine(beggar_options(max_cards=2000), 2, 1_000_000,
                                     slice_chunks=4)
    assert 20 < handed.sum() < 1000 and np.flatnonzero(handed).max() > 800_000


def test_the_kernel_plays_standard_deals_as_the_engine() -> None:
    _, handed = check_against_engine(beggar_options(), 1, 100_000)
    assert not handed.any()     # no known 2-player 52-card game is past the cap


def test_the_kernel_hands_back_every_cycle_of_a_small_deck() -> None:
    options = beggar_options(deck="------JJQQK")
    outcome, handed = check_against_engine(options, 5, 100_000, slice_chunks=3,
                                           chunk_deals=7_000)
    assert (outcome == 1).sum() > 100       # cycles happen, and all are handed back
    assert handed[outcome == 1].all()


@pytest.mark.parametrize("values", [{"max_cards": 400}, {"max_tricks": 40},
                                    {"hand_sizes": "30/22"}], ids=str)
def test_the_kernel_respects_limits_and_uneven_hands(values) -> None:
    outcome, handed = check_against_engine(beggar_options(**values), 6, 50_000)
    if values.keys() & {"max_cards", "max_tricks"}:
        assert (outcome == 2).sum() > 100   # the limit bites, and every limited game is back
        assert handed[outcome == 2].all()


@pytest.mark.parametrize(("n", "chunk_deals", "slice_chunks"), [(37, 10, 1), (1, 5, 2),
                                                              (2_000, 999, 2)])
def test_launches_smaller_than_a_warps_deals_play_each_deal_once(n, chunk_deals,
                                                                 slice_chunks) -> None:
    """Slices of fewer deals than a warp takes at once (the work counter runs dry mid-warp),
    and of a few: every deal is played once, none twice."""
    check_against_engine(beggar_options(), 5, n, slice_chunks=slice_chunks,
                         chunk_deals=chunk_deals)


def test_the_kernel_scores_by_tricks() -> None:
    check_against_engine(beggar_options(), 8, 50_000, objective="tricks")


def test_chunk_records_past_the_room_are_counted() -> None:
    """A deck whose chunks set more records than a chunk keeps: all counted, the first kept."""
    check_against_engine(beggar_options(deck="-" * 20 + "JJQQKKAA"), 3, 25_000,
                         chunk_deals=7_000)


def spec(device, **values):
    return SearchSpec.from_json({"strategy": "random", "game": "beggar", "seed": 9,
                                 "device": device, **values})


def same_report(device_values, task):
    cpu = play_chunk(spec("cpu", **device_values), task)
    emulated = play_chunk(spec("emulate", **device_values), task)
    assert (cpu.deals, cpu.total, cpu.outcomes) == (emulated.deals, emulated.total,
                                                     emulated.outcomes)
    for measure, hist in cpu.histograms.items():
        assert (hist == emulated.histograms[measure]).all()
    assert [(deal, r.to_json()) for deal, r in task_finds(spec("cpu", **device_values),
                                                          cpu.finds)] == [
        (deal, r.to_json()) for deal, r in emulated.finds]
    return cpu, emulated


def test_the_emulated_device_reports_what_the_cpu_search_does() -> None:
    cpu, emulated = same_report({}, Task(4, {"deals": 250_000}))   # two chunks and a half
    # each chunk's records are found; those below a longer find of the task are not reported
    assert len(cpu.finds) > len(emulated.finds) > 3


def test_chunks_with_cycles_and_limits_give_the_cpu_report() -> None:
    _, report = same_report({"deck": "------JJQQK"}, Task(0, {"deals": 120_000}))
    assert any(r.outcome == "cycle" for _, r in report.finds)
    _, report = same_report({"max_cards": 900}, Task(2, {"deals": 100_000}))
    assert report.outcomes[2] > 0


def test_a_device_refuses_what_its_kernel_cannot_play() -> None:
    for values, words in (({"players": 3}, "two players"),
                          ({"deck": "-" * 60 + "JJQQKKAA"}, "52")):
        with pytest.raises(ValueError, match=words):
            spec("gpu", **values)
    with pytest.raises(ValueError, match="is for random and exhaustive searches"):
        SearchSpec.from_json({"game": "beggar", "strategy": "climb", "device": "gpu"})
    with pytest.raises(ValueError, match="durak has no engine for random searches on --device "
                                         "gpu"):
        SearchSpec.from_json({"strategy": "random", "device": "gpu", "game": "durak"})
    with pytest.raises(ValueError, match="unknown device"):
        spec("tpu")


def test_without_cupy_device_gpu_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)     # import cupy raises ImportError
    code = main(["search", "random", "--device", "gpu", "--deals", "1000", "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["dealsearch: error: --device gpu needs CuPy: pip install 'dealsearch[gpu]' "
                   "(a CUDA 13 driver; for a CUDA 12 driver: pip install cupy-cuda12x "
                   "nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12)"]
    assert not (tmp_path / "log.sqlite").exists()


def test_search_on_the_emulated_device_logs_the_cpu_runs_finds(capsys, tmp_path) -> None:
    lines = {}
    for device in ("cpu", "emulate"):
        code = main(["search", "random", "--device", device, "--deals", "200000", "--seed", "3",
                     "--workers", "1", "--json", "--db", str(tmp_path / f"{device}.sqlite")])
        assert code == 0
        out = capsys.readouterr().out.strip().splitlines()
        lines[device] = [line for line in out[:-1]], out[-1]
    assert lines["cpu"][0] == lines["emulate"][0] and lines["cpu"][0]
    cpu, emulated = json.loads(lines["cpu"][1]), json.loads(lines["emulate"][1])
    for key in ("deals", "outcomes", "best"):
        assert cpu[key] == emulated[key]


def test_the_kernel_source_pastes_its_headers() -> None:
    source = gpu.kernel_source()
    assert '#include "' not in source
    assert "ds_game_step" in source and "ds_deal_planes" in source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc (CUDA toolkit) here")
def test_the_cuda_kernel_compiles_for_hopper(tmp_path) -> None:
    cu = tmp_path / "kernel.cu"
    cu.write_text(gpu.kernel_source())
    done = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", str(tmp_path / "k.cubin"),
                           str(cu)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower(), done.stderr


# ---------------------------------------------------------------- CupyDevice's host side
# CuPy cannot run here, so a stand-in module plays its part: arrays are numpy arrays with
# CuPy's .get(), and the two kernels are the emulation, called with exactly the arguments the
# host passes, each checked against the C type of that parameter in _gpu_kernel.cu. What this
# tests is CupyDevice's own part (device, grid, streams, copies back) on top of KernelHost.

C_TYPES = {"unsigned long long": np.uint64, "int": np.int32, "unsigned int": np.uint32,
           "unsigned char": np.uint8}


def kernel_parameters(name):
    """(C type, is pointer) of each parameter of kernel ``name`` in _gpu_kernel.cu."""
    import re

    source = re.sub(r"/\*.*?\*/", "", gpu.KERNEL.read_text(), flags=re.DOTALL)
    body = re.search(rf"__global__ void (?:__launch_bounds__\(.*?\) )?{name}\((.*?)\)\s*{{",
                     source, re.DOTALL)[1]
    parameters = []
    for text in body.split(","):
        words = text.replace("const", "").replace("*", " * ").split()
        pointer = "*" in words
        parameters.append((" ".join(w for w in words[:-1] if w != "*"), pointer))
    return parameters


class DeviceArray(np.ndarray):
    def get(self):
        return np.array(self)


def device(array):
    return np.asarray(array).view(DeviceArray)


def checked(name, args):
    parameters = kernel_parameters(name)
    assert len(args) == len(parameters), name
    for i, (arg, (ctype, pointer)) in enumerate(zip(args, parameters, strict=True)):
        if pointer:
            assert isinstance(arg, np.ndarray) and arg.dtype == C_TYPES[ctype], (name, i)
            assert arg.flags.c_contiguous, (name, i)
        else:
            assert type(arg) is C_TYPES[ctype], (name, i, type(arg))
    return args


def fake_play(grid, block, args):
    _gpu_emulate.bmn_random(grid, block, checked("bmn_random", args))


def fake_records(grid, block, args):
    _gpu_emulate.bmn_records(grid, block, checked("bmn_records", args))


def fake_unrank(grid, block, args):
    _gpu_emulate.bmn_unrank(grid, block, checked("bmn_unrank", args))


def fake_blocks(grid, block, args):
    _gpu_emulate.bmn_blocks(grid, block, checked("bmn_blocks", args))


class FakeStream:
    def __init__(self, non_blocking=False):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


class FakeEvent:
    def record(self, stream):
        pass

    def synchronize(self):
        pass


class FakeModule:
    def __init__(self, code, options=()):
        assert '#include "' not in code     # the headers are pasted in
        self.kernels = {"bmn_random": fake_play, "bmn_records": fake_records,
                        "bmn_unrank": fake_unrank, "bmn_blocks": fake_blocks}

    def get_function(self, name):
        return self.kernels[name]


def no_occupancy(*args):
    raise AttributeError("an older CuPy")


FAKE_CUPY = SimpleNamespace(
    uint8=np.uint8, uint32=np.uint32, uint64=np.uint64, int32=np.int32,
    asarray=lambda a: device(np.array(a)),
    empty=lambda shape, dtype: device(np.empty(shape, dtype)),
    zeros=lambda shape, dtype: device(np.zeros(shape, dtype)),
    RawModule=FakeModule,
    cuda=SimpleNamespace(
        runtime=SimpleNamespace(getDeviceCount=lambda: 1, CUDARuntimeError=RuntimeError,
                                getDeviceProperties=lambda i: {"name": b"Fake GPU",
                                                               "multiProcessorCount": 2}),
        Device=lambda: SimpleNamespace(id=0),
        driver=SimpleNamespace(occupancyMaxActiveBlocksPerMultiprocessor=no_occupancy),
        Stream=FakeStream, Event=FakeEvent))


@pytest.mark.parametrize("deck", ["------JJQQK", "exact"])
def test_the_cupy_host_slices_a_run_and_gets_the_emulations_results(monkeypatch, deck):
    monkeypatch.setitem(sys.modules, "cupy", FAKE_CUPY)
    monkeypatch.setattr(gpu, "SLICE_CHUNKS", 2)     # 5.5 chunks: three slices, one short
    on_gpu = gpu.CupyDevice()
    assert on_gpu.name == "Fake GPU" and on_gpu.grid == 2 * 4
    table = gpu.KernelTable.build(beggar_options(deck=deck), 12, "cards")
    work = gpu.Work(7, 5_500, 1_000, 10, 2048, 4096)
    runs = {name: where.collect(where.launch(table, work))
            for name, where in (("gpu", on_gpu), ("cpu", gpu.EmulatedDevice()))}
    for field in ("totals", "card_hist", "trick_hist", "handbacks", "record_counts",
                  "records", "record_scores"):
        assert (getattr(runs["gpu"], field) == getattr(runs["cpu"], field)).all(), field
    if deck != "exact":
        assert len(runs["cpu"].handbacks) > 5     # cycles, in more than one slice
        assert runs["cpu"].handbacks.max() > 4_000


def test_the_cupy_host_plays_a_block_of_ranks_as_the_emulation(monkeypatch):
    """The rank kernels launched by CupyDevice (bmn_unrank then bmn_blocks per slice, their
    arguments checked against _gpu_kernel.cu's parameters), and the next block launched
    ahead: the emulation's results."""
    monkeypatch.setitem(sys.modules, "cupy", FAKE_CUPY)
    monkeypatch.setattr(gpu, "SLICE_CHUNKS", 2)
    on_gpu = gpu.CupyDevice()
    launched = []
    real_launch = on_gpu.launch
    monkeypatch.setattr(on_gpu, "launch", lambda t, work: launched.append(work.first_rank)
                        or real_launch(t, work))
    options = beggar_options(rules="italian")
    player = gpu.GpuBlocks(options, "cards", on_gpu)
    twin = gpu.GpuBlocks(options, "cards", gpu.EmulatedDevice())
    first = 90016849133615 - 2_500      # Zanotto's never-ending deal: a hand-back
    plays = []
    for start in (first, first + 5_500, first - 10**9):
        hists = [np.zeros(2048, np.int64), np.zeros(4096, np.int64)]
        twin_hists = [np.zeros(2048, np.int64), np.zeros(4096, np.int64)]
        plays.append(player.play(start, 4, 5_500, 1_000, hists, [10, 1]))
        assert plays[-1] == twin.play(start, 4, 5_500, 1_000, twin_hists, [10, 1])
        assert all((a == b).all() for a, b in zip(hists, twin_hists, strict=True))
    assert plays[0].handbacks == [(4 + 2, 500)] and plays[0].counts[0] == 5_499
    assert launched == [first, first + 5_500, first + 5_500, first + 11_000, first - 10**9,
                        first - 10**9 + 5_500]


def test_the_gpu_plays_the_next_chunks_while_the_host_reports(monkeypatch):
    """Each call launches the chunks after its own; a call for them takes that work, a call
    for other chunks launches its own: either way the results are the emulation's."""
    monkeypatch.setitem(sys.modules, "cupy", FAKE_CUPY)
    on_gpu = gpu.CupyDevice()
    launched = []
    real_launch = on_gpu.launch
    monkeypatch.setattr(on_gpu, "launch", lambda t, work: launched.append(work.first_stream)
                        or real_launch(t, work))
    options = beggar_options()
    sampler = gpu.GpuSampler(options, 5, "cards", on_gpu)
    twin = gpu.GpuSampler(options, 5, "cards", gpu.EmulatedDevice())
    for first in (3, 5, 7, 2):      # 3 and 5 follow on; 7 is not 5's next (2 chunks)...
        deals = 2_000 if first != 5 else 1_500
        hists = [np.zeros(2048, np.int64), np.zeros(4096, np.int64)]
        twin_hists = [np.zeros(2048, np.int64), np.zeros(4096, np.int64)]
        assert sampler.play(first, deals, 1_000, hists, [10, 1]) == twin.play(
            first, deals, 1_000, twin_hists, [10, 1])
        assert all((a == b).all() for a, b in zip(hists, twin_hists, strict=True))
    assert launched == [3, 5, 5, 7, 7, 9, 2, 4]    # 5 was ahead (taken); 7 was not (wrong size)


def test_an_interrupted_device_run_resumes_to_the_cpu_runs_log(capsys, tmp_path):
    """A device run keeps the runner's promises: interrupted after its first find and resumed,
    it logs the counts, best and finds of the same run left alone on the CPU."""
    from dealsearch.log import RecordLog
    from dealsearch.search.runner import Runner

    db = str(tmp_path / "device.sqlite")
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "deals": 400_000,
                                 "seed": 6,
                                 "workers": 1, "device": "emulate"})
    ctrl_c = ctrl_c_after_first_find()

    log = RecordLog(db)
    interrupted = Runner(spec, log, on_find=ctrl_c, progress=False).run()
    log.close()
    assert interrupted.status == "interrupted" and interrupted.deals < spec.deals
    runs = {}
    for name, argv in (("device", ["--resume", str(interrupted.run_id), "--db", db]),
                       ("cpu", ["random", "--deals", "400000", "--seed", "6", "--workers", "1",
                                "--db", str(tmp_path / "cpu.sqlite")])):
        assert main(["search", *argv, "--json", "--quiet"]) == 0
        runs[name] = json.loads(capsys.readouterr().out.splitlines()[-1])
    for key in ("deals", "cards", "outcomes", "best"):
        assert runs["device"][key] == runs["cpu"][key], key
    finds = {}
    for name, path in (("device", db), ("cpu", str(tmp_path / "cpu.sqlite"))):
        assert main(["records", "--json", "--db", path]) == 0
        finds[name] = [{k: v for k, v in json.loads(line).items() if k in ("deal", "cards")}
                       for line in capsys.readouterr().out.splitlines()]
    assert finds["device"] == finds["cpu"] and finds["cpu"]


@pytest.mark.slow
def test_the_device_check_runs_end_to_end_on_the_emulation(tmp_path) -> None:
    """benchmarks/gpu_check.py --emulate: every step a GPU session runs, on the kernel
    compiled for the CPU, and the last line that session reads."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "gpu_check.py"),
                           "--emulate", "--deals", "300000", "--seconds", "0.5"],
                          capture_output=True, text=True, timeout=600)   # the installed one
    out = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert any("games handed back at the limit" in line and "finds 0" in line for line in out)
    assert any("differences from the CPU's summary: none" in line for line in out)
    assert any("never-ending at ranks [90016849133615]" in line and "differences: 0 " in line
               for line in out)
    assert out[-1].startswith("gpu check: 300000 deals, 0 differences, ")
    assert out[-1].endswith(" deals/s (CPU emulation of the GPU kernel)")


def launch_args(**changes):
    """bmn_random's arguments for 10 deals, as the host passes them, with some changed."""
    u64, i32 = np.uint64, np.int32
    args = {"pay_word": u64(0), "size0": i32(26), "total": i32(52), "cap_cards": i32(100),
            "cap_tricks": i32(100), "by_tricks": i32(0), "courts": np.zeros(4, np.uint8),
            "n_courts": i32(4), "seed_key": u64(0), "first_stream": u64(0),
            "chunk_deals": u64(10), "n": u64(10), "work": np.zeros(1, u64),
            "scores": np.zeros(10, np.uint32), "handbacks": np.zeros(4, u64),
            "handback_count": np.zeros(1, u64), "handback_room": u64(4), "w_base": u64(0),
            "totals": np.zeros(4, u64), "card_hist": np.zeros(5, u64), "card_bins": i32(5),
            "card_bin": i32(10), "trick_hist": np.zeros(5, u64), "trick_bins": i32(5)}
    return tuple({**args, **changes}.values())


@pytest.mark.parametrize(("call", "words"), [
    (lambda: _gpu_emulate.bmn_random((1,), (256,), launch_args(total=np.int32(60))),
     "total"),
    (lambda: _gpu_emulate.bmn_random((1,), (256,), launch_args(totals=np.zeros(3, np.uint64))),
     "totals"),
    (lambda: _gpu_emulate.bmn_random((1,), (256,), launch_args(n_courts=np.int32(60))),
     "n_courts"),
    (lambda: _gpu_emulate.bmn_random((1,), (256,), launch_args(n=10)), "n must be a uint64"),
    (lambda: _gpu_emulate.bmn_random((1,), (256,), launch_args(scores=np.zeros(9, np.uint32))),
     "scores"),
    (lambda: _gpu_emulate.bmn_random((1,), (128,), launch_args()), "launch"),
    (lambda: _gpu_emulate.bmn_records((1,), (128,), (np.zeros(10, np.int64), np.uint64(10),
                                                     np.uint64(5), np.zeros(8, np.uint32),
                                                     np.zeros(8, np.uint32),
                                                     np.zeros(2, np.int32), np.int32(4))),
     "scores"),
    (lambda: _gpu_emulate.deal_rows(np.zeros(4, np.uint8), 52, 0, np.zeros(2, np.uint64),
                                    np.zeros(3, np.uint64)), "as long"),
    (lambda: _gpu_emulate.deal_rows(np.zeros(4, np.uint8), 65, 0, np.zeros(2, np.uint64),
                                    np.zeros(2, np.uint64)), "n_cards"),
], ids=["deck", "totals", "courts", "type", "scores", "block", "records", "lengths", "cards"])
def test_the_emulation_checks_its_launch_arguments(call, words) -> None:
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize(("driver", "error", "words"), [
    (True, None, "--device gpu: no GPU found"),
    (False, "CUDA driver version is insufficient for CUDA runtime version",
     "--device gpu: no GPU here (no NVIDIA driver is installed)"),
    (True, "CUDA driver version is insufficient for CUDA runtime version",
     "--device gpu: the NVIDIA driver is older than CuPy's CUDA (CUDA driver version is "
     "insufficient for CUDA runtime version): update the driver, or for a CUDA 12 driver: "
     "pip install cupy-cuda12x nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12"),
    (True, "unknown error", "--device gpu: no usable GPU (unknown error)"),
], ids=["no GPU", "no driver", "old driver", "other"])
def test_cupy_without_a_gpu_is_one_line(monkeypatch, driver, error, words) -> None:
    def broken() -> int:
        raise RuntimeError(error)

    runtime = SimpleNamespace(**{**vars(FAKE_CUPY.cuda.runtime),
                                 "getDeviceCount": broken if error else lambda: 0})
    cuda = SimpleNamespace(**{**vars(FAKE_CUPY.cuda), "runtime": runtime})
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(**{**vars(FAKE_CUPY),
                                                                "cuda": cuda}))
    monkeypatch.setattr(gpu, "nvidia_driver", lambda: driver)
    with pytest.raises(DeviceUnavailable) as raised:
        gpu.CupyDevice()
    assert str(raised.value) == words


# ---------------------------------------------------------------- the run-time build
NVRTC = gpu_build.find_nvrtc()


@pytest.mark.skipif(NVRTC is None, reason="no NVRTC here: pip install nvidia-cuda-nvrtc "
                                          "(the test extra has it)")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_run_time_source_builds_with_nvrtc_without_spills(arch, capsys) -> None:
    """kernel_source() built by NVRTC with CuPy's options, as a run builds it: no error, no
    spill, no local memory, and the shared memory a block may declare."""
    report = gpu_build.build(gpu.kernel_source(), arch, NVRTC, gpu_build.cupy_include())
    with capsys.disabled():
        print(f"\nNVRTC {report.nvrtc}: " + "; ".join(report.lines()))
    assert set(report.kernels) == set(gpu.KERNELS)
    for name, use in report.kernels.items():
        assert use.spill_bytes == 0 and use.stack_bytes == 0, (name, report.log)
        assert 0 < use.registers <= 64, name       # 4 blocks of 256 threads per SM
        assert use.shared_bytes <= 48 * 1024, name
    assert "warning" not in report.log.lower(), report.log


@pytest.mark.skipif(NVRTC is None, reason="no NVRTC here: pip install nvidia-cuda-nvrtc")
def test_a_source_that_does_not_build_says_why() -> None:
    with pytest.raises(gpu_build.NvrtcError, match="undefined"):
        gpu_build.build(gpu.kernel_source() + "\n__device__ int broken() { return nope; }\n",
                        "sm_90", NVRTC)


# ---------------------------------------------------------------- every run checks itself
def test_a_device_run_cross_checks_chunks_and_says_how_many(capsys, tmp_path) -> None:
    code = main(["search", "random", "--device", "emulate", "--deals", "450000", "--seed", "4",
                 "--workers", "1", "--gpu-check-every", "2", "--db", str(tmp_path / "l.sqlite"),
                 "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["checked_chunks"] == 3       # chunks 0, 2 and 4 of 0..4


def test_a_device_runs_summary_on_screen_says_how_many_chunks_were_checked(capsys,
                                                                            tmp_path) -> None:
    for deals, checked in (("250000", "2 chunks"), ("100000", "1 chunk")):   # 0 and 2; 0
        code = main(["search", "random", "--device", "emulate", "--deals", deals, "--seed", "4",
                     "--workers", "1", "--gpu-check-every", "2", "--quiet", "--db",
                     str(tmp_path / f"{deals}.sqlite")])
        assert code == 0
        out = capsys.readouterr().out.splitlines()
        assert f"  cross-checked: {checked} replayed on the CPU this session, all equal" in out, \
            out


def test_the_work_plays_each_checked_chunk_alone() -> None:
    work = gpu.Work(998, 2_050, 100, 10, 2048, 4096, check_every=1000)    # chunks 998..1018
    assert work.slices(8) == [(0, 2, False), (2, 3, True), (3, 11, False), (11, 19, False),
                              (19, 21, False)]
    assert gpu.Work(0, 250, 100, 10, 2048, 4096, check_every=1).slices(512) == [
        (0, 1, True), (1, 2, True), (2, 3, True)]


def test_a_spoilt_chunk_stops_the_run_in_one_line_and_it_resumes_on_the_cpu(
        capsys, monkeypatch, tmp_path) -> None:
    """A device whose results for chunk 4 are wrong (as a bad GPU's would be): the check
    catches it, the run fails in one line naming the chunk (exit 1), and resumed on the CPU
    it logs what a CPU run logs."""
    monkeypatch.setattr(gpu.KernelHost, "spoil_chunk", 4)
    monkeypatch.setattr(device_module, "_samplers", {})
    db = str(tmp_path / "device.sqlite")
    argv = ["random", "--deals", "600000", "--seed", "8", "--workers", "1", "--quiet"]
    code = main(["search", *argv, "--device", "emulate", "--gpu-check-every", "2", "--db", db])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and "chunk 4 differs from its replay on the CPU (cards histogram)" \
        in err[0], err
    assert err[0].endswith(f"continue with: dealsearch search --resume 1 --db {db} --device cpu")
    runs = {}
    for name, args in (("device", ["--resume", "1", "--db", db, "--device", "cpu"]),
                       ("cpu", [*argv, "--db", str(tmp_path / "cpu.sqlite")])):
        assert main(["search", *args, "--json"]) == 0
        runs[name] = json.loads(capsys.readouterr().out.splitlines()[-1])
    for key in ("deals", "cards", "outcomes", "best"):
        assert runs["device"][key] == runs["cpu"][key], key


def test_check_every_is_for_a_device() -> None:
    with pytest.raises(ValueError, match="for --device gpu or emulate"):
        spec("cpu", gpu_check_every=10)
    assert spec("emulate").device_check_every == 1000
    assert spec("emulate", gpu_check_every=7).device_check_every == 7
