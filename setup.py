"""Build the compiled engine; everything else about the package is in pyproject.toml."""

from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup


def compiled(module: str) -> Extension:
    """A Cython module of the package (dotted path below ``dealsearch``), optimised."""
    source = Path(f"src/dealsearch/{module.replace('.', '/')}.pyx")
    return Extension(
        f"dealsearch.{module}",
        [str(source)],
        # C headers beside the module (the lanes kernel): a change to one rebuilds it
        depends=sorted(str(header) for header in source.parent.glob("*.h")),
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        # -O3 lets gcc unroll the per-player loops; no -march=native, so builds stay portable.
        extra_compile_args=["-O3"],
    )


# Every compiled module: each .pyx below the package (a game's engine lives in its folder,
# e.g. "games.durak._engine"), so adding one needs no list here.
MODULES = sorted(".".join(path.relative_to("src/dealsearch").with_suffix("").parts)
                 for path in Path("src/dealsearch").rglob("*.pyx"))

setup(
    ext_modules=cythonize(
        [compiled(module) for module in MODULES],
        language_level=3,
        include_path=["src"],
        # C division everywhere (the loops divide non-negative counts). Bounds and wraparound
        # checks stay on by default: each module turns them off only on the functions whose
        # nogil loops index arrays, after the entry point has checked every argument.
        compiler_directives={"cdivision": True},
    )
)
