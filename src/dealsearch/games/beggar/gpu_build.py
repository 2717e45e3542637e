"""The GPU kernel's run-time build, without a GPU: NVRTC through ctypes.

A run builds :func:`~dealsearch.games.beggar.gpu.kernel_source` with NVRTC (CuPy's
``RawModule``); NVRTC itself needs no device, so the test suite and
``benchmarks/gpu_check.py`` build the same source with the same options here, for a chosen
architecture, and read ptxas's report: registers, shared memory, spills and local memory per
kernel. NVRTC comes from the ``nvidia-cuda-nvrtc`` wheel (CUDA 13 or 12), a CUDA toolkit, or
CuPy's CUDA; :func:`find_nvrtc` says where, or None.

    >>> report = build(kernel_source(), "sm_90")       # doctest: +SKIP
    >>> report.kernels["bmn_random"].registers         # doctest: +SKIP
    59
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

# What CuPy's RawModule passes NVRTC for our options=("--std=c++17",) (plus -arch, and its
# include folder where CuPy is installed); -Xptxas=-v only adds ptxas's report to the log.
CUPY_OPTIONS = ("--std=c++17", "-ftz=true", "--device-as-default-execution-space")


class NvrtcError(Exception):
    """The source did not build: the message holds NVRTC's log."""


@dataclass(frozen=True)
class KernelUse:
    """What ptxas reports of one kernel."""

    registers: int
    shared_bytes: int
    stack_bytes: int        # the stack frame: local memory
    spill_bytes: int        # spill stores and loads


@dataclass(frozen=True)
class BuildReport:
    """One architecture's build: each kernel's use, and NVRTC's log."""

    arch: str
    nvrtc: str              # the library's version, e.g. "13.5"
    kernels: dict[str, KernelUse]
    log: str

    def lines(self) -> list[str]:
        """One line per kernel, e.g. ``sm_90 bmn_random: 59 registers, 47200 B shared``."""
        return [f"{self.arch} {name}: {use.registers} registers, {use.shared_bytes} B shared, "
                f"{use.spill_bytes} B spilled, {use.stack_bytes} B local"
                for name, use in self.kernels.items()]


def find_nvrtc() -> Path | None:
    """The NVRTC library to build with: from the ``nvidia-cuda-nvrtc`` wheel (where pip puts
    it), else CUDA_PATH's or the system's; None if there is none."""
    places = []
    try:
        import nvidia  # type: ignore[import-not-found,unused-ignore]  # the NVIDIA wheels

        for root in getattr(nvidia, "__path__", []):
            places += sorted(glob.glob(os.path.join(root, "*", "lib", "libnvrtc.so*")),
                             reverse=True)
    except ImportError:
        pass
    for home in filter(None, (os.environ.get("CUDA_PATH"), "/usr/local/cuda")):
        places += sorted(glob.glob(os.path.join(home, "lib64", "libnvrtc.so*")), reverse=True)
    found = ctypes.util.find_library("nvrtc")
    if found:
        places.append(found)
    for place in places:    # not NVRTC's builtins, nor the alternative build CUDA 12 ships
        if "builtins" not in place and ".alt." not in Path(place).name:
            return Path(place)
    return None


def build(source: str, arch: str, library: Path | None = None,
          include: str | None = None) -> BuildReport:
    """Build ``source`` for ``arch`` (e.g. ``sm_90``) as a run would; raises
    :class:`NvrtcError` with NVRTC's log if it does not build, FileNotFoundError if there is
    no NVRTC."""
    path = library or find_nvrtc()
    if path is None:
        raise FileNotFoundError("no NVRTC library: pip install nvidia-cuda-nvrtc")
    nvrtc = ctypes.CDLL(str(path))
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    program = ctypes.c_void_p()
    _check(nvrtc, nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(),
                                           b"_gpu_kernel.cu", 0, None, None))
    try:
        options = [*CUPY_OPTIONS, f"-arch={arch}", "-Xptxas=-v"]
        if include:
            options.append(f"-I{include}")
        encoded = [option.encode() for option in options]
        status = nvrtc.nvrtcCompileProgram(program, len(encoded),
                                           (ctypes.c_char_p * len(encoded))(*encoded))
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        text = ctypes.create_string_buffer(size.value + 1)
        nvrtc.nvrtcGetProgramLog(program, text)
        log = text.value.decode(errors="replace")
        if status != 0:
            raise NvrtcError(f"NVRTC {major.value}.{minor.value}, {arch}: {log.strip()}")
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return BuildReport(arch, f"{major.value}.{minor.value}", kernel_uses(log), log)


def kernel_uses(log: str) -> dict[str, KernelUse]:
    """ptxas's -v report, kernel by kernel."""
    uses = {}
    for name, block in re.findall(r"Function properties for (\w+)\n(.*?)(?=Function properties"
                                  r"|Compiling entry|\Z)", log, re.DOTALL):
        def number(pattern: str, text: str = block) -> int:
            found = re.search(pattern, text)
            return int(found[1]) if found else 0

        uses[name] = KernelUse(
            registers=number(r"Used (\d+) registers"),
            shared_bytes=number(r"(\d+) bytes smem"),
            stack_bytes=number(r"(\d+) bytes stack frame") + number(r"(\d+) bytes lmem"),
            spill_bytes=number(r"(\d+) bytes spill stores") + number(r"(\d+) bytes spill loads"))
    return uses


def cupy_include() -> str | None:
    """CuPy's header folder, which CuPy puts on NVRTC's include path (None without CuPy)."""
    try:
        import cupy  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    folder = Path(cupy.__file__).parent / "_core" / "include"
    return str(folder) if folder.is_dir() else None


def _check(nvrtc: ctypes.CDLL, status: int) -> None:
    if status != 0:
        nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise NvrtcError(nvrtc.nvrtcGetErrorString(status).decode())
