# Output lines that never make the loop wait (docs/protocol.md, "Framing"). Pure logic: the
# port is two callables, so this runs under CPython too (tests/test_fw_backpressure.py).
#
# Why one byte at a time (MicroPython v1.28 rp2 port): a write to the USB serial port while a
# host holds it open (DTR set) takes what fits in the 256-byte TX FIFO, then waits up to
# MICROPY_HW_USB_CDC_TX_TIMEOUT (500 ms) for the host to make room and drops the rest
# (mp_usbd_cdc_tx_strn, shared/tinyusb/mp_usbd_cdc.c); and select.poll on sys.stdout reports
# POLLOUT as soon as ONE byte is free (mp_usbd_cdc_poll_interfaces: tud_cdc_write_available()
# > 0). Nothing else in the loop writes to the port, so the free space only grows between the
# poll and the write: `chunk` bytes after a POLLOUT never wait when the port promises that
# many, and on rp2 that is 1. With no host (DTR clear) POLLOUT is always set and the FIFO
# overwrites its oldest bytes: nothing waits either, as before.
#
# Why a line is never cut: the write's return value is what the port took, and a line that has
# started is finished (across loop iterations if need be) before the next one begins. So the
# host gets every line whole, perhaps late, or not at all - never a fragment to resync on.
#
# What cannot go now waits here, at most max_bytes of it (plus the line in flight). Past that
# the OLDEST waiting line is dropped, never the line in flight (the host may already have its
# start): the newest lines say where the launcher is now (the last eject, done, a fault) and
# a reply to a request sent after the host resumed is among them. The first line sent after a
# gap carries "dropped": N, the lines lost right before it, so the host knows to ask `status`.


class Outbox:
    """writable(): True if the port takes `chunk` bytes now without waiting (a POLLOUT);
    write(buf): writes the bytes of buf, returns how many the port took (0/None: none)."""

    def __init__(self, writable, write, chunk=1, max_bytes=2048):
        self._writable = writable
        self._write = write
        self._chunk = chunk
        self.max_bytes = max_bytes
        self._one = bytearray(1)  # the one-byte write, allocated once
        self._waiting: list = []  # lines (str, no newline) not yet started, oldest first
        self._waiting_len = 0
        self._cur = b""  # the line in flight, with its newline
        self._pos = 0  # bytes of it written
        self._gap = 0  # lines dropped right before the oldest waiting line
        self.dropped_total = 0

    def pending(self):
        """Bytes not written yet (0: everything is out)."""
        return len(self._cur) - self._pos + self._waiting_len + len(self._waiting)

    def put(self, text):
        """Queue one line (without its newline) and write what the port takes now."""
        waiting = self._waiting
        while waiting and self._waiting_len + len(text) > self.max_bytes:
            self._waiting_len -= len(waiting.pop(0))
            self._gap += 1
            self.dropped_total += 1
        waiting.append(text)
        self._waiting_len += len(text)
        return self.flush()

    def discard(self):
        """The port is gone (an OSError): forget what waits, counted as dropped."""
        n = len(self._waiting) + (1 if self._pos < len(self._cur) else 0)
        self._gap += n
        self.dropped_total += n
        self._waiting = []
        self._waiting_len = 0
        self._cur = b""
        self._pos = 0

    def _next(self):
        text = self._waiting.pop(0)
        self._waiting_len -= len(text)
        if self._gap and text.endswith("}"):
            sep = ", " if len(text) > 2 else ""
            text = text[:-1] + sep + '"dropped": %d}' % self._gap
            self._gap = 0
        self._cur = (text + "\n").encode()
        self._pos = 0

    def flush(self):
        """Write what the port takes now, never waiting; returns the bytes written."""
        n = 0
        chunk = self._chunk
        one = self._one
        while self._pos < len(self._cur) or self._waiting:
            if not self._writable():
                break
            if self._pos >= len(self._cur):
                self._next()
            cur = self._cur
            pos = self._pos
            if chunk == 1:
                one[0] = cur[pos]
                took = self._write(one)
            else:
                took = self._write(memoryview(cur)[pos : pos + chunk])
            if not took:
                break  # the port took nothing after all: the same byte goes next time
            self._pos = pos + took
            n += took
        return n
