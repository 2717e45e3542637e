"""Research on the factory's balance (docs/research/factory.md): ways to turn lopsided
never-ending cycles into deals of two even hands. No command uses them: they live here, beside
their screen (``benchmarks/screen_balance.py``), and their tests run with
``python -m pytest benchmarks/factory_balance``.

- :mod:`.balance`: backward play toward balance and piece shifts (a negative result);
- :mod:`.pair_step`: every pair of card moves from the most even states (round 4);
- :mod:`.finish`: the deck-completing finish of near-deck cycles (round 4).
"""
