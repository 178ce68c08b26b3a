# The randomised ejection pattern: how many cards a press shoots out. Pure logic; the random
# source is handed in. Rng is our own small generator so that one seed gives the same sequence on
# the Pico, under the unix port and under CPython (the host can replay a seeded game).

_MASK = 0xFFFFFFFF


class Rng:
    """A Weyl counter through the murmur3 32-bit finaliser ("fmix32"): every output
    bit depends on every state bit, it is small, and identical on every Python."""

    def __init__(self, seed=1):
        self._s = 0
        self.seed(seed)

    def seed(self, seed):
        self._s = (seed * 0x9E3779B1) & _MASK

    def next32(self):
        self._s = z = (self._s + 0x9E3779B9) & _MASK
        z = ((z ^ (z >> 16)) * 0x85EBCA6B) & _MASK
        z = ((z ^ (z >> 13)) * 0xC2B2AE35) & _MASK
        return z ^ (z >> 16)

    def below(self, n):
        """A uniform integer in 0..n-1 (rejection sampling: no modulo bias)."""
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next32()
            if x <= limit:
                return x % n


def fire_rate(fire_chance_pct, max_blanks):
    """The long-run fraction of presses that fire, given the per-press chance and the
    blank-streak bound: 1 / (1 + expected blanks before a fire)."""
    q = 1 - fire_chance_pct / 100
    blanks = 0.0
    qk = 1.0
    for _ in range(max_blanks):
        qk *= q
        blanks += qk
    return 1 / (1 + blanks)


class Pattern:
    """Decides each press: 0 (blank) or a number of cards.

    A press fires with probability fire_chance_pct/100, and always after max_blanks blank
    presses in a row. A firing press shoots i+1 cards with weight burst_weights[i].
    """

    def __init__(self, rng, fire_chance_pct=22, max_blanks=3, burst_weights=None):
        self.rng = rng
        self.fire_chance_pct = fire_chance_pct
        self.max_blanks = max_blanks
        self.burst_weights = burst_weights or [3, 5, 13, 17, 18, 16, 13, 9, 2, 2, 1, 1]
        self.blanks = 0  # blank presses in a row so far (the suspense level)

    def configure(self, cfg):
        self.fire_chance_pct = cfg["fire_chance_pct"]
        self.max_blanks = cfg["max_blanks"]
        self.burst_weights = list(cfg["burst_weights"])

    def reseed(self, seed):
        """Restart from `seed`: the same seed gives the same presses from here on."""
        self.rng.seed(seed)
        self.blanks = 0

    def cards(self):
        """One draw from the cards-per-fire distribution (never 0)."""
        weights = self.burst_weights
        r = self.rng.below(sum(weights))
        i = 0
        for w in weights:
            if r < w:
                return i + 1
            r -= w
            i += 1
        return len(weights)  # not reached: r < sum(weights)

    def press(self):
        """The outcome of one press in the random mode: 0 for a blank, else cards."""
        if self.blanks >= self.max_blanks or self.rng.below(100) < self.fire_chance_pct:
            self.blanks = 0
            return self.cards()
        self.blanks += 1
        return 0
