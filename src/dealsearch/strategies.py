"""The names of the search strategies: what a search run's ``strategy`` column holds.

A leaf, so that the log's checks tell a search from another kind of run (a game's own run,
such as BMN's factory) without importing the search, which imports the log.

>>> STRATEGIES
('random', 'climb', 'exhaustive')
"""

STRATEGIES = ("random", "climb", "exhaustive")
