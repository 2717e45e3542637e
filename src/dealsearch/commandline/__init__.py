"""What every command is built from, the framework's (:mod:`dealsearch.cli`) and a game's
(through :mod:`dealsearch.plugin.commands`): below the command line, so that a game's commands
never import it.

:mod:`.options` (the shared options, argument types and help layout), :mod:`.cluster` (the
backend's and a Dask cluster's options), :mod:`.terminal` (a closed screen never stops a run;
escaped output), :mod:`.service` (the run service: start, resume, end a run of any strategy)
and :mod:`.advice` (how to continue a run).
"""
