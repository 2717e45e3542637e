"""Durak (seed 002) as a dealsearch game: the contract is its rules page, docs/games/durak.md
(bracketed names are its sections).

Modules: ``options`` ([Options], [Policies] names), ``notation`` ([Cards], [Deals]: cards,
deals, positions and the row), ``reference`` (the pure-Python twin), ``_engine`` (the
compiled engine, its policies and the Kernel). Rule decisions where the contract is
silent: README.md here.

>>> from dealsearch.game import get_game
>>> durak = get_game("durak")
>>> options = durak.options(players=3)
>>> text, result = durak.verify("hands=9C AS/KS/JD QS; trump=H; attacker=1", options)
>>> result.outcome, result.period["bouts"]
('cycle', 6)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from dealsearch.games.durak import _engine, notation, reference
from dealsearch.games.durak.notation import SUITS, random_rows
from dealsearch.games.durak.notation import value as card_value
from dealsearch.games.durak.options import PRESETS, DurakOptions
from dealsearch.plugin import (
    BatchResults,
    CycleCatalogue,
    Game,
    GameError,
    GameResult,
    Layout,
    OptionSpec,
    Reference,
    Row,
    canonical,
    card_text,
    pairs,
    speed_row,
)

OUTCOMES = ("win", "draw", "cycle", "limit")   # index = the compiled outcome code
CYCLE_KEYS = ("entry_bouts", "entry_cards", "period_bouts", "period_cards")


def _max_bouts(text: str) -> int | None:
    return None if str(text).lower() in ("", "none") else int(text)


class DurakGame(Game[DurakOptions], Reference, CycleCatalogue):
    """Durak under named options and per-seat policies: deals, positions, both engines."""

    name = "durak"
    title = "Durak"
    measures = ("bouts", "cards")
    throughput_measure = "cards"
    outcomes = OUTCOMES
    # verify --json: the [Counting] keys in the contract's order
    result_keys = ("outcome", "loser", "losing_pair", "out", "bouts", "cards", "takes",
                   "transfers", "cycle")
    option_specs = (
        OptionSpec("players", "seats, 2 to 6", 2, int, metavar="N"),
        OptionSpec("variant", "preset: transfers and/or pair vs pair", "podkidnoy",
                   str, choices=tuple(PRESETS)),
        OptionSpec("deck", "36 or 52 cards", 36, int, metavar="36|52"),
        OptionSpec("policy", "cheapest or aggressive: one for every seat or one per seat, "
                   "comma-separated", "cheapest", str, metavar="P[,P...]"),
        OptionSpec("first_limit", "attack cards allowed in the first bout (5 or 6)", 6, int,
                   metavar="5|6"),
        OptionSpec("first_transfer", "allow transfers in the first bout", False,
                   switch=True),
        OptionSpec("show_trump", "transfer by showing the trump of the attack rank", False,
                   switch=True),
        OptionSpec("no_throw_after_take", "no throw-ins once the defender takes", False,
                   switch=True),
        OptionSpec("max_bouts", "agreed limit: stop after this many bouts", None,
                   _max_bouts, metavar="N"),
    )

    def options(self, **values: Any) -> DurakOptions:
        """Options from option-spec values or the fields ``to_json`` writes (``None`` =
        default); :func:`~dealsearch.game.make_options` has refused any other name.

        >>> DurakGame().options(players="3", no_throw_after_take=True).throw_after_take
        False
        """
        # throw_after_take is the options' own name (to_json), the CLI's is its negation.
        given = {key: value for key, value in values.items() if value is not None}
        if given.pop("no_throw_after_take", False):
            given["throw_after_take"] = False
        return DurakOptions(**given)

    def looks_like_deal(self, text: str) -> bool:
        """Whether a text that does not parse was meant as a deal, not a file name."""
        return card_text(text)

    def describe_options(self, options: DurakOptions) -> str:
        """E.g. ``3 players, podkidnoy, 36 cards, aggressive play`` (the house rules and a
        limit only when they are not the defaults).

        >>> game = DurakGame()
        >>> game.describe_options(game.options(players=3, policy="aggressive"))
        '3 players, podkidnoy, 36 cards, aggressive play'
        >>> game.describe_options(game.options(policy="cheapest,aggressive", first_limit=5,
        ...                                    max_bouts=40))
        ... # doctest: +NORMALIZE_WHITESPACE
        '2 players, podkidnoy, 36 cards, cheapest/aggressive play,
         5 cards in the first bout, stop at 40 bouts'
        """
        words = [f"{options.players} players", options.variant, f"{options.deck} cards",
                 f"{options.policy.replace(',', '/')} play"]
        if options.first_limit != 6:
            words.append(f"{options.first_limit} cards in the first bout")
        if options.first_transfer:
            words.append("transfers in the first bout")
        if options.show_trump:
            words.append("transfer by showing the trump")
        if not options.throw_after_take:
            words.append("no throw-ins after a take")
        if options.max_bouts is not None:
            words.append(f"stop at {options.max_bouts} bouts")
        return ", ".join(words)

    def layout(self, options: DurakOptions) -> Layout:
        """Hands 1..n (unordered), then the talon with the trump card last."""
        return notation.layout(options)

    def parse(self, text: str, options: DurakOptions) -> Row:
        """A deal (the deck top first) as a row."""
        if notation.is_position(text):
            raise GameError("a position is not a deal: positions can be verified, "
                            "not searched")
        return notation.parse_deal(text, options)

    def format(self, row: Row, options: DurakOptions) -> str:
        """The canonical deal text: hands sorted, dealt round-robin, then trump and talon."""
        return notation.format_deal(canonical(self, row, options), options)

    def play_batch(self, rows: npt.ArrayLike, options: DurakOptions) -> BatchResults:
        """Play many rows in the compiled engine (without the GIL)."""
        cards = np.ascontiguousarray(rows, dtype=np.uint8)
        if cards.ndim == 1:
            cards = cards.reshape(1, -1)
        outcome, _, _, counts, cycle, _ = _engine.play_rows(cards, **options.engine_rules())
        return BatchResults(outcome, counts[:, :2].copy(), cycle[:, :2].copy(),
                            cycle[:, 2:].copy())

    def verify(self, text: str, options: DurakOptions) -> tuple[str, GameResult]:
        """Play a deal or a position in the compiled engine: ``(canonical text, result)``."""
        if notation.is_position(text):
            position = notation.parse_position(text, options)
            played = _engine.play_position(
                [list(hand) for hand in position.hands], position.trump,
                list(position.talon), position.attacker, position.first,
                **options.engine_rules())
            return notation.format_position(position), _compiled_result(played)
        row = canonical(self, self.parse(text, options), options)
        outcome, loser, pair, counts, cycle, out = _engine.play_rows(
            row.reshape(1, -1), **options.engine_rules())
        played = {"outcome": int(outcome[0]), "loser": int(loser[0]),
                  "losing_pair": int(pair[0]), "out": [int(s) for s in out[0] if s >= 0],
                  **dict(zip(("bouts", "cards", "takes", "transfers"),
                             counts[0].tolist(), strict=True)),
                  **dict(zip(("entry_bouts", "entry_cards", "period_bouts", "period_cards"),
                             cycle[0].tolist(), strict=True))}
        return notation.format_deal(row, options), _compiled_result(played)

    def play_reference(self, row: Row, options: DurakOptions) -> GameResult:
        """The pure-Python engine on a row."""
        played = reference.play(notation.row_position(row, options), options)
        return _game_result(played)

    def trace(self, text: str, options: DurakOptions) -> Iterator[str]:
        """The game bout by bout (the reference engine's account)."""
        position = _position(text, options)

        def by_value(hand: tuple[int, ...]) -> str:
            return reference.names(sorted(hand, key=lambda c: card_value(c, position.trump)))

        yield f"trump {SUITS[position.trump]}; " + "; ".join(
            f"{seat + 1}: {by_value(hand)}" for seat, hand in enumerate(position.hands))
        yield f"talon (top first): {reference.names(position.talon) or '-'}"
        lines: list[str] = []
        played = reference.play(position, options, trace=lines)
        yield from lines
        yield "result: " + pairs(played)  # plain text: the cycle's counts, not a dict

    def kernel(self, options: DurakOptions) -> Any:
        """A Kernel playing rows under these options (one per thread)."""
        return _engine.make_kernel(**options.engine_rules())

    def cycle_key(self, row: Row, options: DurakOptions) -> str:
        """The cycle's identity: its smallest state written from the leader's seat.

        Every state of the cycle is rotated so that the seat to lead is first (with the
        seats' policies rotated alike); the smallest text names the cycle, whichever deal or
        seat enters it.
        """
        states: list[reference.State] = []
        played = reference.play(notation.row_position(row, options), options, states=states)
        if played["outcome"] != "cycle":
            raise ValueError(f"this deal ends ({played['outcome']}): it has no cycle")
        period = played["cycle"]["period_bouts"]
        loop = states[-1 - period:-1]
        trump = notation.row_position(row, options).trump
        return min(_state_text(state, trump, options) for state in loop)

    def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
        """Compiled vs reference on the same seeded 36-card deals, per preset and players
        (the reference on the first 300)."""
        table = []
        for variant, players in SPEED_SETTINGS:
            options = DurakOptions(players=players, variant=variant)
            table.append(speed_row(self, f"{variant} {players}p cheapest", options,
                                   random_rows(options, deals, seed), 300))
        return table



def play_reference_text(text: str, options: DurakOptions) -> GameResult:
    """The pure-Python engine on a deal or a position given as text."""
    return _game_result(reference.play(_position(text, options), options))


def _position(text: str, options: DurakOptions) -> notation.Position:
    """The starting position of a deal or a position given as text."""
    if notation.is_position(text):
        return notation.parse_position(text, options)
    return notation.row_position(notation.parse_deal(text, options), options)


SPEED_SETTINGS = (*(("podkidnoy", n) for n in range(2, 7)),
                  *(("perevodnoy", n) for n in range(2, 7)),
                  ("pairs", 4), ("pairs-perevodnoy", 4))


def _state_text(state: reference.State, trump: int, options: DurakOptions) -> str:
    hands, talon, leader, _first = state
    n = options.players
    order = [(leader + step) % n for step in range(n)]
    written = "/".join(reference.names(sorted(hands[seat])) or "-" for seat in order)
    policies = ",".join(options.policies[seat] for seat in order)
    return (f"trump={SUITS[trump]}; talon={reference.names(talon) or '-'}; "
            f"hands={written}; policy={policies}")


def _compiled_result(played: dict[str, Any]) -> GameResult:
    pair = played["losing_pair"]
    return _game_result({
        "outcome": OUTCOMES[played["outcome"]],
        "loser": None if played["loser"] < 0 else played["loser"] + 1,
        "losing_pair": None if pair < 0 else [pair + 1, pair + 3],
        "out": [seat + 1 for seat in played["out"]],
        "bouts": played["bouts"], "cards": played["cards"], "takes": played["takes"],
        "transfers": played["transfers"],
        "cycle": {key: played[key] for key in CYCLE_KEYS}
        if OUTCOMES[played["outcome"]] == "cycle" else None})


def _game_result(played: dict[str, Any]) -> GameResult:
    """A [Counting] result dict as a result whose ``to_json(DurakGame.result_keys)`` has
    exactly the [Counting] keys, in order."""
    cycle = played["cycle"] or {}
    return GameResult(
        outcome=played["outcome"],
        measures={"bouts": played["bouts"], "cards": played["cards"]},
        entry={m: cycle[f"entry_{m}"] for m in ("bouts", "cards")} if cycle else {},
        period={m: cycle[f"period_{m}"] for m in ("bouts", "cards")} if cycle else {},
        details={key: played[key] for key in
                 ("loser", "losing_pair", "out", "takes", "transfers")},
    )
