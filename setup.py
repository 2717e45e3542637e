"""Build the compiled engine; everything else about the package is in pyproject.toml."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup


def compiled(module: str) -> Extension:
    """A Cython module of the package, compiled with optimisation."""
    return Extension(
        f"dealsearch.{module}",
        [f"src/dealsearch/{module}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        # -O3 lets gcc unroll the per-player loops; no -march=native, so builds stay portable.
        extra_compile_args=["-O3"],
    )


setup(
    ext_modules=cythonize(
        [compiled("_engine"), compiled("_permutations"), compiled("_climb")],
        language_level=3,
        include_path=["src"],
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
