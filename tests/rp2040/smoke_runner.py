#!/usr/bin/env python3
"""End-to-end smoke test of runner.js (stdlib only; not a pytest module).

    python3 smoke_runner.py --rp2040js DIR --rp2-dir DIR [--keep]

Builds a 2 MiB flash image (erased, MicroPython from the .uf2, filesystem region left erased),
spawns ``node runner.js`` with the command pipe on fd 3 and the event pipe on fd 4, grants
emulated time in lockstep and prints PASS/FAIL with a measured figure for each check.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import queue
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLASH_SIZE = 2 * 1024 * 1024
UF2_FAMILY_RP2040 = 0xE48BFF56
PROMPT = b"\r\n>>> "


def build_flash(uf2: Path, out: Path) -> None:
    """Erased flash + the uf2 payload; the littlefs region (0xA0000..) stays erased."""
    image = bytearray(b"\xff" * FLASH_SIZE)
    data = uf2.read_bytes()
    for off in range(0, len(data) - 511, 512):
        m0, m1, flags, addr, size = struct.unpack_from("<IIIII", data, off)
        family = struct.unpack_from("<I", data, off + 28)[0]
        if m0 != 0x0A324655 or m1 != 0x9E5D5157 or flags & 1:
            continue
        if flags & 0x2000 and family != UF2_FAMILY_RP2040:
            continue
        image[addr - 0x10000000 : addr - 0x10000000 + size] = data[off + 32 : off + 32 + size]
    out.write_bytes(image)


class Runner:
    """One runner process plus a lockstep driver."""

    def __init__(self, rp2040js: str, rp2_dir: Path, flash: Path):
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()

        def child_fds() -> None:  # put the pipe ends on fd 3 / fd 4 in the child
            a, b = os.dup(cmd_r), os.dup(ev_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [
                "node",
                str(Path(os.environ.get("RUNNER_JS", HERE / "runner.js"))),
                "--rp2040js",
                rp2040js,
                "--bootrom",
                str(rp2_dir / "rp2040-bootrom-b1.bin"),
                "--flash",
                str(flash),
            ],
            pass_fds=(3, 4),
            preexec_fn=child_fds,
            stdin=subprocess.DEVNULL,
            stderr=open(os.environ.get("SMOKE_STDERR", os.devnull), "a"),
        )
        os.close(cmd_r)
        os.close(ev_w)
        self.events: queue.Queue = queue.Queue()
        threading.Thread(target=self._reader, daemon=True).start()
        self.t = 0  # emulated µs of the last sync/out
        self.outstanding = False
        self.usb = bytearray()
        self.outs: list[dict] = []
        self.resets: list[dict] = []
        self.log: list[dict] = []  # connected/disconnected/uart
        self.uart = bytearray()
        self.auto_cr = True
        self.step_us = 50_000
        self.grants = 0
        self.conn_pos = 0
        self.started = time.monotonic()
        ev = self.events.get(timeout=10)
        assert ev.get("ev") == "ready", ev

    def _reader(self) -> None:
        with os.fdopen(self.ev_r, "rb") as f:
            for line in f:
                self.events.put(json.loads(line))
        self.events.put({"ev": "eof"})

    def send(self, **msg) -> None:
        os.write(self.cmd_w, (json.dumps(msg) + "\n").encode())

    def write(self, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        self.send(op="usb", data=base64.b64encode(data).decode())

    def _handle(self, ev: dict) -> None:
        kind = ev["ev"]
        if kind in ("sync", "out"):
            self.t = ev["t"]
            self.outstanding = False
            if kind == "out":
                self.outs.append(ev)
        elif kind == "usb":
            self.usb += base64.b64decode(ev["data"])
        elif kind == "uart":
            self.uart += base64.b64decode(ev["data"])
        elif kind == "reset":
            self.resets.append(ev)
        elif kind == "connected":
            self.log.append(ev)
            self.conn_pos = len(self.usb)
            if self.auto_cr:
                self.write("\r")
        elif kind == "disconnected":
            self.log.append(ev)
        elif kind == "eof":
            raise RuntimeError("runner exited")

    def run_until(self, cond, timeout: float = 10.0) -> bool:
        """Grant time in steps of self.step_us until cond() holds (or the wall timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            if cond():
                return True
            if time.monotonic() > deadline:
                return False
            if not self.outstanding:
                self.send(op="run", until=self.t + self.step_us)
                self.outstanding = True
                self.grants += 1
            try:
                self._handle(self.events.get(timeout=0.05))
            except queue.Empty:
                pass

    def wait_stop(self, timeout: float = 5.0) -> dict | None:
        """Process events until the next sync/out; return it (None on timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ev = self.events.get(timeout=0.05)
            except queue.Empty:
                continue
            self._handle(ev)
            if ev["ev"] in ("sync", "out"):
                return ev
        return None

    def idle(self, seconds: float) -> None:
        self.run_until(lambda: False, seconds)

    def exec(self, line: str, timeout: float = 10.0) -> str | None:
        """Type a line at the REPL, return its output (None on timeout)."""
        start = len(self.usb)
        self.write(line + "\r")
        ok = self.run_until(lambda: self.usb.find(PROMPT, start) >= 0, timeout)
        if not ok:
            return None
        out = bytes(self.usb[start : self.usb.find(PROMPT, start)]).decode(errors="replace")
        return out.split("\r\n", 1)[1] if "\r\n" in out else ""

    def wait_boot(self, n_log: int, timeout: float = 15.0) -> bool:
        """Wait for a 'connected' event past self.log[n_log:] and a prompt after it."""

        def booted() -> bool:
            if not any(e["ev"] == "connected" for e in self.log[n_log:]):
                return False
            return self.usb.find(PROMPT, self.conn_pos) >= 0

        return self.run_until(booted, timeout) and self.settle()

    def settle(self, timeout: float = 10.0) -> bool:
        """After a boot: wait until the REPL answers a marker, so later exec() calls are not
        confused by prompts still in flight (banner prompt, the prompt for the '\r' we sent)."""
        start = len(self.usb)
        self.write("print('SYNC', 6*7)\r")
        return self.run_until(lambda: self.usb.find(b"SYNC 42" + PROMPT, start) >= 0, timeout)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self, kill: bool = False) -> None:
        if kill:
            self.proc.send_signal(signal.SIGKILL)
        else:
            try:
                self.send(op="quit")
            except OSError:
                pass
        self.proc.wait(10)
        os.close(self.cmd_w)


RESULTS: list[bool] = []


def check(name: str, ok: bool, figure: str) -> None:
    RESULTS.append(bool(ok))
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {figure}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rp2040js", required=True)
    ap.add_argument("--rp2-dir", required=True, type=Path)
    ap.add_argument("--keep", action="store_true", help="keep the temporary flash image")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rp2smoke-"))
    flash = tmp / "flash.bin"
    build_flash(a.rp2_dir / "micropython-v1.28.0-RPI_PICO.uf2", flash)

    # 1. boot to the prompt
    t0 = time.monotonic()
    r = Runner(a.rp2040js, a.rp2_dir, flash)
    ok = r.run_until(lambda: PROMPT in r.usb, 20)
    boot_wall = time.monotonic() - t0
    r.run_until(lambda: not r.outstanding, 2)  # the grant in which the prompt came
    boot_emu = r.t / 1000
    ok = ok and r.settle()
    check(
        "1 boot to >>>",
        ok,
        f"{boot_wall:.2f} s wall (process start to prompt), within the first {boot_emu:.0f} ms emulated",
    )

    # 2. print(1+1) round trips, with 50 ms grants and with 1 ms grants
    figs, ok = [], True
    for step in (50_000, 1_000):
        r.step_us = step
        best = []
        for _ in range(3):
            t1 = time.monotonic()
            out = r.exec("print(1+1)")
            best.append((time.monotonic() - t1) * 1000)
            ok = ok and out is not None and out.strip() == "2"
        figs.append(f"{step // 1000} ms grants: {min(best):.1f}-{max(best):.1f} ms")
    r.step_us = 50_000
    check("2 print(1+1) round trip", ok, "; ".join(figs))

    # 3. filesystem, machine.reset(), file persists, reset_cause
    first = r.exec("import os; print(os.listdir('/'))")
    wrote = r.exec("f=open('t.txt','w'); print(f.write('hi')); f.close()")
    n_conn = len(r.log)
    r.write("import machine; machine.reset()\r")
    rebooted = r.wait_boot(n_conn)
    after = r.exec("import machine; print(open('t.txt').read(), machine.reset_cause())")
    cause = r.resets[-1]["cause"] if r.resets else None
    evs = [e["ev"] for e in r.log[n_conn:]]
    check(
        "3 littlefs + machine.reset()",
        first is not None
        and first.strip() == "[]"
        and wrote is not None
        and wrote.strip() == "2"
        and rebooted
        and cause == "reset"
        and after is not None
        and after.strip() == "hi 3",
        f"fresh listdir={first.strip() if first else first}, write->{wrote.strip() if wrote else wrote}, "
        f"reset cause={cause} at t={r.resets[-1]['t'] if r.resets else '-'} us, usb {evs}, "
        f"after reboot: {after.strip() if after else after!r}",
    )

    # 4. WDT not fed
    n, n_log = len(r.resets), len(r.log)
    t_set = r.t
    r.write("from machine import WDT; w=WDT(timeout=500)\r")
    ok = r.wait_boot(n_log)
    after = r.exec("import machine; print(machine.reset_cause())")
    ev = r.resets[-1] if len(r.resets) > n else {}
    check(
        "4 WDT(timeout=500) not fed",
        ok and ev.get("cause") == "wdt" and (after or "").strip() == "3",
        f"cause={ev.get('cause')} {(ev.get('t', 0) - t_set) / 1000:.0f} ms after the command was sent, "
        f"reset_cause()={(after or '').strip()}",
    )

    # 5. a 3000-byte line
    line = "x='" + "a" * 2984 + "'; print(len(x))"
    t1 = time.monotonic()
    out = r.exec(line, 20)
    check(
        "5 3000-byte line",
        out is not None and out.strip().endswith("2984"),
        f"{len(line)} bytes sent, printed {out.strip()[-4:] if out else out!r}, {time.monotonic() - t1:.2f} s wall",
    )

    # 6. GPIO inputs
    v = [r.exec("from machine import Pin; p=Pin(15,Pin.IN,Pin.PULL_UP); print(p.value())")]
    r.send(op="in", pins={"15": 0})
    v.append(r.exec("print(p.value())"))
    r.send(op="in", pins={"15": None})
    v.append(r.exec("print(p.value())"))
    v.append(r.exec("q=Pin(14,Pin.IN,Pin.PULL_DOWN); print(q.value())"))
    r.send(op="in", pins={"14": 1})
    v.append(r.exec("print(q.value())"))
    r.send(op="in", pins={"14": None})
    v.append(r.exec("p.init(Pin.IN, Pin.PULL_DOWN); print(p.value(), q.value())"))
    r.exec("p.init(Pin.IN, Pin.PULL_UP); k=[]; p.irq(lambda x: k.append(1), Pin.IRQ_FALLING)")
    for level in (0, 1, 0, 1):
        r.send(op="in", pins={"15": level})
        r.idle(0.05)
    v.append(r.exec("print(len(k))"))
    got = [x.strip() if x else x for x in v]
    check(
        "6 GPIO levels",
        got == ["1", "0", "1", "0", "1", "0 0", "2"],
        f"GP15 pull-up {got[0]}, driven 0 -> {got[1]}, released -> {got[2]}; GP14 pull-down {got[3]}, "
        f"driven 1 -> {got[4]}; GP15 re-pulled down + GP14 released -> {got[5]}; "
        f"IRQ_FALLING callbacks for 0,1,0,1: {got[6]}",
    )

    # 7. PWM out events, then deinit keeps the last level
    n = len(r.outs)
    r.exec("from machine import PWM,Pin; m=PWM(Pin(16),freq=20000,duty_u16=32768)")
    pwm_evs = [e for e in r.outs[n:] if "16" in e["pins"]]
    last = pwm_evs[-1]["pins"]["16"] if pwm_evs else {}
    ok = bool(last) and abs(last["duty"] - 0.5) < 0.01 and abs(last["freq"] - 20000) < 50
    n = len(r.outs)
    r.exec("m.deinit()")
    de = [e["pins"]["16"] for e in r.outs[n:] if "16" in e["pins"]]
    n = len(r.outs)
    r.exec("led=Pin(25,Pin.OUT); led.value(1)")
    led = [e["pins"].get("25") for e in r.outs[n:] if "25" in e["pins"]]
    check(
        "7 PWM / out events",
        ok and bool(de) and de[-1]["duty"] in (0.0, 1.0) and led and led[-1]["duty"] == 1.0,
        f"{len(pwm_evs)} out event(s) for GP16, last {last} at t={pwm_evs[-1]['t'] if pwm_evs else '-'}; "
        f"after deinit {de}; LED GP25 {led}",
    )

    # 8. stall / unstall
    r.send(op="stall")
    mark = len(r.usb)
    r.write(
        "import time; t=time.ticks_ms(); [print('x'*100) for i in range(20)]; "
        "print('ms', time.ticks_diff(time.ticks_ms(), t))\r"
    )
    r.idle(3.0)
    during = len(r.usb) - mark
    r.send(op="unstall")
    ok = r.run_until(lambda: re.search(rb"ms (\d+)\r\n>>> ", bytes(r.usb[mark:])) is not None, 20)
    m = re.search(rb"ms (\d+)", bytes(r.usb[mark:]))
    xs = bytes(r.usb[mark:]).count(b"x" * 100)
    check(
        "8 stall/unstall",
        ok and during == 0 and m is not None and int(m.group(1)) >= 500,
        f"{during} bytes arrived while stalled 3 s; after unstall {len(r.usb) - mark} bytes, "
        f"{xs}/20 lines whole, MicroPython measured {m.group(1).decode() if m else '?'} ms for the prints",
    )
    r.exec("")  # resync with the prompt

    # 9. idle CPU and time.sleep(1)
    c0, w0, e0 = r.cpu_seconds(), time.monotonic(), r.t
    r.idle(3.0)
    cpu = r.cpu_seconds() - c0
    emu = (r.t - e0) / 1e6
    wall = time.monotonic() - w0
    t1 = time.monotonic()
    out = r.exec(
        "import time; t=time.ticks_ms(); time.sleep(1); print(time.ticks_diff(time.ticks_ms(), t))"
    )
    sl = time.monotonic() - t1
    check(
        "9 idle CPU + time.sleep(1)",
        cpu < 0.5 and 0.9 < sl < 1.4 and out is not None,
        f"idle {wall:.2f} s wall / {emu:.2f} s emulated used {cpu:.2f} s CPU; sleep(1) took {sl:.2f} s wall, "
        f"ticks {out.strip() if out else out}",
    )

    # 10. unplug / plug and the reset op
    n_log = len(r.log)
    r.send(op="unplug")
    r.idle(0.5)
    t_unplugged = r.t
    r.send(op="plug")
    ok1 = r.wait_boot(n_log)
    ev1 = [e["ev"] for e in r.log[n_log:]]
    n_log = len(r.log)
    r.send(op="reset")
    ok2 = r.wait_boot(n_log)
    ev2 = [e["ev"] for e in r.log[n_log:]]
    after = r.exec("import os, machine; print(os.listdir('/'), machine.reset_cause())")
    check(
        "10 unplug/plug + reset op",
        ok1
        and ok2
        and ev1 == ["disconnected", "connected"]
        and ev2 == ["disconnected", "connected"]
        and after is not None
        and "t.txt" in after
        and after.strip().endswith("1"),
        f"unplug/plug {ev1} (time went on: t={t_unplugged / 1e6:.2f} s while unplugged), reset {ev2}, "
        f"then {after.strip() if after else after!r}",
    )

    # 11. UART TX returns and is reported
    n = len(r.uart)
    out = r.exec("import machine; u=machine.UART(0,115200); print(u.write(b'hello'))")
    r.idle(0.1)
    check(
        "11 UART0 write",
        out is not None and out.strip() == "5" and bytes(r.uart[n:]) == b"hello",
        f"write returned {out.strip() if out else out!r}, uart event bytes {bytes(r.uart[n:])!r}",
    )

    # 12. lockstep details: halt, a grant in the past, a replaced grant
    r.run_until(lambda: not r.outstanding, 5)
    t0 = r.t
    r.send(op="run", until=t0 + 10_000_000)
    time.sleep(0.3)
    r.send(op="halt")
    h1 = r.wait_stop()
    r.send(op="halt")
    h2 = r.wait_stop()
    r.send(op="run", until=h2["t"] - 5000)
    past = r.wait_stop()
    r.send(op="run", until=past["t"] + 1_000_000)
    time.sleep(0.05)
    r.send(op="run", until=past["t"] + 150_000)
    w1 = time.monotonic()
    rep = r.wait_stop()
    w_rep = time.monotonic() - w1
    time.sleep(0.3)
    extra = r.events.qsize()
    ok = (
        h1
        and h1["ev"] == "sync"
        and 200_000 < h1["t"] - t0 < 400_000
        and h2["t"] == h1["t"]
        and past["t"] == h1["t"]
        and rep
        and rep["t"] == past["t"] + 150_000
        and extra == 0
    )
    check(
        "12 halt / grant in the past / replaced grant",
        ok,
        f"halt 0.3 s into a 10 s grant -> sync +{(h1['t'] - t0) / 1000:.1f} ms; halt again -> same t "
        f"{h2['t'] == h1['t']}; run into the past -> sync at t={past['t']}; 1 s grant replaced by "
        f"+150 ms -> sync t=+{(rep['t'] - past['t']) / 1000:.0f} ms after {w_rep:.2f} s wall, "
        f"{extra} stray events",
    )
    r.outstanding = False

    # 13. Ctrl-D soft reboot and a raw-paste of 3 KB (what mpremote does)
    m = len(r.usb)
    r.write("\x04")
    soft = r.run_until(
        lambda: r.usb.find(b"soft reboot", m) >= 0 and r.usb.find(PROMPT, m) >= 0, 10
    )
    m = len(r.usb)
    r.write("\x01")
    r.run_until(lambda: r.usb.find(b"raw REPL; CTRL-B to exit\r\n>", m) >= 0, 5)
    m = len(r.usb)
    r.write("\x05A\x01")
    r.run_until(lambda: len(r.usb) >= m + 5, 5)
    hdr = bytes(r.usb[m : m + 5])
    code = ("x = '" + "q" * 800 + "'\nprint(len(x))\n") * 5  # 4 KB of literal source
    m = len(r.usb)
    r.write(code.encode() + b"\x04")
    raw = r.run_until(lambda: r.usb.find(b"\x04>", m) >= 0, 10)
    got = bytes(r.usb[m:])
    r.write("\x02")
    r.settle()
    check(
        "13 soft reboot + raw paste",
        soft and hdr[:2] == b"R\x01" and raw and got.count(b"800\r\n") == 5,
        f"soft reboot {'ok' if soft else 'missing'}; raw-paste header {hdr!r}, {len(code)} bytes of code "
        f"-> {got.count(b'800')} results",
    )

    # 14. SIGKILL, new runner on the same flash file: the file is still there
    grants = r.grants
    r.close(kill=True)
    r = Runner(a.rp2040js, a.rp2_dir, flash)
    r.wait_boot(0, 20)
    out = r.exec("import os; print(os.listdir('/'), open('t.txt').read())")
    check(
        "14 flash persists across runner restart (SIGKILL)",
        out is not None and "'t.txt'" in out and "hi" in out,
        f"{out.strip() if out else out!r} ({grants} grants issued by the first runner)",
    )

    # 15. the parent goes away: EOF on fd 3 ends the runner
    os.close(r.cmd_w)
    t1 = time.monotonic()
    try:
        code = r.proc.wait(5)
    except subprocess.TimeoutExpired:
        code = None
        r.proc.kill()
    check("15 EOF on fd 3", code == 0, f"exit code {code} after {time.monotonic() - t1:.2f} s")

    if not a.keep:
        flash.unlink()
        tmp.rmdir()
    print(f"{sum(RESULTS)}/{len(RESULTS)} checks passed")
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
