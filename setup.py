"""Build the compiled engine; everything else about the package is in pyproject.toml."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

engine = Extension(
    "dealsearch._engine",
    ["src/dealsearch/_engine.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    # -O3 lets gcc unroll the per-player loops; no -march=native, so wheels stay portable.
    extra_compile_args=["-O3"],
)

setup(
    ext_modules=cythonize(
        [engine],
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
