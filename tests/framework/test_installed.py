"""The tests run on the installed package (CI installs the wheel), and the installed package
holds every file it ships: a package-data pattern that misses a file fails here.

``known_deals.csv`` is a symlink in ``src/`` (to ``data/known_deals.csv``): the installed copy
must hold the file's content, not a dangling link.
"""

from __future__ import annotations

import json
from importlib import metadata, resources
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import dealsearch

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "dealsearch"
# Files of src/dealsearch that are not shipped: developer notes, and what a build leaves
# there (generated C, compiled modules, Cython's annotated HTML).
NOT_SHIPPED = ("README.md", "*.so", "*.html", "_*.c")


def editable() -> bool:
    """Whether ``dealsearch`` is an editable install (``pip install -e``)."""
    try:
        direct_url = metadata.distribution("dealsearch").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    return bool(direct_url and json.loads(direct_url).get("dir_info", {}).get("editable"))


def shipped() -> list[str]:
    """Every file of the source package that the installed one must hold, relative to it."""
    return sorted(path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*")
                  if "__pycache__" not in path.parts and not path.is_dir()
                  and not any(path.match(pattern) for pattern in NOT_SHIPPED))


def test_the_tests_import_the_installed_package_not_the_source_tree() -> None:
    if editable():
        pytest.skip("an editable install: the tests run on src/ (CI tests the installed wheel)")
    location = Path(dealsearch.__file__).resolve()
    assert not location.is_relative_to(ROOT / "src"), f"dealsearch imported from {location}"
    installed = metadata.distribution("dealsearch").locate_file("dealsearch/__init__.py")
    assert Path(str(installed)).resolve() == location


def test_the_source_package_holds_what_the_wheel_must_ship() -> None:
    files = shipped()
    for expected in ("py.typed", "games/beggar/data/known_deals.csv", "games/beggar/yardstick.c",
                     "games/beggar/_lanes_kernel.h", "games/beggar/_lanes_step.h",
                     "games/beggar/_rule_step.h",
                     "games/beggar/_gpu_kernel.cu", "games/beggar/_gpu_step.h",
                     "games/beggar/_deals.h", "games/beggar/_gpu_random.h",
                     "games/beggar/_gpu_warp.h",
                     "campaigns/overnight.toml", "games/durak/_engine.pyi",
                     "games/durak/_engine.pyx", "games/durak/_engine.pxd", "_random.pxd"):
        assert expected in files


def test_the_installed_package_holds_every_file_with_its_content() -> None:
    package = resources.files("dealsearch")
    missing, differing = [], []
    for name in shipped():
        installed = package.joinpath(*name.split("/"))
        if not installed.is_file():
            missing.append(name)
        elif installed.read_bytes() != (SOURCE / name).read_bytes():
            differing.append(name)
    assert not missing, f"not in the installed package: {', '.join(missing)}"
    assert not differing, f"different in the installed package: {', '.join(differing)}"


def test_every_compiled_module_is_installed_compiled() -> None:
    package = resources.files("dealsearch")
    for source in SOURCE.rglob("*.pyx"):
        name = source.relative_to(SOURCE).with_suffix("")
        folder = package.joinpath(*name.parent.parts)
        built = [entry.name for entry in folder.iterdir()
                 if any(entry.name == name.name + suffix for suffix in EXTENSION_SUFFIXES)]
        assert built, f"{name.as_posix()} is not compiled in the installed package"


def test_the_known_deals_are_the_published_file_not_a_link() -> None:
    installed = resources.files("dealsearch.games.beggar").joinpath("data", "known_deals.csv")
    text = installed.read_text(encoding="utf-8")
    assert text == (ROOT / "data" / "known_deals.csv").read_text(encoding="utf-8")
    assert text.count("\n") > 10
