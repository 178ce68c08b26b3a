# The optional IR break-beam card sensor at the launcher's mouth. A card blocks the beam
# while it leaves; the edge where the beam clears again means one card is out. The edge is
# counted in a pin interrupt (the handler only increments a counter), so a slow loop
# iteration cannot lose a card.


class Sensor:
    """Counts cards passing the beam. `pin` is a machine.Pin configured as an input."""

    def __init__(self, pin, blocked_value=0, rising=1, falling=2):
        # rising/falling: the Pin.IRQ_RISING / Pin.IRQ_FALLING constants (board.py passes
        # them so this module never imports machine).
        self.pin = pin
        self.blocked_value = blocked_value
        self.count = 0  # cards seen since boot; only the IRQ handler writes it
        # the beam clears on a rising edge when "blocked" reads 0, else on a falling edge
        trigger = rising if blocked_value == 0 else falling
        pin.irq(handler=self._edge, trigger=trigger)

    def _edge(self, pin):
        self.count += 1

    def blocked(self):
        """True while something is in the beam (a card, or a stuck card: a jam)."""
        return self.pin.value() == self.blocked_value
