"""Search strategies (random, climb, exhaustive) and the run service that drives them.

The strategies only produce deals and read results; they know nothing of the log's schema or
the command line, and a game only through :class:`dealsearch.game.Game` and its features:
its layout, its kernel (played by the generic compiled loops in ``_generic``) or its own fast
loops (a :class:`~dealsearch.game.FastSearch`'s ``random_player`` and ``climber``, a
:class:`~dealsearch.game.FastBlocks`' ``block_player``), its text and its results.

Each module is imported where it is used (:class:`~.spec.SearchSpec` from :mod:`.spec`, the
:class:`~.runner.Runner` from :mod:`.runner`), so that a command's help, which reads a
strategy's options, loads neither the runner nor the log.
"""
