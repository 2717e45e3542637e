"""Type stubs of the GPU kernel's CPU twin (``_gpu_emulate.pyx``)."""

import numpy as np
import numpy.typing as npt

HANDBACK: int
MAX_CARDS: int

def seed_key(seed: int) -> int: ...
def play(
    pay_word: int,
    size0: int,
    total: int,
    cap_cards: int,
    cap_tricks: int,
    by_tricks: bool,
    courts: npt.NDArray[np.uint8],
    seed_key: int,
    first_stream: int,
    chunk_deals: int,
    n: int,
    card_bin: int,
    card_hist: npt.NDArray[np.int64],
    trick_hist: npt.NDArray[np.int64],
    totals: npt.NDArray[np.int64],
) -> npt.NDArray[np.uint32]: ...
def records(
    scores: npt.NDArray[np.uint32], chunk_deals: int, room: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
def deal_rows(
    courts: npt.NDArray[np.uint8],
    n_cards: int,
    seed_key: int,
    streams: npt.NDArray[np.uint64],
    deals: npt.NDArray[np.uint64],
) -> npt.NDArray[np.uint8]: ...
