# The firmware version reported by `hello`. The flasher overwrites this file on the board
# with the version it flashes (docs/architecture.md §4), so keep it to this one line.
VERSION = "0.1.0"
