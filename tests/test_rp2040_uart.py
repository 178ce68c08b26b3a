"""The emulated RP2040's UART keeps the chip's time (issue 26): bytes leave one frame apart
at the baud rate, a full TX FIFO and buffer make ``UART.write`` wait, and the host on the
wires gets every byte. All times are the chip's own (``time.ticks_us`` on the board), which
the emulator keeps exactly whatever the host machine's load: no wall-clock bound here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import serial
from rp2_plain import plain_board, run_script

# timeout_char: with the default (2 ms at 9600 baud) the rp2 port's write gives up while the
# TX interrupt waits for the FIFO to fall to its trigger level (28 bytes, 29 ms): it returns
# a short count, as on a Pico (see tests/test_uart_link.py for what that does to the firmware)
SCRIPT = """\
import machine, time
u = machine.UART(0, baudrate=9600, bits=8, parity=None, stop=1, txbuf=32, timeout_char=100)
t0 = time.ticks_us()
n = u.write(bytes(range(65, 65 + 50)) * 4)
t1 = time.ticks_us()
u.flush()
t2 = time.ticks_us()
print(n, time.ticks_diff(t1, t0), time.ticks_diff(t2, t0))
"""


@pytest.mark.rp2040
def test_uart_bytes_leave_at_the_baud_rate_and_a_full_buffer_makes_write_wait(
    tmp_path: Path,
) -> None:
    with plain_board(tmp_path / "flash", uart=0) as sim:
        host = serial.serial_for_url(sim.uart_port, timeout=0.1)
        try:
            n, write_us, flush_us = map(int, run_script(sim.port, SCRIPT).split())
            got = b""
            for _ in range(300):  # (a bound on reads, not on time)
                got += host.read(256)
                if len(got) >= 200:
                    break
        finally:
            host.close()
    frame_us = 10 * 1_000_000 / 9600  # start bit, 8 data bits, stop bit
    assert n == 200
    # the last byte's stop bit is out 200 frames after the first start bit
    assert 200 * frame_us <= flush_us <= 200 * frame_us + 2_000
    # write() returns once the last byte is in the 32-byte buffer: the 32-byte TX FIFO and
    # the shift register took 33 more, so 200 - 32 - 33 frames had to leave first
    assert (200 - 32 - 33) * frame_us - 2_000 <= write_us <= (200 - 32) * frame_us
    assert got == bytes(range(65, 65 + 50)) * 4
