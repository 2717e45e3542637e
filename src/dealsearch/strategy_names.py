"""The names of the framework's search strategies, in a module of their own that imports
nothing: the log's check tells a search's run (which counts every game it plays) from another
kind by them without importing the search (which imports the log)."""

STRATEGIES = ("random", "climb", "exhaustive")
