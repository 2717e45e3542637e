"""Type stubs of ``_permutations.pyx``."""

import numpy as np
import numpy.typing as npt

def permutation_block(first: npt.NDArray[np.uint8], n: int) -> npt.NDArray[np.uint8]: ...
