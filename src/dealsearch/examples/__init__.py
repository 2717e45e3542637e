"""Example games: small plug-ins to copy from, registered only when asked (never by default).

:mod:`dealsearch.examples.war` is a cut-down War in pure Python; ``register_war()`` adds it
to the registry, as a plug-in package does on import.
"""
