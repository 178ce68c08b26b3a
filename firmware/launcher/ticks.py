# Tick arithmetic: MicroPython's time.ticks_* where they exist, the same arithmetic in pure
# Python elsewhere (CPython unit tests). Logic modules receive `now` values and only ever
# compare them with ticks_diff, so a wrapping tick counter is safe everywhere.
try:
    from time import ticks_add, ticks_diff  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # CPython
    _PERIOD = 1 << 30
    _HALF = 1 << 29

    def ticks_diff(ticks1: int, ticks2: int) -> int:  # type: ignore[misc,no-redef,unused-ignore]
        return ((ticks1 - ticks2 + _HALF) % _PERIOD) - _HALF

    def ticks_add(ticks: int, delta: int) -> int:  # type: ignore[misc,no-redef,unused-ignore]
        return (ticks + delta) % _PERIOD
