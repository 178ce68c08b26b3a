# unolaunch launcher firmware package. Only board.py imports `machine`; every other module
# takes its pins, clock values and random source as arguments, so it runs unchanged on the
# Pico, under the MicroPython unix port and under CPython (the unit tests).
