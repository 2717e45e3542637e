/* The yardstick: a plain per-card Beggar-My-Neighbour loop in C, for two players
   (docs/games/beggar.md, [Play]).
 *
 * Why it exists: "fast" means nothing without something to be fast against. This is the code
 * public C/C++/Rust simulators are made of: each hand a ring buffer of cards, one card turned
 * per iteration, the pile copied under the taker's hand. It is written to be as fast as that
 * simple design allows, not as a straw man, and it plays the same rules with the same counts as
 * the engine (the payments are an argument, so it plays any variant's table):
 *   - cards  = cards actually turned; tricks = piles taken, including the final one when a
 *     player runs out with cards on the pile;
 *   - the game is over the moment one player holds every card (no further lead is counted).
 *
 * No cycle detection: a game that turns more than YS_GUARD_CARDS cards is stopped and reported
 * as unfinished (cards and tricks -1). Every terminating deal known is far shorter (the record
 * is 8344 cards), so on terminating deals the guard never changes a count; the engine instead
 * detects repeats exactly, which the yardstick does not attempt.
 *
 * The random variant deals with the engine's own generator (counter-based: splitmix64's
 * mixer over the stream's key and a counter, court positions drawn by rejection; see
 * _deals.h), so with the same seed and stream it plays exactly the deals of
 * dealsearch._engine.random_rows and RandomPlayer, and "deal generation included" compares
 * the same work.
 *
 * Compiled at run time by dealsearch.games.beggar.bench (cc -O3 -fPIC -shared) and called through ctypes.
 */
#include <stdint.h>
#include <string.h>

#define YS_RING 64                    /* ring size: a power of two, at least the deck size */
#define YS_GUARD_CARDS 1000000LL      /* in place of cycle detection (see above) */

/* One game. deal: the n_cards card classes, hand 1 first (hand 1 holds (n_cards + 1) / 2).
 * Returns 0, or 1 if the guard stopped it (then *cards = *tricks = -1). */
static int ys_play_one(const unsigned char *deal, int n_cards, const unsigned char *payments,
                       long long *cards_out, long long *tricks_out)
{
    unsigned char hand[2][YS_RING];
    unsigned char pile[YS_RING];
    unsigned head[2] = {0, 0}, len[2];
    unsigned pile_len = 0;
    int cur = 0, owner = 0, owed = 0;
    long long cards = 0, tricks = 0;

    len[0] = (unsigned)(n_cards + 1) / 2;
    len[1] = (unsigned)n_cards - len[0];
    memcpy(hand[0], deal, len[0]);
    memcpy(hand[1], deal + len[0], len[1]);

    for (;;) {
        if (len[cur] == 0) {          /* must turn a card and has none: the other one wins */
            if (pile_len)
                tricks++;             /* the winner takes the last pile */
            break;
        }
        unsigned char card = hand[cur][head[cur]];
        head[cur] = (head[cur] + 1) & (YS_RING - 1);
        len[cur]--;
        pile[pile_len++] = card;
        cards++;
        int pay = payments[card];
        if (pay) {                    /* a court card: the other player owes for it */
            owner = cur;
            owed = pay;
            cur ^= 1;
        } else if (owed) {            /* paying: the payer goes on until paid or a court card */
            if (--owed == 0) {        /* paid in full: the owner takes the pile, in order */
                unsigned tail = head[owner] + len[owner];
                for (unsigned i = 0; i < pile_len; i++)
                    hand[owner][(tail + i) & (YS_RING - 1)] = pile[i];
                len[owner] += pile_len;
                pile_len = 0;
                tricks++;
                cur = owner;
                if (len[owner] == (unsigned)n_cards)
                    break;            /* holds every card: over, no further lead */
                if (cards > YS_GUARD_CARDS) {
                    *cards_out = *tricks_out = -1;
                    return 1;
                }
            }
        } else {
            cur ^= 1;                 /* open play: a numeral passes the turn */
        }
    }
    *cards_out = cards;
    *tricks_out = tricks;
    return 0;
}

/* Play n deals (rows of n_cards classes). Returns how many the guard stopped. */
long long yardstick_play_rows(const unsigned char *rows, long long n, int n_cards,
                              const unsigned char *payments, long long *cards_out,
                              long long *tricks_out)
{
    long long stopped = 0;
    for (long long i = 0; i < n; i++)
        stopped += ys_play_one(rows + i * n_cards, n_cards, payments, &cards_out[i],
                               &tricks_out[i]);
    return stopped;
}

/* ---------------------------------------------------------------- the engine's generator */

/* splitmix64's finaliser */
static inline uint64_t ys_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define YS_GAMMA 0x9e3779b97f4a7c15ULL
#define YS_DEAL_WORDS 64ULL

/* The stream's key: deal d's random words are ys_mix(key + (d * 64 + w + 1) * GAMMA). */
static uint64_t ys_key(uint64_t seed, uint64_t stream)
{
    return ys_mix(ys_mix(seed + YS_GAMMA) ^ (stream * 0xd1342543de82ef95ULL));
}

/* Deal ``index`` of the stream: each court card in turn gets a uniformly random free position
 * (width-bit chunks of the random words, chunks that hit a taken or out-of-range position are
 * rejected); numerals fill the rest. Mirrors ds_deal_planes in _deals.h bit for bit. */
static void ys_deal(uint64_t key, uint64_t index, const unsigned char *courts, int n_courts,
                    int n_cards, unsigned char *deal)
{
    int width = 1;
    while ((1 << width) < n_cards)
        width++;
    const int per_word = 64 / width;
    const uint64_t chunk_mask = (1ULL << width) - 1;
    uint64_t taken = n_cards < 64 ? ~((1ULL << n_cards) - 1) : 0;
    uint64_t r = 0, counter = key + index * YS_DEAL_WORDS * YS_GAMMA;
    int left = 0, placed = 0;
    memset(deal, 0, (size_t)n_cards);
    while (placed < n_courts) {
        if (left == 0) {
            counter += YS_GAMMA;
            r = ys_mix(counter);
            left = per_word;
        }
        int p = (int)(r & chunk_mask);
        r >>= width;
        left--;
        /* branch-free, like the engine's: a rejection is a coin toss to the predictor */
        uint64_t is_free = ((~taken) >> p) & 1;
        taken |= is_free << p;
        deal[p] = is_free ? courts[placed] : deal[p];
        placed += (int)is_free;
    }
}

/* Deal and play n random deals with the engine's generator. cards: the deck, one class per
 * card (any order). Returns how many the guard stopped. */
long long yardstick_play_random(long long n, int n_cards, const unsigned char *cards,
                                const unsigned char *payments, unsigned long long seed,
                                unsigned long long stream, long long *cards_out,
                                long long *tricks_out)
{
    unsigned char courts[YS_RING], deal[YS_RING];
    int n_courts = 0;
    for (int i = 0; i < n_cards; i++)
        if (cards[i])
            courts[n_courts++] = cards[i];
    /* the generator places court classes in ascending order, like the engine */
    for (int i = 1; i < n_courts; i++)
        for (int j = i; j > 0 && courts[j - 1] > courts[j]; j--) {
            unsigned char tmp = courts[j];
            courts[j] = courts[j - 1];
            courts[j - 1] = tmp;
        }
    const uint64_t key = ys_key(seed, stream);
    long long stopped = 0;
    for (long long i = 0; i < n; i++) {
        ys_deal(key, (uint64_t)i, courts, n_courts, n_cards, deal);
        stopped += ys_play_one(deal, n_cards, payments, &cards_out[i], &tricks_out[i]);
    }
    return stopped;
}
