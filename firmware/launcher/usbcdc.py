# The rp2 port's USB serial at USB speed (issue 32; docs/architecture.md, "USB at its speed"):
# how much room MicroPython v1.28's CDC TX FIFO has, and how many bytes its stdin ring holds,
# read from their own indices. Imported by board.py on the rp2 port only, which hands in
# machine.mem32/mem16 (this module imports no machine). Nothing here is trusted before it is
# checked against what the port does; anything unexpected and the port is used as before
# issue 32 (a byte per select.poll).
import uctypes

# The rp2 port's USB CDC TX FIFO (TinyUSB CFG_TUD_CDC_TX_BUFSIZE at full speed,
# shared/tinyusb/tusb_config.h) and where its tu_fifo_t may be: the static data below the heap
TX_DEPTH = 256
TX_PROBATION = 16
_RAM = 0x20000000
_RAM_SCAN = 32 * 1024


class UsbTxFifo:
    """How many bytes the rp2 port's USB CDC TX FIFO surely takes now (docs/architecture.md,
    "USB at its speed"). MicroPython v1.28 keeps the CDC port in TinyUSB's cdcd_interface_t
    (lib/tinyusb src/class/cdc/cdc_device.c): rx_ff and tx_ff, two tu_fifo_t (buffer pointer,
    depth, item size, wr_idx, rd_idx: 12 bytes, 20 with the RP2040's multi-core mutexes)
    followed by their 256-byte buffers. Found once by that shape in the static RAM (each
    FIFO's buffer right behind the two structs, depth 256, one-byte items), and checked on
    every write (the write index moved by what was written): anything else - another build,
    another port - and free() is 0 for good, and the Outbox falls back on POLLOUT's one byte.
    Free space is depth - (wr_idx - rd_idx) (tusb_fifo.c, _ff_count/_ff_remaining), read
    as one 32-bit word; only the loop writes, so it only grows until the loop's next write."""

    def __init__(self, mem32, mem16, ram):
        self._m32 = mem32
        self.at = 0  # address of tx_ff.wr_idx (wr | rd << 16); 0: not found or given up
        self.checks = TX_PROBATION  # writes still to check (wrote)
        mem = mem32
        i = ram.find(b"\x00\x01\x01\x00")  # rx_ff: depth 256, item size 1, not overwritable
        while i >= 4:
            fifo = _RAM + i - 4
            if not fifo & 3:
                for size in (12, 20):  # sizeof(tu_fifo_t) without / with the mutexes
                    buf = fifo + 2 * size
                    if (
                        mem[fifo] == buf
                        and mem[fifo + size] == buf + TX_DEPTH
                        and mem16[fifo + size + 4] == TX_DEPTH
                    ):
                        self.at = fifo + size + 8
                        return
            i = ram.find(b"\x00\x01\x01\x00", i + 1)

    def free(self):
        """Bytes a write surely takes now (0: unknown or full)."""
        at = self.at
        if not at:
            return 0
        w = self._m32[at]
        wr = w & 0xFFFF
        rd = w >> 16
        count = wr - rd if wr >= rd else 2 * TX_DEPTH - (rd - wr)
        return TX_DEPTH - count if count < TX_DEPTH else 0

    def index(self):
        """The write index and the read index (wr | rd << 16), for wrote()."""
        return self._m32[self.at]

    def wrote(self, before, n):
        """The write of `n` bytes sized by free() moved the write index by `n`, or the FIFO
        is not what it seemed: given up. Checked for the first TX_PROBATION writes, then
        trusted (a check is 0.1 ms of rp2 chip time)."""
        self.checks -= 1
        if self.at and ((self._m32[self.at] & 0xFFFF) - (before & 0xFFFF)) % (2 * TX_DEPTH) != n % (
            2 * TX_DEPTH
        ):
            self.at = 0


# MicroPython's stdin ring on the rp2 port (ports/rp2/mphalport.c: stdin_ringbuf, a ringbuf_t
# of MICROPY_HW_STDIN_BUFFER_LEN 512 bytes, py/ringbuf.h: buf pointer, size, iget, iput):
# the USB task moves the host's bytes there (tud_cdc_rx_cb, shared/tinyusb/mp_usbd_cdc.c)
RX_SIZE = 512
RX_PROBATION = 24  # bytes read one at a time while the candidates are checked


class UsbRxRing:
    """How many bytes MicroPython's stdin ring holds now, so that the loop reads them in one
    call (sys.stdin.buffer.read(n) waits for all n; a byte per select.poll cost about 75 us of
    rp2 chip time a byte, 2 ms for a `status` request). The ring is found by its shape in the
    static RAM (a pointer into RAM, then size 512 and two indices below it), and a candidate
    is only trusted after RX_PROBATION bytes read one at a time moved its read index by one
    each (a wrong guess would make a read wait for bytes that never come): until then, and
    for good if none or several pass, the loop reads a byte per poll as before."""

    def __init__(self, mem32, mem16, ram):
        self._m16 = mem16
        self.at = 0  # address of iget (a uint16, iput right after it), once trusted
        self.maybe: list = []  # candidates' iget addresses on probation
        self.tried = 0
        mem = mem16
        i = ram.find(b"\x00\x02")  # size 512, little-endian
        while i >= 0 and len(self.maybe) < 16:
            if i % 4 == 0 and i >= 4:
                at = _RAM + i + 2
                ptr = mem32[_RAM + i - 4]
                if _RAM <= ptr < _RAM + 0x42000 and mem[at] < RX_SIZE and mem[at + 2] < RX_SIZE:
                    self.maybe.append(at)
            i = ram.find(b"\x00\x02", i + 1)

    def waiting(self):
        """Bytes in the ring (0: none, or the ring is not known)."""
        at = self.at
        if not at:
            return 0
        mem = self._m16
        got = mem[at]  # only the loop's reads move it; then iput, which only the USB moves
        return (mem[at + 2] - got) % RX_SIZE

    def before(self):
        """The candidates' read indices before a one-byte read (see after)."""
        mem = self._m16
        return [mem[at] for at in self.maybe]

    def after(self, before):
        """A one-byte read is done: keep the candidates whose read index moved by one."""
        mem = self._m16
        maybe = self.maybe
        self.maybe = [
            maybe[i] for i in range(len(maybe)) if mem[maybe[i]] == (before[i] + 1) % RX_SIZE
        ]
        self.tried += 1
        if self.tried >= RX_PROBATION or not self.maybe:
            if len(self.maybe) == 1:
                self.at = self.maybe[0]
            self.maybe = []


def find(mem32, mem16):
    """(UsbTxFifo, UsbRxRing) of this port, each with `at` 0 where it was not found."""
    try:
        ram = bytes(uctypes.bytearray_at(_RAM, _RAM_SCAN))
    except Exception:
        ram = b""
    return UsbTxFifo(mem32, mem16, ram), UsbRxRing(mem32, mem16, ram)
