"""Deals the tests share (one definition each; importable because tests/ is on sys.path)."""

#: The longest known finished game (Nessler, 2022): hand 2 wins after 8,344 cards, 1,164 tricks.
RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
#: The first published never-ending deal (Casella, arXiv:2403.13855): a 62-trick cycle.
CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"

# Casella's cycle with one jack taken out: a 51-card cycle of its own (period 54 tricks).
CASELLA_LESS_A_JACK = "-----KA-J-/---AA--J--------K---------Q-Q-K---Q-KAQJ-"
