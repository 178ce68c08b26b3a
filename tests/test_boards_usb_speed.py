"""The launcher at USB speed (issue 32), measured on the rp2040 board (the judge) in the
emulated chip's own time: the runner timestamps every newline that crosses USB, the host's
as the device takes it and the device's as the host takes it (``usb_line_times``), so a
round trip is chip time from the request's newline to its reply's, whatever the machine
running the emulator does meanwhile.

Before issue 32 the firmware wrote one byte per ``select.poll`` (POLLOUT promises one free
byte of the TX FIFO) at about 80 µs of chip time a byte, and encoded a reply a few fields
per loop iteration: a `status` round trip took 60-66 ms, `config_get` 147 ms, and a 2 KB
backlog after `unstall` went out at 5.4 KB/s.
"""

from __future__ import annotations

import json
import statistics
from typing import Any

import pytest
from board_harness import Link, board_link

pytestmark = [pytest.mark.timeout(600), pytest.mark.rp2040]

# Issue 32 asks `status` <= 3 ms and `config_get` <= 10 ms. Measured (scratch runs of this
# test's 40, 30 rounds, 1200 round trips): `status` 2.64 ms median, 2.85 ms at the 90th
# percentile, and each round's longest but the collections' 2.79-3.00 ms; `config_get`
# 5.0-5.3 ms at most. Before the last changes (the loop answers what woke it before it looks
# at the inputs; bytes parsed as they came; the newline written after the body, not joined
# to it; the status dict made whole at once): 3.31 ms median. So the median is held at the
# issue's 3 ms, and each round trip at STATUS_TAIL_MS: how long a round trip takes beyond
# the median also depends on where in the emulated USB's schedule the request lands, 0.2-0.35
# ms here, which a bound with no room above the longest seen would make a flaky test.
STATUS_MS = 3.0
STATUS_TAIL_MS = 3.3
CONFIG_GET_MS = 10.0
BACKLOG_KBPS = 50.0  # while the host reads: a 2 KB backlog after `unstall` in <= 40 ms


def round_trips_ms(fw: Link, cmd: str, n: int, **args: Any) -> list[float]:
    """``n`` requests ``cmd`` one after the other, each sent once the last is answered;
    each one's round trip in chip milliseconds (its newline in, its reply's newline out)."""
    times = []
    for _ in range(n):
        fw.sim.usb_line_times()  # type: ignore[attr-defined]
        assert fw.request(cmd, timeout=60, **args)["ok"]
        nl_in, nl_out = fw.sim.usb_line_times()  # type: ignore[attr-defined]
        assert len(nl_in) == 1 and len(nl_out) == 1, (nl_in, nl_out)  # one line each way
        times.append((nl_out[0] - nl_in[0]) / 1000)
    return times


def test_requests_are_answered_in_a_few_ms_of_chip_time_on_rp2040() -> None:
    """`status` 40 times in a row, the median round trip <= STATUS_MS of chip time and each
    <= STATUS_TAIL_MS; `config_get` (the longest reply, about 900 bytes) <= 10 ms; `hello`
    and `seed` answered too. A garbage collection (about 12 ms, made when the loop is idle)
    may delay the one request that arrives during it: as many round trips as there were
    collections are let off."""
    with board_link("rp2040") as fw:
        fw.hello(timeout=60)
        fw.drain()
        gcs = fw.request("status", timeout=60, perf=True)["perf"]["gcs"]
        status = round_trips_ms(fw, "status", 40)
        config_get = round_trips_ms(fw, "config_get", 5)
        hello = round_trips_ms(fw, "hello", 5, protocol=3)
        seed = round_trips_ms(fw, "seed", 5, seed=7)
        gcs = fw.request("status", timeout=60, perf=True)["perf"]["gcs"] - gcs
    figures = (
        f"status max {max(status):.2f} median {statistics.median(status):.2f} ms, config_get "
        f"max {max(config_get):.2f} ms, hello max {max(hello):.2f} ms, "
        f"seed max {max(seed):.2f} ms; {gcs} collections"
    )
    assert gcs <= 3, figures
    assert statistics.median(status) <= STATUS_MS, figures
    assert sorted(status)[-1 - gcs] <= STATUS_TAIL_MS, figures
    assert sorted(config_get)[-1 - gcs] <= CONFIG_GET_MS, figures
    assert min(status + config_get + hello + seed) > 0, figures  # the clock measured something


def test_a_backlog_goes_out_at_usb_speed_after_unstall_on_rp2040() -> None:
    """The host pauses while its requests' replies fill the launcher's queue (about 2 KB,
    the rest dropped and counted), then reads again: the backlog reaches it at 50 KB/s or
    more of chip time, every line whole and the first one after the gap saying `dropped`."""
    with board_link("rp2040") as fw:
        fw.hello(timeout=60)
        fw.drain()
        fw.sim.stall()
        for i in range(14):  # about 3 KB of replies: more than the queue holds
            fw.send_raw((json.dumps({"id": 900000 + i, "cmd": "status"}) + "\n").encode())
        fw.sim.sleep(0.5)  # the board takes the requests in while its host does not read
        seen = len(fw.lines)
        fw.sim.usb_line_times()  # type: ignore[attr-defined]
        fw.sim.unstall()
        fw.reply_to(900013, timeout=60)
        fw.drain()
        _, nl_out = fw.sim.usb_line_times()  # type: ignore[attr-defined]
        lines = fw.lines[seen:]
    replies = [json.loads(raw) for raw in lines]  # every line whole (json.loads raises)
    assert replies[-1]["id"] == 900013
    assert any("dropped" in r for r in replies), replies  # the queue overflowed: counted
    assert len(nl_out) == len(lines) >= 8, (len(nl_out), len(lines))
    sent = sum(len(raw) + 1 for raw in lines)
    took_ms = (nl_out[-1] - nl_out[0]) / 1000
    kbps = sent / 1024 / max(took_ms, 1e-3) * 1000
    assert kbps >= BACKLOG_KBPS, f"{sent} bytes in {took_ms:.1f} ms of chip time: {kbps:.1f} KB/s"
