/* The two-player BMN rule step, written once, without branches, for every device: included
 * inside the step function of the SIMD lanes (_lanes_step.h: GCC vectors, a game per lane) and
 * of the GPU (_gpu_step.h: CUDA, or plain C for its CPU emulation, a game per thread). No
 * include guard: each includer pastes it into its own function.
 *
 * A step (hands and pile are bit-planes of card classes, as in _engine.pxd):
 *   - open play (only where nobody owes): the first court card in turn order is found with two
 *     count-trailing-zeros, the numerals before it go onto the pile, and the hands are named so
 *     that Y is the player who now turns that court card;
 *   - then one payment step: Y turns cards for what it owes X (in open play: "forever", so Y
 *     turns its court card at once). Paid with numerals: X takes the pile and leads. A court
 *     card: it goes onto the pile, Y now is owed, so X and Y swap. Y has no card: X wins.
 *
 * The includer defines the types and primitives (a scalar is a vector of one; the step
 * undefines them after use):
 *   BMN_VU            planes (unsigned: logical shifts)
 *   BMN_VI            counts, lengths and masks (signed; a mask is -1 where true, 0 where false)
 *   BMN_MASK(c)       the mask of comparison c
 *   BMN_SEL(m, a, b)  a where mask m, else b
 *   BMN_CTZ(x)        count trailing zeros (x != 0) as a BMN_VI
 *   BMN_N(v)          a BMN_VI count as a shift count of planes
 *   BMN_U(m)          a BMN_VI mask as a BMN_VU mask (all 64 bits)
 *   BMN_ONE           1 as BMN_VU; BMN_BIG, 1 << 20 as BMN_VI ("owes forever")
 * and in scope: BMN_VU x0 x1 x2 y0 y1 y2 p0 p1 p2 pay_word (payment of class i in bits
 * 8i..8i+7); BMN_VI xl yl pl (lengths of X's hand, Y's, the pile), owed (0: open play), xs
 * (X's seat: 0 for seat 0, -1 for seat 1), cards, tricks (in the tricks taken so far), total
 * (cards in the deal), and over, which the step sets to the mask of the games that ended
 * (someone out, or X holds every card; X, the winner, has not yet taken the pile). Every
 * shift count stays below 64 (at most 52 cards).
 *
 * Its locals are not const: with const, GCC allocates the AVX-512 copy's registers otherwise;
 * without, every lanes copy's machine code and the GPU's CUBIN are byte for byte those of the
 * two hand-written steps this file replaced.
 */
{
    BMN_VU tu;
    BMN_VI ti;
    /* ---- open play, applied where nobody owes */
    BMN_VI cx = BMN_CTZ(x0 | x1 | x2 | (BMN_ONE << BMN_N(xl)));
    BMN_VI cy = BMN_CTZ(y0 | y1 | y2 | (BMN_ONE << BMN_N(yl)));
    BMN_VI open = BMN_MASK(owed == 0);
    BMN_VI later = BMN_MASK(cy < cx);         /* the follower's court card comes first */
    BMN_VI k = BMN_SEL(later, cy, cx);        /* numerals each before it */
    BMN_VI dx = open & (k - later);           /* the leader turns one more if later */
    BMN_VI dy = open & k;
    x0 >>= BMN_N(dx); x1 >>= BMN_N(dx); x2 >>= BMN_N(dx);
    y0 >>= BMN_N(dy); y1 >>= BMN_N(dy); y2 >>= BMN_N(dy);
    xl -= dx;
    yl -= dy;
    pl += dx + dy;
    /* make Y the turner: swap where the leader's court card came first */
    BMN_VI sw = open & ~later;
    tu = (x0 ^ y0) & BMN_U(sw); x0 ^= tu; y0 ^= tu;
    tu = (x1 ^ y1) & BMN_U(sw); x1 ^= tu; y1 ^= tu;
    tu = (x2 ^ y2) & BMN_U(sw); x2 ^= tu; y2 ^= tu;
    ti = (xl ^ yl) & sw; xl ^= ti; yl ^= ti;
    xs ^= sw;

    /* ---- one payment step: Y pays X, or (open play) turns its court card */
    BMN_VI c = cy & ~open;                    /* open play: Y's court card is on top */
    BMN_VI due = owed | (open & BMN_BIG);
    BMN_VI take = BMN_MASK(c >= due);         /* paid with numerals: X's trick */
    BMN_VI out = ~take & BMN_MASK(c == yl);   /* Y has no card to turn */
    BMN_VI court = ~(take | out);             /* Y turns a court card at c */
    BMN_VI dy2 = BMN_SEL(take, due, c - court);   /* take: what was owed; court: c + 1 */
    BMN_VU bit = (BMN_U(court) & BMN_ONE) << BMN_N(c);
    BMN_VU shift = (((y0 >> BMN_N(c)) & BMN_ONE) << 3) | (((y1 >> BMN_N(c)) & BMN_ONE) << 4)
                         | (((y2 >> BMN_N(c)) & BMN_ONE) << 5);
    BMN_VI paid = (BMN_VI)((pay_word >> shift) & 0xff);
    p0 |= (y0 & bit) << BMN_N(pl); p1 |= (y1 & bit) << BMN_N(pl); p2 |= (y2 & bit) << BMN_N(pl);
    y0 >>= BMN_N(dy2); y1 >>= BMN_N(dy2); y2 >>= BMN_N(dy2);
    yl -= dy2;
    pl += dy2;

    /* X takes the pile under its hand, in order, and leads */
    BMN_VU tk = BMN_U(take);
    x0 |= (p0 << BMN_N(xl)) & tk; x1 |= (p1 << BMN_N(xl)) & tk; x2 |= (p2 << BMN_N(xl)) & tk;
    p0 &= ~tk; p1 &= ~tk; p2 &= ~tk;
    xl += pl & take;
    cards += pl & take;
    tricks -= take;
    pl &= ~take;
    /* a court card: Y is owed now, so the two swap */
    owed = paid & court;
    tu = (x0 ^ y0) & BMN_U(court); x0 ^= tu; y0 ^= tu;
    tu = (x1 ^ y1) & BMN_U(court); x1 ^= tu; y1 ^= tu;
    tu = (x2 ^ y2) & BMN_U(court); x2 ^= tu; y2 ^= tu;
    ti = (xl ^ yl) & court; xl ^= ti; yl ^= ti;
    xs ^= court;
    over = out | (take & BMN_MASK(xl == total));
}
/* the primitives are the includer's: gone with the step */
#undef BMN_VU
#undef BMN_VI
#undef BMN_MASK
#undef BMN_SEL
#undef BMN_CTZ
#undef BMN_N
#undef BMN_U
#undef BMN_ONE
#undef BMN_BIG
