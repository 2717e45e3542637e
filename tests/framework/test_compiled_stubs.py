"""The compiled modules' stubs match what they export (mypy, stubtest); their sources lint clean.

Run from the test suite, so CI's one test command checks them: ``.pyi`` stubs drift from the
``.pyx`` silently otherwise (``RandomPlayer.play`` gained arguments its stub never showed).
stubtest checks the installed modules (CI installs the wheel) against their installed stubs;
mypy and cython-lint read the sources in ``src/``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dealsearch"
ALLOWLIST = Path(__file__).with_name("stubtest-allowlist.txt")
# Every compiled module, top-level or in a subpackage, as its path below the package without
# the suffix (e.g. "games/durak/_engine"); its dotted name is MODULE below.
COMPILED = sorted(path.relative_to(PACKAGE).with_suffix("").as_posix()
                  for path in PACKAGE.rglob("*.pyx"))


def _calls_compiled(path: Path) -> bool:
    """Whether a module imports a compiled one (``from ._engine import play``,
    ``from . import _lanes``, ``from ...search._generic import Sampler``)."""
    text = path.read_text(encoding="utf-8")
    return any(re.search(rf"^\s*(from\s+\S*\b{name}\s+import|from\s+\S+\s+import\s.*\b{name}\b)",
                         text, re.MULTILINE)
               for name in {Path(c).name for c in COMPILED})


# The Python modules that call the compiled ones, found by their imports (a new compiled
# module or caller needs no list here): mypy checks them against the stubs.
CALLERS = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
                 if _calls_compiled(path))


def module(name: str) -> str:
    """The dotted module name of a compiled module's path (``dealsearch.games.durak._engine``)."""
    return "dealsearch." + name.replace("/", ".")


def run(*command: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # The tools' own scripts (cython-lint runs pycodestyle) live beside this interpreter.
    env = {**os.environ,
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600,
                          check=False, cwd=cwd)


def test_every_compiled_module_has_a_pxd_and_a_pyi() -> None:
    missing = [f"{name}{suffix}" for name in COMPILED for suffix in (".pxd", ".pyi")
               if not (PACKAGE / f"{name}{suffix}").exists()]
    assert COMPILED, "no compiled module found"
    assert not missing, f"missing: {', '.join(missing)}"


@pytest.mark.slow
def test_stubtest_finds_the_stubs_equal_to_the_compiled_modules(tmp_path: Path) -> None:
    # From an empty directory: the modules and their stubs are the installed ones.
    done = run(sys.executable, "-m", "mypy.stubtest", "--allowlist", str(ALLOWLIST),
               *(module(name) for name in COMPILED), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_checks_the_stubs_and_their_callers() -> None:
    files = [str(PACKAGE / f"{name}.pyi") for name in COMPILED]
    files += [str(PACKAGE / caller) for caller in CALLERS]
    done = run(sys.executable, "-m", "mypy", "--follow-imports=silent", *files)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_cython_lint_is_clean() -> None:
    sources = sorted(str(path) for pattern in ("*.pyx", "*.pxd") for path in PACKAGE.rglob(pattern))
    done = run(str(Path(sys.executable).parent / "cython-lint"), *sources)
    assert done.returncode == 0, done.stdout + done.stderr


def _stub_docstrings(path: Path) -> dict[str, str]:
    """The docstrings a stub gives its classes and their methods, by dotted name."""
    import ast

    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            for child in (node, *node.body):
                if isinstance(child, ast.ClassDef | ast.FunctionDef) and \
                        (doc := ast.get_docstring(child)):
                    found[node.name if child is node else f"{node.name}.{child.name}"] = doc
    return found


def test_the_kernel_stub_carries_the_compiled_docstrings() -> None:
    # The API page documents Kernel and PythonKernel from the stub where the extension is not
    # built (a fresh clone): its docstrings must be the compiled classes' own.
    import inspect
    import operator

    from dealsearch import _kernel

    stub = _stub_docstrings(PACKAGE / "_kernel.pyi")
    assert {"Kernel", "Kernel.check_row", "Kernel.play", "PythonKernel"} <= set(stub)
    for name, doc in stub.items():
        assert inspect.getdoc(operator.attrgetter(name)(_kernel)) == doc, name
