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
        self._ahead = -1  # the next press's outcome, drawn ahead (-1: not drawn)
        self._was = 0  # the generator's state before that draw

    def configure(self, cfg):
        self.fire_chance_pct = cfg["fire_chance_pct"]
        self.max_blanks = cfg["max_blanks"]
        self.burst_weights = list(cfg["burst_weights"])
        self._undraw()  # drawn under the old settings

    def reseed(self, seed):
        """Restart from `seed`: the same seed gives the same presses from here on."""
        self.rng.seed(seed)
        self.blanks = 0
        self._ahead = -1

    def _undraw(self):
        """Forget a press drawn ahead, the generator put back where it was: the draws
        that follow are the ones there would have been without it."""
        if self._ahead >= 0:
            self.rng._s = self._was
            self._ahead = -1

    def cards(self):
        """One draw from the cards-per-fire distribution (never 0), as `fire` makes it: a
        press drawn ahead is drawn again after it."""
        self._undraw()
        return self._cards()

    def _cards(self):
        weights = self.burst_weights
        r = self.rng.below(sum(weights))
        i = 0
        for w in weights:
            if r < w:
                return i + 1
            r -= w
            i += 1
        return len(weights)  # not reached: r < sum(weights)

    def ahead(self):
        """The outcome the next press() will have, drawn now (the loop draws it before the
        press, so that the press's timer IRQ, which may not allocate, knows whether it
        starts the motor: issue 32). The same draws, in the same order, as press() alone:
        a `fire` or a new configuration in between puts the draw back (_undraw)."""
        if self._ahead < 0:
            self._was = self.rng._s
            if self.blanks >= self.max_blanks or self.rng.below(100) < self.fire_chance_pct:
                self._ahead = self._cards()
            else:
                self._ahead = 0
        return self._ahead

    def press(self):
        """The outcome of one press in the random mode: 0 for a blank, else cards."""
        n = self.ahead()
        self._ahead = -1
        if n:
            self.blanks = 0
        else:
            self.blanks += 1
        return n
