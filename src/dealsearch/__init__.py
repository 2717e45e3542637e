"""dealsearch: find record-long and never-ending deals of card games, exactly and fast.

The games are plug-ins (:mod:`dealsearch.plugin`, one folder each under ``dealsearch.games``,
found through the registry: :func:`dealsearch.game.get_game`); importing the framework loads
no game.
"""
