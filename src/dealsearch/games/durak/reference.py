"""The pure-Python Durak engine, written straight from the contract (docs/games/durak.md).

Slow and obviously right: the tests hold the compiled engine to it card for card. Sections
in the comments are the contract's. ``play`` returns the [Counting] result; with ``trace`` a list
receives the game bout by bout as a person would follow it at the table, and ``states`` the
state at every bout boundary (for the properties and the cycle catalogue).

>>> from dealsearch.games.durak.notation import parse_position
>>> from dealsearch.games.durak.options import DurakOptions
>>> options = DurakOptions(players=3)
>>> position = parse_position("hands=9C AS/KS/JD QS; trump=H; attacker=1", options)
>>> play(position, options)["outcome"], play(position, options)["cycle"]["period_bouts"]
('cycle', 6)
"""

from __future__ import annotations

from typing import Any

from dealsearch.games.durak.notation import Position, beats, deck, name, rank, suit, value
from dealsearch.games.durak.options import DurakOptions

State = tuple[Any, ...]


def names(codes: Any) -> str:
    """Cards as text, separated by spaces."""
    return " ".join(name(c) for c in codes)


# Policies. Each is a function of its own hand, the table, the trump and the limit.

def lead(policy: str, hand: set[int], trump: int, limit: int) -> list[int]:
    """The lead ([Policies]): cheapest the lowest card; aggressive the lowest non-trump's rank."""
    by_value = sorted(hand, key=lambda c: value(c, trump))
    if policy == "cheapest":
        return by_value[:1]
    non_trumps = [c for c in by_value if suit(c) != trump]
    if not non_trumps:
        return by_value[:1]
    return [c for c in non_trumps if rank(c) == rank(non_trumps[0])][:limit]


def throw_in(policy: str, hand: set[int], table: list[int], trump: int, room: int) -> list[int]:
    """Throw-ins ([Policies]): cards whose rank is on the table, within ``room`` more attack
    cards."""
    ranks = {rank(c) for c in table}
    fits = sorted((c for c in hand if rank(c) in ranks), key=lambda c: value(c, trump))
    if policy == "cheapest":
        return [c for c in fits if suit(c) != trump][:max(0, min(1, room))]
    return fits[:max(room, 0)]


def answer(hand: set[int], unbeaten: list[int], trump: int) -> list[tuple[int, int]] | None:
    """The answer ([Policies], both policies): highest unbeaten card first, each beaten by the
    lowest unused card that beats it; ``None`` means take."""
    unused = sorted(hand, key=lambda c: value(c, trump))
    pairs = []
    for attack in sorted(unbeaten, key=lambda c: value(c, trump), reverse=True):
        beater = next((c for c in unused if beats(c, attack, trump)), None)
        if beater is None:
            return None
        unused.remove(beater)
        pairs.append((attack, beater))
    return pairs


class Game:
    """One game from a position under options; :meth:`play` runs it to its end."""

    def __init__(self, position: Position, options: DurakOptions,
                 trace: list[str] | None = None) -> None:
        self.options = options
        self.n = options.players
        self.hands = [set(hand) for hand in position.hands]
        self.talon = list(position.talon)
        self.trump = position.trump
        self.attacker: int | None = position.attacker   # None once the game is over
        self.first = position.first
        self.trace = trace
        held = {c for hand in self.hands for c in hand} | set(self.talon)
        self.discard = set(deck(options.deck)) - held     # [Deals]: every other card
        # [The end]: seats out at the start first, in seat order.
        self.out = [seat for seat in range(self.n) if not self.hands[seat] and not self.talon]
        self.counts = {"bouts": 0, "cards": 0, "takes": 0, "transfers": 0}

    def say(self, text: str) -> None:
        if self.trace is not None:
            self.trace.append(text)

    # Seats and roles ([A bout], [Pair against pair]).

    def next_player(self, seat: int) -> int | None:
        """The next player clockwise who is not out (None if nobody else is in)."""
        for step in range(1, self.n):
            other = (seat + step) % self.n
            if other not in self.out:
                return other
        return None

    def target(self, seat: int) -> int | None:
        """Who defends against ``seat`` (next player; in pairs the next opponent)."""
        for step in range(1, self.n):
            other = (seat + step) % self.n
            if other in self.out or (self.options.pairs and step % 2 == 0):
                continue
            return other
        return None

    def went_out(self, seat: int) -> None:
        """[A bout]: out the moment he holds no cards while the talon is empty."""
        if not self.hands[seat] and not self.talon and seat not in self.out:
            self.out.append(seat)
            self.say(f"  {seat + 1} is out")

    def put(self, seat: int, played: list[int]) -> None:
        for c in played:
            self.hands[seat].remove(c)
        self.counts["cards"] += len(played)

    # The bout ([A bout], [Perevodnoy]).

    def bout(self) -> None:
        big_l = self.options.first_limit if self.first else 6
        leader = self.attacker
        assert leader is not None
        defender = self.target(leader)
        assert defender is not None
        main = leader
        limit = min(big_l, len(self.hands[defender]))
        attack = lead(self.options.policies[leader], self.hands[leader], self.trump, limit)
        self.put(leader, attack)
        table = list(attack)      # every card on the table
        unbeaten = list(attack)
        n_attack = len(attack)
        self.say(f"bout {self.counts['bouts'] + 1}: {leader + 1} leads {names(attack)} "
                 f"to {defender + 1}")
        self.went_out(leader)
        if self.options.transfers and (not self.first or self.options.first_transfer):
            defender, main, limit, n_attack = self.transfers(defender, main, table,
                                                            unbeaten, big_l, limit, n_attack)
        took = False
        while True:
            beaten = answer(self.hands[defender], unbeaten, self.trump)
            if beaten is None:
                took = True
                which = names(unbeaten) if len(unbeaten) == 1 else f"all of {names(unbeaten)}"
                self.say(f"  {defender + 1} cannot beat {which}: takes")
                break
            self.put(defender, [b for _, b in beaten])
            table += [b for _, b in beaten]
            unbeaten = []
            self.say("  " + ", ".join(f"{defender + 1} beats {name(a)} with {name(b)}"
                                      for a, b in beaten))
            self.went_out(defender)
            added = self.throw_pass(main, defender, table, limit, n_attack)
            if not added:
                break
            n_attack += len(added)
            unbeaten = added
        if took:
            while self.options.throw_after_take:
                added = self.throw_pass(main, defender, table, limit, n_attack)
                if not added:
                    break
                n_attack += len(added)
            self.hands[defender] |= set(table)
            self.counts["takes"] += 1
            self.say(f"  {defender + 1} takes {names(table)}")
        else:
            self.discard |= set(table)
            self.say("  beat: the table goes to the discard")
        self.refill(leader, defender)
        self.counts["bouts"] += 1
        self.first = False
        if took:
            self.attacker = self.next_player(defender)
        else:
            self.attacker = defender if defender not in self.out else self.next_player(defender)
        if self.attacker is not None and not self.over():
            self.say(f"  next: {self.attacker + 1}")

    def transfers(self, defender: int, main: int, table: list[int], unbeaten: list[int],
                  big_l: int, limit: int, n_attack: int) -> tuple[int, int, int, int]:
        """[Perevodnoy] and [Policies]'s transfer rule: transfer whenever some transfer is legal."""
        shown = False
        while True:
            target = self.target(defender)
            if target is None:
                break
            attack_rank = rank(table[0])
            room = min(big_l, len(self.hands[target]))
            own = sorted((c for c in self.hands[defender] if rank(c) == attack_rank),
                         key=lambda c: value(c, self.trump))
            plain = [c for c in own if suit(c) != self.trump]
            trumps = [c for c in own if suit(c) == self.trump]
            can_put = n_attack + 1 <= room
            if can_put and plain:
                card, how = plain[0], "transfers with"
            elif self.options.show_trump and not shown and trumps and n_attack <= room:
                card, how, shown = trumps[0], "shows", True
            elif can_put and trumps:
                card, how = trumps[0], "transfers with"
            else:
                break
            self.counts["transfers"] += 1
            if how == "shows":
                self.say(f"  {defender + 1} shows {name(card)}: {target + 1} defends")
            else:
                self.put(defender, [card])
                table.append(card)
                unbeaten.append(card)
                n_attack += 1
                self.say(f"  {defender + 1} transfers with {name(card)} to {target + 1}")
                self.went_out(defender)
            main, defender = defender, target
            limit = room
        return defender, main, limit, n_attack

    def throw_pass(self, main: int, defender: int, table: list[int], limit: int,
                   n_attack: int) -> list[int]:
        """[A bout, step 4]: main attacker, then the others clockwise; one ask each."""
        added: list[int] = []
        for step in range(self.n):
            seat = (main + step) % self.n
            if seat == defender or not self.hands[seat]:
                continue
            if self.options.pairs and seat % 2 == defender % 2:
                continue
            room = limit - n_attack - len(added)
            thrown = throw_in(self.options.policies[seat], self.hands[seat], table,
                              self.trump, room)
            if thrown:
                self.put(seat, thrown)
                table += thrown
                added += thrown
                self.say(f"  {seat + 1} throws in {names(thrown)}")
                self.went_out(seat)
        return added

    def refill(self, leader: int, defender: int) -> None:
        """[A bout, step 6]: from the leader clockwise, the final defender last; then outs."""
        order = [(leader + step) % self.n for step in range(self.n)]
        order = [seat for seat in order if seat != defender] + [defender]
        order = [seat for seat in order if seat not in self.out]
        for seat in order:
            drawn = self.talon[:max(0, 6 - len(self.hands[seat]))]
            del self.talon[:len(drawn)]
            self.hands[seat] |= set(drawn)
            if drawn:
                self.say(f"  {seat + 1} draws {names(drawn)}")
        for seat in order:
            self.went_out(seat)

    # The game ([The end], [Counting]).

    def over(self) -> bool:
        alive = [seat for seat in range(self.n) if seat not in self.out]
        if self.options.pairs:
            return len({seat % 2 for seat in alive}) <= 1
        return len(alive) <= 1

    def state(self) -> State:
        """[Counting]: each hand as a set, the talon in order, the next leader, the first-bout
        flag."""
        return (tuple(frozenset(hand) for hand in self.hands), tuple(self.talon),
                self.attacker, self.first)

    def result(self, outcome: str, loser: int | None = None,
               losing_pair: list[int] | None = None) -> dict[str, Any]:
        return {"outcome": outcome, "loser": loser, "losing_pair": losing_pair,
                "out": [seat + 1 for seat in self.out], **self.counts, "cycle": None}

    def finish(self) -> dict[str, Any]:
        alive = [seat for seat in range(self.n) if seat not in self.out]
        if not alive:
            return self.result("draw")
        loser = alive[0] + 1 if len(alive) == 1 else None
        pair = [alive[0] % 2 + 1, alive[0] % 2 + 3] if self.options.pairs else None
        return self.result("win", loser, pair)

    def limit_result(self) -> dict[str, Any]:
        """[Counting]: most cards loses (pairs: the pair with more cards); equal is no loser."""
        sizes = [len(hand) for hand in self.hands]
        if self.options.pairs:
            odd, even = sizes[0] + sizes[2], sizes[1] + sizes[3]
            pair = None if odd == even else ([1, 3] if odd > even else [2, 4])
            return self.result("limit", None, pair)
        most = max(sizes)
        losers = [seat for seat, size in enumerate(sizes) if size == most]
        return self.result("limit", losers[0] + 1 if len(losers) == 1 else None)

    def play(self, states: list[State] | None = None,
             places: list[tuple[Any, ...]] | None = None) -> dict[str, Any]:
        seen: dict[State, dict[str, int]] = {}
        while True:
            if places is not None:
                places.append(([set(hand) for hand in self.hands], list(self.talon),
                               set(self.discard)))
            if self.over():
                return self.finish()
            state = self.state()
            if states is not None:
                states.append(state)
            if state in seen:
                earlier = seen[state]
                result = self.result("cycle")
                result["cycle"] = {
                    "entry_bouts": earlier["bouts"], "entry_cards": earlier["cards"],
                    "period_bouts": self.counts["bouts"] - earlier["bouts"],
                    "period_cards": self.counts["cards"] - earlier["cards"]}
                self.say(f"the state after bout {earlier['bouts']} is back: a cycle")
                return result
            seen[state] = dict(self.counts)
            max_bouts = self.options.max_bouts
            if max_bouts is not None and self.counts["bouts"] >= max_bouts:
                self.say(f"agreed limit of {max_bouts} bouts reached")
                return self.limit_result()
            self.bout()


def play(position: Position, options: DurakOptions, trace: list[str] | None = None,
         states: list[State] | None = None,
         places: list[tuple[Any, ...]] | None = None) -> dict[str, Any]:
    """Play a position to its end; the [Counting] result as a dict.

    ``states`` receives the [Counting] state at every boundary checked for repetition; ``places``
    (hands, talon, discard) at every boundary, for the card-conservation property.
    """
    return Game(position, options, trace).play(states, places)
