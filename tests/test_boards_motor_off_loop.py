"""Motor decisions off the loop (issue 32, item 3), measured on the rp2040 board (the judge)
in the emulated chip's own time: the model timestamps a card leaving the beam, the button's
contact closing and every change of the H-bridge's inputs with the chip's clock (``t_us`` on
the hardware reports), so "last card -> brake" and "press -> motor" are chip time whatever
the machine running the emulator does meanwhile.

Before: the loop read the beam's edges and ran a 2 ms filter on them (a card counted once
the beam had been clear for ``sensor_min_ms``), then braked in the iteration that saw the
count: 2.55-2.9 ms from the last card with the loop idle, and a garbage collection (about
12 ms on rp2) or a long reply on the way made it later.

Here the host floods the launcher with ``config_get`` (a long write each) and ``status perf``
(a garbage collection each, about 12 ms of chip time) while the burst runs: the loop is busy
or collecting most of the time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from board_harness import Link, board_link

pytestmark = [pytest.mark.timeout(900), pytest.mark.rp2040]

BRAKE_MS = 1.0  # issue 32: the last counted card brakes the motor within 1 ms
DEBOUNCE_MS = 20  # config default debounce_ms
# Issue 32: press -> motor <= debounce + 1 ms. From the loop it was 21-24.1 ms here under the
# flood (the debounce ended in the iteration that looked, up to a `config_get` reply later);
# from the debounce timer's IRQ, 20.34-20.36 ms.
PRESS_SLACK_MS = 1.0
CARDS = 20  # a burst of 20 cards: about 1.7 s of chip time, long enough for collections


def burst_under_flood(fw: Link, cards: int, rid: int) -> tuple[list[dict[str, Any]], int]:
    """One armed burst of ``cards`` started by a press, the host sending ``config_get`` and
    ``status perf`` all the while (a request as soon as the last is answered); the hardware
    reports it made."""
    seen = len(fw.hw_events())
    heard = len(fw.events)
    fw.request("arm", timeout=60, player="Ann", presses=1, mode="exact", cards=cards)
    fw.control("press")
    sent = 0
    while not any(e["event"] == "eject" for e in fw.events[heard:]):
        # every other request a `status perf`, which collects the garbage first (about 12 ms
        # of chip time each): the loop spends much of the burst inside collections
        req = {"id": rid + sent, "cmd": "config_get"}
        if sent % 2:
            req = {"id": rid + sent, "cmd": "status", "perf": True}
        fw.send_raw((json.dumps(req) + "\n").encode())
        fw.reply_to(rid + sent, timeout=60)
        sent += 1
        assert sent < 2000, "no eject"
    eject = fw.wait_event("eject", timeout=60)
    assert eject["cards"] == cards, eject
    fw.drain(0.5)
    return fw.hw_events()[seen:], sent


def test_the_last_card_brakes_the_motor_from_the_beams_irq_on_rp2040() -> None:
    """Three bursts of CARDS cards, each under a flood of requests: the brake within 1 ms of
    chip time of the card that left last before it (it failed before: 2.6-4.1 ms), the motor
    on within debounce + PRESS_SLACK_MS of the contact closing, and every card counted (the
    magazine agrees)."""
    with board_link("rp2040", cards=112) as fw:
        fw.hello(timeout=60)
        fw.drain()
        brakes, starts, floods = [], [], []
        for k in range(3):
            hw, sent = burst_under_flood(fw, CARDS, 500000 + 10000 * k)
            floods.append(sent)
            cards = [e["t_us"] for e in hw if e["hw"] == "card"]
            brake = [e["t_us"] for e in hw if e["hw"] == "motor" and e.get("brake")]
            down = [e["t_us"] for e in hw if e["hw"] == "button" and e["down"]]
            run = [e["t_us"] for e in hw if e["hw"] == "motor" and e["dir"] == 1]
            assert len(cards) == CARDS and brake and down and run, hw
            before = [t for t in cards if t <= brake[0]]
            assert len(before) == CARDS, (cards, brake)  # the brake came after the last card
            brakes.append((brake[0] - before[-1]) / 1000)
            starts.append((run[0] - down[0]) / 1000)
        assert fw.sim.cards == 112 - 3 * CARDS
        # a collection per `status perf` answered inside a burst: every other request
        gcs = sum(n // 2 for n in floods)
        assert gcs >= 3 * 10, floods
    figures = (
        f"last card -> brake {brakes} ms, press -> motor {starts} ms "
        f"({floods} requests, {gcs} collections in the bursts)"
    )
    print(figures)
    assert all(ms <= BRAKE_MS for ms in brakes), figures
    assert all(ms <= DEBOUNCE_MS + PRESS_SLACK_MS for ms in starts), figures
