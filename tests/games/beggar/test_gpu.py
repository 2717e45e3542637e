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
from dealsearch.games.beggar import _engine, _gpu_emulate, gpu
from dealsearch.games.beggar.notation import STANDARD
from dealsearch.games.beggar.options import beggar_options
from dealsearch.search import device as device_module
from dealsearch.search.base import Task
from dealsearch.search.device import task_finds
from dealsearch.search.random_search import play_chunk
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find

WIN = 0


def emulate(options, seed, n, first_stream=0, objective="cards", chunk_deals=100_000):
    """Every deal's score on the emulated kernel, and its totals and histograms."""
    table = gpu.KernelTable.build(options, seed, objective)
    card_hist = np.zeros(2048, dtype=np.int64)
    trick_hist = np.zeros(4096, dtype=np.int64)
    totals = np.zeros(4, dtype=np.int64)
    scores = _gpu_emulate.play(table.pay_word, table.size0, table.total, table.cap_cards,
                               table.cap_tricks, table.by_tricks, table.courts, table.seed_key,
                               first_stream, chunk_deals, n, 10, card_hist, trick_hist, totals)
    return table, scores, totals, card_hist, trick_hist


def rows_of(table, first_stream, n, chunk_deals=100_000):
    w = np.arange(n, dtype=np.uint64)
    return _gpu_emulate.deal_rows(table.courts, table.total, table.seed_key,
                                  first_stream + w // np.uint64(chunk_deals),
                                  w % np.uint64(chunk_deals))


def check_against_engine(options, seed, n, objective="cards"):
    """Deal by deal: a game the kernel settles is the engine's (win, same length); a game it
    hands back is one the engine finds cycling, limited, or past the caps."""
    table, scores, totals, card_hist, trick_hist = emulate(options, seed, n, 3, objective)
    rows = rows_of(table, 3, n)
    outcome, _, cards, tricks, _, _ = _engine.play_rows(
        rows, options.sizes, options.game_rules.payments, options.max_cards, options.max_tricks)
    handed = scores == _gpu_emulate.HANDBACK
    settled = ~handed
    assert (outcome[settled] == WIN).all()
    measure = tricks if objective == "tricks" else cards
    assert (scores[settled] == measure[settled]).all()
    assert ((outcome[handed] != WIN) | (cards[handed] >= table.cap_cards)
            | (tricks[handed] >= table.cap_tricks)).all()
    assert totals.tolist() == [settled.sum(), handed.sum(), cards[settled].sum(),
                               tricks[settled].sum()]
    assert (card_hist == np.bincount(np.minimum(cards[settled] // 10, 2047),
                                     minlength=2048)).all()
    assert (trick_hist == np.bincount(np.minimum(tricks[settled], 4095), minlength=4096)).all()
    return outcome, handed


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


def test_the_kernel_plays_standard_deals_as_the_engine() -> None:
    _, handed = check_against_engine(beggar_options(), 1, 200_000)
    assert not handed.any()     # no known 2-player 52-card game is past the cap


@pytest.mark.slow
def test_the_kernel_plays_a_million_standard_deals_as_the_engine() -> None:
    check_against_engine(beggar_options(), 2, 1_000_000)


def test_the_kernel_hands_back_every_cycle_of_a_small_deck() -> None:
    options = beggar_options(deck="------JJQQK")
    outcome, handed = check_against_engine(options, 5, 100_000)
    assert (outcome == 1).sum() > 100       # cycles happen, and all are handed back
    assert handed[outcome == 1].all()


@pytest.mark.parametrize("values", [{"max_cards": 400}, {"max_tricks": 40},
                                    {"hand_sizes": "30/22"}], ids=str)
def test_the_kernel_respects_limits_and_uneven_hands(values) -> None:
    outcome, handed = check_against_engine(beggar_options(**values), 6, 50_000)
    if values.keys() & {"max_cards", "max_tricks"}:
        assert (outcome == 2).sum() > 100   # the limit bites, and every limited game is back
        assert handed[outcome == 2].all()


def test_the_kernel_scores_by_tricks() -> None:
    check_against_engine(beggar_options(), 8, 50_000, objective="tricks")


def test_chunk_records_are_the_running_best_of_each_chunk() -> None:
    _, scores, *_ = emulate(beggar_options(deck="-" * 20 + "JJQQKKAA"), 3, 25_000,
                            chunk_deals=7_000)
    counts, found, found_scores = _gpu_emulate.records(scores, 7_000, 64)
    for c in range(4):
        best, want = 0, []
        for i, s in enumerate(scores[c * 7_000:(c + 1) * 7_000].tolist()):
            if s != _gpu_emulate.HANDBACK and s > best:
                best = s
                want.append(i)
        assert counts[c] == len(want)
        assert found[c, :counts[c]].tolist() == want[:64]
        assert (found_scores[c, :counts[c]] == scores[c * 7_000 + found[c, :counts[c]]]).all()


def spec(device, **values):
    return SearchSpec.from_json({"strategy": "random", "seed": 9, "device": device, **values})


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
    with pytest.raises(ValueError, match="random searches"):
        SearchSpec.from_json({"strategy": "climb", "device": "gpu"})
    with pytest.raises(ValueError, match="durak has no engine for --device gpu"):
        SearchSpec.from_json({"strategy": "random", "device": "gpu", "game": "durak"})
    with pytest.raises(ValueError, match="unknown device"):
        spec("tpu")


def test_without_cupy_device_gpu_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)     # import cupy raises ImportError
    code = main(["search", "random", "--device", "gpu", "--deals", "1000", "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["dealsearch: error: --device gpu needs CuPy: pip install 'dealsearch[gpu]'"]
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
# tests is CupyDevice's own logic (slices, offsets, hand-back lists, the arguments' order and
# types); the kernels' logic is the emulation's, tested above.

C_TYPES = {"unsigned long long": np.uint64, "int": np.int32, "unsigned int": np.uint32,
           "unsigned char": np.uint8}


def kernel_parameters(name):
    """(C type, is pointer) of each parameter of kernel ``name`` in _gpu_kernel.cu."""
    import re

    source = re.sub(r"/\*.*?\*/", "", gpu.KERNEL.read_text(), flags=re.DOTALL)
    body = re.search(rf"__global__ void {name}\((.*?)\)\s*{{", source, re.DOTALL)[1]
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
    (pay_word, size0, total, cap_cards, cap_tricks, by_tricks, courts, n_courts, seed_key,
     first_stream, chunk_deals, n, work, scores, handbacks, handback_count, room, w_base,
     totals, card_hist, card_bins, card_bin, trick_hist, trick_bins) = checked("bmn_random",
                                                                              args)
    assert len(card_hist) == card_bins and len(trick_hist) == trick_bins
    sums = np.zeros(4, dtype=np.int64)
    cards, tricks = np.zeros(int(card_bins), np.int64), np.zeros(int(trick_bins), np.int64)
    played = _gpu_emulate.play(int(pay_word), int(size0), int(total), int(cap_cards),
                               int(cap_tricks), bool(by_tricks), np.array(courts[:n_courts]),
                               int(seed_key), int(first_stream), int(chunk_deals), int(n),
                               int(card_bin), cards, tricks, sums)
    scores[:n] = played
    back = np.flatnonzero(played == _gpu_emulate.HANDBACK)[::-1]   # the GPU's order: any
    kept = min(len(back), int(room))
    handbacks[:kept] = back[:kept].astype(np.uint64) + w_base
    handback_count[0] += np.uint64(len(back))
    totals += sums.astype(np.uint64)
    card_hist += cards.astype(np.uint64)
    trick_hist += tricks.astype(np.uint64)
    work[0] += n


def fake_records(grid, block, args):
    scores, n, chunk_deals, found, found_scores, counts, room = checked("bmn_records", args)
    got = _gpu_emulate.records(np.array(scores[:n]), int(chunk_deals), int(room))
    assert (counts.shape, found.shape, found_scores.shape) == tuple(a.shape for a in got)
    counts[:], found[:], found_scores[:] = got


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
        self.kernels = {"bmn_random": fake_play, "bmn_records": fake_records}

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
    from dealsearch.search import Runner

    db = str(tmp_path / "device.sqlite")
    spec = SearchSpec.from_json({"strategy": "random", "deals": 400_000, "seed": 6,
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
def test_the_device_check_runs_its_gpu_path_and_ends_with_its_summary(monkeypatch, capsys):
    """benchmarks/gpu_check.py, on the stand-in CuPy: deal by deal, exactness, speed, and the
    last line a GPU session reads."""
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[3] / "benchmarks" / "gpu_check.py"
    monkeypatch.setitem(sys.modules, "cupy", FAKE_CUPY)
    monkeypatch.setattr(device_module, "_samplers", {})    # no stand-in GPU outlives the test
    monkeypatch.setattr(sys, "argv", [str(script), "--deals", "200000", "--seconds", "0.5"])
    with pytest.raises(SystemExit) as end:
        runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    assert end.value.code == 0, "\n".join(out)
    assert "  0 deals differ" in out
    assert out[-1].startswith("gpu check: 200000 deals, 0 differences, ")
    assert out[-1].endswith(" deals/s (Fake GPU)")


@pytest.mark.parametrize(("call", "words"), [
    (lambda: _gpu_emulate.play(0, 26, 60, 100, 100, False, np.zeros(4, np.uint8), 0, 0, 10, 10,
                               10, np.zeros(5, np.int64), np.zeros(5, np.int64),
                               np.zeros(4, np.int64)), "total"),
    (lambda: _gpu_emulate.play(0, 26, 52, 100, 100, False, np.zeros(4, np.uint8), 0, 0, 10, 10,
                               10, np.zeros(5, np.int64), np.zeros(5, np.int64),
                               np.zeros(3, np.int64)), "totals"),
    (lambda: _gpu_emulate.play(0, 26, 52, 100, 100, False, np.zeros(60, np.uint8), 0, 0, 10,
                               10, 10, np.zeros(5, np.int64), np.zeros(5, np.int64),
                               np.zeros(4, np.int64)), "more court cards"),
    (lambda: _gpu_emulate.records(np.zeros(10, np.int64), 5, 4), "scores"),
    (lambda: _gpu_emulate.records(np.zeros(10, np.uint32), 0, 4), "chunk_deals"),
    (lambda: _gpu_emulate.deal_rows(np.zeros(4, np.uint8), 52, 0, np.zeros(2, np.uint64),
                                    np.zeros(3, np.uint64)), "as long"),
    (lambda: _gpu_emulate.deal_rows(np.zeros(4, np.uint8), 65, 0, np.zeros(2, np.uint64),
                                    np.zeros(2, np.uint64)), "n_cards"),
], ids=["deck", "totals", "courts", "scores", "chunk", "lengths", "cards"])
def test_the_emulation_checks_its_arguments(call, words) -> None:
    with pytest.raises(ValueError, match=words):
        call()


def test_cupy_without_a_gpu_is_one_line(monkeypatch, tmp_path) -> None:
    # a driver is loaded, but too old for CuPy's CUDA (with none at all the line says so:
    # tests/framework/test_messages_name_the_thing.py)
    (tmp_path / "version").write_text("NVRM version: 390.0\n")
    monkeypatch.setattr(gpu, "NVIDIA_DRIVER", tmp_path / "version")

    def broken() -> int:
        raise RuntimeError("CUDA driver version is insufficient for CUDA runtime version")

    for count, words in ((lambda: 0, "--device gpu: no GPU found"),
                         (broken, "--device gpu: no usable GPU (CUDA driver version is")):
        runtime = SimpleNamespace(**{**vars(FAKE_CUPY.cuda.runtime), "getDeviceCount": count})
        cuda = SimpleNamespace(**{**vars(FAKE_CUPY.cuda), "runtime": runtime})
        monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(**{**vars(FAKE_CUPY),
                                                                    "cuda": cuda}))
        with pytest.raises(device_module.DeviceUnavailable) as error:
            gpu.CupyDevice()
        assert str(error.value).startswith(words) and "\n" not in str(error.value)
