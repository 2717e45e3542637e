# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled Durak engine: the contract (docs/games/durak.md) on 64-bit card masks.

Hands, the table and the cards of a rank are masks (bit = card code, see notation.py); the loop
holds no Python object and runs without the GIL. Policies ([Policies]) are in one place below.
Cycle detection is exact ([Counting]): every boundary state goes into a StateStore; the store is
cleared whenever the talon shrinks, since states with different talons can never be equal.
"""

import numpy as np

from dealsearch.checks import whole as _whole

cimport numpy as cnp
from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from dealsearch._bits cimport bit_count as count
from dealsearch._bits cimport high_bit, low_bit
from dealsearch._cycle cimport (
    StateStore,
    store_clear,
    store_find_or_add,
    store_free,
    store_init,
    store_marks,
)
from dealsearch._kernel cimport Kernel, KernelResult, set_two_measures

cnp.import_array()

# One bit per rank (the lowest suit's bit of each of the 13 nibbles); times 0xF: whole ranks.
cdef uint64_t RANK_BITS = 0x1111111111111ULL


cdef inline uint64_t lowest_first(uint64_t cards, int k) noexcept nogil:
    # The k lowest codes of cards (lowest value first among cards of one trumpness).
    cdef uint64_t kept = 0, low
    while cards and k > 0:
        low = cards & (~cards + 1)
        kept |= low
        cards ^= low
        k -= 1
    return kept


cdef inline uint64_t whole_ranks(uint64_t cards) noexcept nogil:
    # Every card of every rank present in cards: what a throw-in may match ([A bout, step 4]).
    cdef uint64_t x = cards | (cards >> 1)
    x |= x >> 2
    return (x & RANK_BITS) * 0xF


cdef inline uint64_t lowest_card(uint64_t hand, uint64_t trumps) noexcept nogil:
    # [Cards] value: every non-trump is below every trump; inside each, code order is value order.
    cdef uint64_t plain = hand & ~trumps
    if plain:
        return plain & (~plain + 1)
    return hand & (~hand + 1)


# ----------------------------------------------------------------------------------------
# Policies, in the contract's words. Hands are masks; "lowest" is by value ([Cards]).
# ----------------------------------------------------------------------------------------

cdef inline uint64_t policy_lead(int policy, uint64_t hand, uint64_t trumps,
                                 int limit) noexcept nogil:
    # cheapest: "the single lowest card of the hand".
    # aggressive: "all non-trump cards of the rank of the lowest non-trump, lowest first, cut
    # to min(L, H); if he holds no non-trump, the lowest trump alone".
    cdef uint64_t plain = hand & ~trumps
    if policy == CHEAPEST or plain == 0:
        return lowest_card(hand, trumps)
    return lowest_first(plain & (<uint64_t>0xF << (low_bit(plain) & ~3)), limit)


cdef inline uint64_t policy_throw_in(int policy, uint64_t hand, uint64_t table_ranks,
                                     uint64_t trumps, int room) noexcept nogil:
    # cheapest: "at most one card: the lowest non-trump card whose rank is on the table, if
    # the limit allows one more. Never a trump."
    # aggressive: "every card (trumps too) whose rank is on the table, lowest first, cut to
    # what the limit still allows".
    cdef uint64_t fits = hand & table_ranks
    cdef uint64_t plain = fits & ~trumps
    cdef uint64_t thrown
    if room <= 0:
        return 0
    if policy == CHEAPEST:
        return plain & (~plain + 1)
    thrown = lowest_first(plain, room)
    return thrown | lowest_first(fits & trumps, room - count(thrown))


cdef inline bint policy_answer(uint64_t hand, uint64_t unbeaten, uint64_t trumps,
                               uint64_t* beaters) noexcept nogil:
    # Both policies: "go through the unbeaten cards from the highest value down; give each
    # the lowest unused card of the hand that beats it. If every card gets one, play them
    # all; if any card gets none, take." Returns False for a take.
    cdef uint64_t unused = hand, todo, candidates, above
    cdef int attack
    beaters[0] = 0
    todo = unbeaten & trumps                 # trumps first: they are the highest values
    while todo:
        attack = high_bit(todo)
        todo ^= <uint64_t>1 << attack
        above = ~((<uint64_t>2 << attack) - 1)
        candidates = unused & trumps & above
        if candidates == 0:
            return False
        candidates &= ~candidates + 1
        unused ^= candidates
        beaters[0] |= candidates
    todo = unbeaten & ~trumps
    while todo:
        attack = high_bit(todo)
        todo ^= <uint64_t>1 << attack
        above = ~((<uint64_t>2 << attack) - 1)
        candidates = unused & (RANK_BITS << (attack & 3)) & above   # same suit, higher
        if candidates == 0:
            candidates = unused & trumps
        if candidates == 0:
            return False
        candidates &= ~candidates + 1
        unused ^= candidates
        beaters[0] |= candidates
    return True


cdef inline int policy_transfer(const Rules* rules, uint64_t hand, uint64_t attack_rank,
                                uint64_t trumps, int n_attack, int room,
                                bint shown, uint64_t* card) noexcept nogil:
    # Both policies: "transfer whenever some transfer is legal: put the lowest non-trump card
    # of the attack rank if putting is legal and he has one; else show the trump of the rank
    # if show_trump is on and showing is legal; else put the trump of the rank if putting is
    # legal." Returns 0 (no transfer), 1 (put *card) or 2 (show *card).
    cdef uint64_t own = hand & attack_rank
    cdef uint64_t plain = own & ~trumps
    cdef bint can_put = n_attack + 1 <= room
    if can_put and plain:
        card[0] = plain & (~plain + 1)
        return 1
    card[0] = own & trumps
    if rules.show_trump and not shown and card[0] and n_attack <= room:
        return 2
    if can_put and card[0]:
        return 1
    return 0


# ----------------------------------------------------------------------------------------
# Seats ([A bout], [Pair against pair])
# ----------------------------------------------------------------------------------------

cdef inline int next_in(const Rules* rules, const Table* table, int seat,
                        int stride) noexcept nogil:
    # The first player not out at 1, 1 + stride, 1 + 2 stride... seats clockwise of seat;
    # -1 if none is in.
    cdef int step = 1, other
    while step < rules.players:
        other = seat + step
        if other >= rules.players:
            other -= rules.players
        if not table.is_out[other]:
            return other
        step += stride
    return -1


cdef inline int next_player(const Rules* rules, const Table* table, int seat) noexcept nogil:
    # The next player clockwise who is not out; -1 if nobody else is in.
    return next_in(rules, table, seat, 1)


cdef inline int defender_of(const Rules* rules, const Table* table, int seat) noexcept nogil:
    # Who defends against seat: the next player, in pairs the next opponent (odd steps).
    return next_in(rules, table, seat, 2 if rules.pairs else 1)


cdef inline void went_out(Table* table, int seat) noexcept nogil:
    # [A bout]: out the moment he holds no cards while the talon is empty.
    if table.hand[seat] == 0 and table.talon_top == table.talon_end and not table.is_out[seat]:
        table.is_out[seat] = True
        table.out[table.n_out] = seat
        table.n_out += 1


cdef inline void draw(Table* table, int seat) noexcept nogil:
    cdef int need = HAND_SIZE - count(table.hand[seat])
    while need > 0 and table.talon_top < table.talon_end:
        table.hand[seat] |= <uint64_t>1 << table.talon[table.talon_top]
        table.talon_top += 1
        need -= 1


# ----------------------------------------------------------------------------------------
# The bout ([A bout], [Perevodnoy])
# ----------------------------------------------------------------------------------------

cdef uint64_t throw_pass(const Rules* rules, Table* table, int main, int defender,
                         uint64_t table_ranks, int room) noexcept nogil:
    # [A bout, step 4]: the main attacker, then the others clockwise; each asked once. Returns the
    # cards added (the caller puts them on the table).
    cdef uint64_t added = 0, thrown
    cdef int step, seat
    for step in range(rules.players):
        if room <= 0:
            break
        seat = main + step
        if seat >= rules.players:
            seat -= rules.players
        if seat == defender or table.hand[seat] == 0:
            continue
        if rules.pairs and (seat & 1) == (defender & 1):
            continue
        thrown = policy_throw_in(rules.policy[seat], table.hand[seat], table_ranks,
                                 table.trumps, room)
        if thrown:
            table.hand[seat] ^= thrown
            table.cards += count(thrown)
            room -= count(thrown)
            added |= thrown
            went_out(table, seat)
    return added


cdef void play_bout(const Rules* rules, Table* table) noexcept nogil:
    # One bout, [A bout] step by step. Longer than our usual 80 lines on purpose: split up, its
    # dozen locals (table, unbeaten, ranks, limit, roles) would travel through a struct, and the
    # bout would no longer read in the contract's order.
    cdef int big_l = rules.first_limit if table.first else 6
    cdef int leader = table.attacker
    cdef int defender = defender_of(rules, table, leader)
    cdef int main = leader, limit, n_attack, target, room, how, step, seat
    cdef uint64_t on_table, unbeaten, table_ranks, card, beaters, added
    cdef bint shown = False, took = False

    limit = min(big_l, count(table.hand[defender]))
    on_table = policy_lead(rules.policy[leader], table.hand[leader], table.trumps, limit)
    table.hand[leader] ^= on_table
    n_attack = count(on_table)
    table.cards += n_attack
    unbeaten = on_table
    table_ranks = whole_ranks(on_table)
    went_out(table, leader)

    # [Perevodnoy]: transfers, while nothing on the table is beaten.
    if rules.transfers and (not table.first or rules.first_transfer):
        while True:
            target = defender_of(rules, table, defender)
            if target < 0:
                break
            room = min(big_l, count(table.hand[target]))
            how = policy_transfer(rules, table.hand[defender], table_ranks, table.trumps,
                                  n_attack, room, shown, &card)
            if how == 0:
                break
            table.transfers += 1
            if how == 1:
                table.hand[defender] ^= card
                on_table |= card
                unbeaten |= card
                n_attack += 1
                table.cards += 1
                went_out(table, defender)
            else:
                shown = True
            main = defender
            defender = target
            limit = room

    # [A bout; Perevodnoy]: answer, throw-in pass, answer ... until a beat or a take.
    while True:
        if not policy_answer(table.hand[defender], unbeaten, table.trumps, &beaters):
            took = True
            break
        table.hand[defender] ^= beaters
        on_table |= beaters
        table.cards += count(beaters)
        table_ranks |= whole_ranks(beaters)
        went_out(table, defender)
        added = throw_pass(rules, table, main, defender, table_ranks, limit - n_attack)
        if added == 0:
            break
        on_table |= added
        n_attack += count(added)
        unbeaten = added

    # [A bout, step 5]: after a take, passes go on until one adds nothing; then he takes the table.
    if took:
        while rules.throw_after_take:
            added = throw_pass(rules, table, main, defender, table_ranks, limit - n_attack)
            if added == 0:
                break
            on_table |= added
            n_attack += count(added)
        table.hand[defender] |= on_table
        table.takes += 1

    # [A bout, step 6]: refill from the leader clockwise, the final defender last; then the outs.
    for step in range(rules.players):
        seat = leader + step
        if seat >= rules.players:
            seat -= rules.players
        if seat != defender and not table.is_out[seat]:
            draw(table, seat)
    if not table.is_out[defender]:
        draw(table, defender)
    for step in range(rules.players):
        seat = leader + step
        if seat >= rules.players:
            seat -= rules.players
        if seat != defender:
            went_out(table, seat)
    went_out(table, defender)

    table.bouts += 1
    table.first = False
    # [A bout, step 7]: after a beat the final defender (or the next after him if out); after a
    # take the
    # next player after him.
    if not took and not table.is_out[defender]:
        table.attacker = defender
    else:
        table.attacker = next_player(rules, table, defender)


# ----------------------------------------------------------------------------------------
# The game ([Deals], [The end], [Counting])
# ----------------------------------------------------------------------------------------

cdef void deal_row(const Rules* rules, const uint8_t* row, Table* table) noexcept nogil:
    # The row: hands of 6 (seat 1 first), then the talon, its last card showing trump.
    cdef int seat, j, trump = row[rules.deck - 1] & 3, card, lowest = 255
    memset(table, 0, sizeof(Table))
    table.trumps = RANK_BITS << trump
    for seat in range(rules.players):
        for j in range(HAND_SIZE):
            card = row[seat * HAND_SIZE + j]
            table.hand[seat] |= <uint64_t>1 << card
            if (card & 3) == trump and card < lowest:
                lowest = card
                table.attacker = seat       # [Deals]: the holder of the lowest trump leads
    table.talon_end = rules.deck - HAND_SIZE * rules.players
    memcpy(table.talon, row + HAND_SIZE * rules.players, table.talon_end)
    table.first = True


cdef void start_outs(const Rules* rules, Table* table) noexcept nogil:
    # [The end]: seats out at the start, in seat order.
    cdef int seat
    for seat in range(rules.players):
        went_out(table, seat)


cdef int state_width(const Rules* rules) noexcept nogil:
    return 8 * rules.players + 3


cdef inline void write_state(const Rules* rules, const Table* table,
                             uint8_t* state) noexcept nogil:
    # [Counting]: each hand as a set, the talon (its position: the cards follow), the leader, the
    # first-bout flag.
    memcpy(state, table.hand, 8 * rules.players)
    state[8 * rules.players] = <uint8_t>table.talon_top
    state[8 * rules.players + 1] = <uint8_t>table.attacker
    state[8 * rules.players + 2] = <uint8_t>table.first


cdef bint game_over(const Rules* rules, const Table* table) noexcept nogil:
    cdef int seat, alive = 0, sides = 0
    for seat in range(rules.players):
        if not table.is_out[seat]:
            alive += 1
            sides |= 1 << (seat & 1)
    if rules.pairs:
        return sides != 3
    return alive <= 1


cdef void finish(const Rules* rules, const Table* table, int outcome,
                 Outcome* result) noexcept nogil:
    cdef int seat, alive = 0, last = -1, odd = 0, even = 0, most = -1, n_most = 0, size
    result.outcome = outcome
    result.loser = -1
    result.losing_pair = -1
    result.n_out = table.n_out
    memcpy(result.out, table.out, sizeof(int) * MAX_PLAYERS)
    result.bouts = table.bouts
    result.cards = table.cards
    result.takes = table.takes
    result.transfers = table.transfers
    result.entry_bouts = result.entry_cards = result.period_bouts = result.period_cards = 0
    if outcome == OUTCOME_WIN or outcome == OUTCOME_DRAW:
        for seat in range(rules.players):
            if not table.is_out[seat]:
                alive += 1
                last = seat
        if alive == 0:
            result.outcome = OUTCOME_DRAW
            return
        result.outcome = OUTCOME_WIN
        if alive == 1:
            result.loser = last
        if rules.pairs:
            result.losing_pair = last & 1
    elif outcome == OUTCOME_LIMIT:
        # [Counting]: the most cards loses (pairs: the pair with more cards); equal is no loser.
        for seat in range(rules.players):
            size = count(table.hand[seat])
            if seat & 1:
                even += size
            else:
                odd += size
            if size > most:
                most, n_most, last = size, 1, seat
            elif size == most:
                n_most += 1
        if rules.pairs:
            if odd != even:
                result.losing_pair = 0 if odd > even else 1
        elif n_most == 1:
            result.loser = last


cdef int play_table(const Rules* rules, Table* table, StateStore* store,
                    Outcome* result) noexcept nogil:
    # Play to the end; 0, or -1 if the state store ran out of memory.
    cdef uint8_t state[8 * MAX_PLAYERS + 3]
    cdef int64_t marks[2]
    cdef const int64_t* earlier
    cdef int index, talon_top = table.talon_top
    store_clear(store)
    while True:
        if game_over(rules, table):
            finish(rules, table, OUTCOME_WIN, result)
            return 0
        if table.talon_top != talon_top:
            store_clear(store)
            talon_top = table.talon_top
        write_state(rules, table, state)
        marks[0] = table.bouts
        marks[1] = table.cards
        index = store_find_or_add(store, state, marks)
        if index == -2:
            return -1
        if index >= 0:
            finish(rules, table, OUTCOME_CYCLE, result)
            earlier = store_marks(store, index)
            result.entry_bouts = earlier[0]
            result.entry_cards = earlier[1]
            result.period_bouts = table.bouts - earlier[0]
            result.period_cards = table.cards - earlier[1]
            return 0
        if rules.max_bouts >= 0 and table.bouts >= rules.max_bouts:
            finish(rules, table, OUTCOME_LIMIT, result)
            return 0
        play_bout(rules, table)


# ----------------------------------------------------------------------------------------
# Python entry points (arguments checked here, once)
# ----------------------------------------------------------------------------------------

def _policies(policies, players):
    """The policy codes as a list (every seat cheapest when None), for fill_rules to check."""
    if policies is None:
        return [CHEAPEST] * _whole("players", players)
    try:
        return list(policies)
    except TypeError:
        raise ValueError(f"policies must be a sequence of codes, not {policies!r}") from None


cdef int fill_rules(Rules* rules, players, deck, bint transfers, bint pairs,
                    first_limit, bint first_transfer, bint show_trump,
                    bint throw_after_take, policies, max_bouts) except -1:
    cdef int seat
    players, deck = _whole("players", players), _whole("deck", deck)
    first_limit, max_bouts = _whole("first_limit", first_limit), _whole("max_bouts", max_bouts)
    if not -1 <= max_bouts < 2 ** 63:
        raise ValueError(f"max_bouts must be at least 0, or -1 for none, not {max_bouts}")
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be 2 to {MAX_PLAYERS}, not {players}")
    if deck != 36 and deck != 52:
        raise ValueError(f"deck must be 36 or 52, not {deck}")
    if pairs and players != 4:
        raise ValueError(f"pairs needs 4 players, not {players}")
    if first_limit != 5 and first_limit != 6:
        raise ValueError(f"first_limit must be 5 or 6, not {first_limit}")
    if len(policies) != players:
        raise ValueError(f"{len(policies)} policies for {players} players")
    memset(rules, 0, sizeof(Rules))
    for seat in range(players):
        if policies[seat] not in (CHEAPEST, AGGRESSIVE):
            raise ValueError(f"policy code must be 0 or 1, not {policies[seat]!r}")
        rules.policy[seat] = policies[seat]
    rules.players = players
    rules.deck = deck
    rules.transfers = transfers
    rules.pairs = pairs
    rules.first_limit = first_limit
    rules.first_transfer = first_transfer
    rules.show_trump = show_trump
    rules.throw_after_take = throw_after_take
    rules.max_bouts = max_bouts
    return 0


cdef int lowest_code(int deck):
    # the 36-card deck starts at the sixes: codes 16..51 (notation.py)
    return 16 if deck == 36 else 0


def _check_rows(rows, int deck):
    """Every row (a 2-D uint8 array) holds each card of the ``deck``-card deck once: the
    engine keeps hands as sets, so a repeated card would silently vanish from a hand."""
    if rows.shape[1] != deck:
        raise ValueError(f"a {deck}-card row has {deck} cards, not {rows.shape[1]}")
    if rows.shape[0] and rows.max() >= MAX_DECK:
        raise ValueError("card codes must be below 52")
    if rows.shape[0] and not (np.sort(rows, axis=1)
                              == np.arange(lowest_code(deck), MAX_DECK, dtype=np.uint8)).all():
        raise ValueError(f"a row must hold each card code {lowest_code(deck)}-51 of the "
                         f"{deck}-card deck once")


def play_rows(rows, *, players, deck, bint transfers=False,
              bint pairs=False, first_limit=6, bint first_transfer=False,
              bint show_trump=False, bint throw_after_take=True, policies=None,
              max_bouts=-1):
    """Play every row (hands of 6, seat 1 first, then the talon with the trump card last).

    Returns ``(outcome, loser, losing_pair, counts, cycle, out)``: loser and losing_pair
    0-based with -1 for none; counts columns bouts, cards, takes, transfers; cycle columns
    entry_bouts, entry_cards, period_bouts, period_cards; out (rows x players) 0-based seats
    in the order they went out, -1 padded. Policies: one code per seat (0 cheapest, 1
    aggressive). The loop runs without the GIL.
    """
    cdef Rules rules
    cdef Py_ssize_t i
    cdef int status = 0, seat
    cdef Table table
    cdef Outcome result
    cdef StateStore store
    fill_rules(&rules, players, deck, transfers, pairs, first_limit, first_transfer,
               show_trump, throw_after_take, _policies(policies, players), max_bouts)
    if not isinstance(rows, np.ndarray) or rows.dtype != np.uint8 or rows.ndim != 2:
        raise ValueError("rows must be a 2-D uint8 array")
    _check_rows(rows, rules.deck)
    cdef const uint8_t[:, ::1] cards = np.ascontiguousarray(rows)
    cdef Py_ssize_t n = cards.shape[0]
    outcome = np.zeros(n, dtype=np.uint8)
    loser = np.full(n, -1, dtype=np.int8)
    losing_pair = np.full(n, -1, dtype=np.int8)
    counts = np.zeros((n, 4), dtype=np.int64)
    cycle = np.zeros((n, 4), dtype=np.int64)
    out = np.full((n, rules.players), -1, dtype=np.int8)
    cdef uint8_t[::1] outcome_v = outcome
    cdef int8_t[::1] loser_v = loser, pair_v = losing_pair
    cdef int64_t[:, ::1] counts_v = counts, cycle_v = cycle
    cdef int8_t[:, ::1] out_v = out
    if store_init(&store, state_width(&rules), 2) != 0:
        store_free(&store)
        raise MemoryError("no memory for the cycle store")
    with nogil:
        for i in range(n):
            deal_row(&rules, &cards[i, 0], &table)
            status = play_table(&rules, &table, &store, &result)
            if status != 0:
                break
            outcome_v[i] = <uint8_t>result.outcome
            loser_v[i] = <int8_t>result.loser
            pair_v[i] = <int8_t>result.losing_pair
            counts_v[i, 0] = result.bouts
            counts_v[i, 1] = result.cards
            counts_v[i, 2] = result.takes
            counts_v[i, 3] = result.transfers
            cycle_v[i, 0] = result.entry_bouts
            cycle_v[i, 1] = result.entry_cards
            cycle_v[i, 2] = result.period_bouts
            cycle_v[i, 3] = result.period_cards
            for seat in range(result.n_out):
                out_v[i, seat] = <int8_t>result.out[seat]
    store_free(&store)
    if status != 0:
        raise MemoryError("no memory for the cycle store")
    return outcome, loser, losing_pair, counts, cycle, out


def play_position(hands, trump, talon, attacker, bint first, *, players,
                  deck, bint transfers=False, bint pairs=False, first_limit=6,
                  bint first_transfer=False, bint show_trump=False,
                  bint throw_after_take=True, policies=None, max_bouts=-1):
    """Play a position (hands as card-code sequences, talon top first, 0-based attacker).

    Returns a dict: outcome (code), loser, losing_pair (0-based or -1), out (0-based list),
    bouts, cards, takes, transfers, entry_bouts, entry_cards, period_bouts, period_cards.
    The caller validates the position (notation.parse_position).
    """
    cdef Rules rules
    cdef Table table
    cdef Outcome result
    cdef StateStore store
    cdef int seat, status
    fill_rules(&rules, players, deck, transfers, pairs, first_limit, first_transfer,
               show_trump, throw_after_take, _policies(policies, players), max_bouts)
    players, deck = rules.players, rules.deck
    trump, attacker = _whole("trump", trump), _whole("attacker", attacker)
    if len(hands) != players:
        raise ValueError(f"{len(hands)} hands for {players} players")
    if not 0 <= trump < 4 or not 0 <= attacker < players:
        raise ValueError("trump must be 0..3 and attacker a 0-based seat")
    if len(talon) > MAX_DECK:
        raise ValueError("the talon holds at most 52 cards")
    hands = [list(hand) for hand in hands]
    talon = list(talon)
    seen = set()
    for card in [card for hand in hands for card in hand] + talon:
        if isinstance(card, bool) or not isinstance(card, (int, np.integer)):
            raise ValueError(f"card code {card!r} is not a whole number")
        if not lowest_code(deck) <= card < MAX_DECK:
            raise ValueError(f"card code {card} is not a card of the {deck}-card deck "
                             f"({lowest_code(deck)}-51)")
        if card in seen:                # hands are sets: a second copy would vanish
            raise ValueError(f"card code {card} is dealt twice")
        seen.add(card)
    memset(&table, 0, sizeof(Table))
    for seat in range(players):
        for card in hands[seat]:
            table.hand[seat] |= <uint64_t>1 << <int>card
    for seat, card in enumerate(talon):
        table.talon[seat] = card
    table.talon_end = len(talon)
    table.trumps = RANK_BITS << trump
    table.attacker = attacker
    table.first = first
    start_outs(&rules, &table)
    if store_init(&store, state_width(&rules), 2) != 0:
        store_free(&store)
        raise MemoryError("no memory for the cycle store")
    with nogil:
        status = play_table(&rules, &table, &store, &result)
    store_free(&store)
    if status != 0:
        raise MemoryError("no memory for the cycle store")
    return {"outcome": result.outcome, "loser": result.loser,
            "losing_pair": result.losing_pair,
            "out": [result.out[seat] for seat in range(result.n_out)],
            "bouts": result.bouts, "cards": result.cards, "takes": result.takes,
            "transfers": result.transfers, "entry_bouts": result.entry_bouts,
            "entry_cards": result.entry_cards, "period_bouts": result.period_bouts,
            "period_cards": result.period_cards}


# ----------------------------------------------------------------------------------------
# The Kernel for compiled search loops
# ----------------------------------------------------------------------------------------

cdef struct KernelContext:
    Rules rules
    StateStore store


cdef int kernel_play_row(void* context, const uint8_t* row,
                         KernelResult* result) noexcept nogil:
    cdef KernelContext* ctx = <KernelContext*>context
    cdef Table table
    cdef Outcome outcome
    deal_row(&ctx.rules, row, &table)
    if play_table(&ctx.rules, &table, &ctx.store, &outcome) != 0:
        return -1
    set_two_measures(result, outcome.outcome, outcome.bouts, outcome.cards,
                     outcome.entry_bouts, outcome.entry_cards, outcome.period_bouts,
                     outcome.period_cards)
    return 0


cdef class KernelMemory:
    """Owns a Kernel's context (rules and cycle store); freed with the Kernel."""

    cdef KernelContext* context

    def __dealloc__(self):
        if self.context != NULL:
            store_free(&self.context.store)
            free(self.context)
            self.context = NULL


def make_kernel(*, players, deck, bint transfers=False, bint pairs=False,
                first_limit=6, bint first_transfer=False, bint show_trump=False,
                bint throw_after_take=True, policies=None, max_bouts=-1):
    """A :class:`~dealsearch._kernel.Kernel` playing rows under these rules (one thread)."""
    cdef Rules rules
    fill_rules(&rules, players, deck, transfers, pairs, first_limit, first_transfer,
               show_trump, throw_after_take, _policies(policies, players), max_bouts)
    deck = rules.deck
    memory = KernelMemory()
    cdef KernelMemory owner = memory
    owner.context = <KernelContext*>malloc(sizeof(KernelContext))
    if owner.context == NULL:
        raise MemoryError("no memory for the kernel")
    owner.context.rules = rules
    if store_init(&owner.context.store, state_width(&rules), 2) != 0:
        raise MemoryError("no memory for the cycle store")
    kernel = Kernel()
    cdef Kernel k = kernel
    k.play_row = kernel_play_row
    k.context = owner.context
    k.n_cards = deck
    k.n_measures = 2
    k.owner = owner
    k.row_check = lambda row: _check_rows(row[None, :], deck)
    return kernel
