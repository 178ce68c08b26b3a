"""The whole firmware under MicroPython on the simulated board (fake machine + launcher
physics): presses, bursts, sensor, jam, empty magazine, limits, config on flash, safe mode,
watchdog and reset."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from fw_fakes import FIRMWARE  # noqa: F401  (puts firmware/ on sys.path)
from fw_harness import SIM_BOARD, Firmware, make_flash_dir, micropython_exe
from launcher.config import DEFAULTS
from launcher.pattern import Pattern, Rng
from unolaunch.sim.runner import fake_board_heap_bytes


def cards_reported(fw: Firmware) -> list[int]:
    return [h["left"] for h in fw.hw_events(0.05) if h["hw"] == "card"]


def motor_reports(fw: Firmware) -> list[dict[str, object]]:
    return [h for h in fw.hw_events(0.05) if h["hw"] == "motor"]


def hw_after_the_loop(fw: Firmware) -> list[dict[str, Any]]:
    """The hardware reports once the firmware's loop has provably dealt with everything sent
    so far: a ``status`` round trip (its reply comes after whatever the loop did before), then
    the local pipe drained. A negative check ("the motor did not run") made after this cannot
    pass just because the firmware had not got to it yet (issue 12: sleeps did that)."""
    fw.request("status")
    return fw.hw_events(0.05)


def wait_motor_stopped(fw: Firmware, timeout: float = 5.0) -> None:
    """Wait until the motor's last report is "off". A burst ends with a brake (both inputs
    high for brake_ms, reported as full duty) and only then coasts, so the events that end a
    burst can reach the host before the coast does: asserting on the last report at once
    raced the brake (a CI failure)."""
    deadline = time.monotonic() + timeout
    while True:
        motor = motor_reports(fw)
        if motor and motor[-1]["duty"] == 0.0:
            return
        assert time.monotonic() < deadline, f"the motor never stopped: {motor[-3:]}"


def wait_motor_on(fw: Firmware, timeout: float = 5.0) -> None:
    """Wait for a report of the motor running (instead of sleeping and hoping it does)."""
    deadline = time.monotonic() + timeout
    while not [h for h in fw.hw_events(0.05) if h["hw"] == "motor" and h["duty"] > 0]:
        assert time.monotonic() < deadline, "the motor never started"


def test_standalone_press_fires_and_the_sensor_counts_what_left() -> None:
    with Firmware(cards=50) as fw:
        boot = fw.wait_event("boot")
        assert boot["mode"] == "standalone" and boot["config_status"] == "defaults:missing"
        assert motor_reports(fw) == []  # nothing drove the motor at boot
        fw.request("seed", seed=2)
        total = 0
        for _ in range(4):  # with at most 3 blanks in a row, 4 presses fire at least once
            fw.control("press")
            press = fw.wait_event("press")
            assert press["player"] is None
            eject = fw.wait_event("eject")
            assert eject["n"] == press["n"] and eject["counted"] is True
            total += eject["cards"]
        assert total > 0
        left = cards_reported(fw)
        assert len(left) == total and left[-1] == 50 - total  # the magazine agrees
        wait_motor_stopped(fw)
        assert motor_reports(fw)[-1] == {"hw": "motor", "duty": 0.0, "dir": 0}
        duties = [m["duty"] for m in motor_reports(fw) if m["dir"] == 1]
        assert duties[0] < duties[-1] <= 0.8  # soft start up to motor_duty_pct


def test_hosted_seeded_presses_match_the_pattern_and_fouls_do_not_fire() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.request("seed", seed=99)
        reply = fw.request("arm", player="Ann", presses=4)
        assert reply["armed"] == {"player": "Ann", "presses": 4, "mode": "random"}
        expected = Pattern(Rng(99))
        expected.configure(DEFAULTS)
        for owed in (3, 2, 1, 0):
            fw.control("press")
            press = fw.wait_event("press")
            assert press["player"] == "Ann" and press["owed"] == owed
            eject = fw.wait_event("eject", timeout=8)
            assert eject["cards"] == expected.press()  # same seed, same outcome as CPython
        assert fw.wait_event("done")["player"] == "Ann"
        wait_motor_stopped(fw)  # the last burst's brake and coast are reported first
        before = len([h for h in hw_after_the_loop(fw) if h["hw"] == "motor"])
        fw.control("press")
        foul = fw.wait_event("foul")
        assert foul["reason"] == "not_armed"
        # the motor would start before the press is told (here: the foul), so by the status
        # reply after it any motor report is out
        after = [h for h in hw_after_the_loop(fw) if h["hw"] == "motor"]
        assert len(after) == before  # the foul press did not run the motor
        assert fw.request("status")["presses"] == 5


def test_a_press_shorter_than_the_debounce_time_is_ignored() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.control("press 5")
        fw.control("press 60")  # follows the short one on the board's own clock
        # the long press is the first one counted: the short one came first and was ignored
        assert fw.wait_event("press")["n"] == 1
        assert fw.request("status")["presses"] == 1


def test_jam_stops_the_motor_and_faults_until_stop() -> None:
    with Firmware(config={"jam_ms": 300}) as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=20)
        time.sleep(0.4)
        fw.control("jam")
        fault = fw.wait_event("fault")
        assert fault["code"] == "jam" and "clear the slot" in fault["message"]
        assert "sensor_pin" not in fault["message"]  # cards did pass the sensor
        eject = fw.wait_event("eject")
        assert 0 < eject["cards"] < 20 and eject["wanted"] == 20
        wait_motor_stopped(fw)
        assert fw.request("status")["state"] == "fault"
        fw.control("press")
        assert fw.wait_event("cleared")["by"] == "button"  # standalone: the button clears it


def test_empty_magazine_is_reported_when_it_runs_dry_and_after_cardless_bursts() -> None:
    with Firmware(cards=2, config={"jam_ms": 200, "empty_bursts": 2}) as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=5)
        assert fw.wait_event("eject")["cards"] == 2
        # cards came, then none with the beam clear: the magazine ran dry (issue 14 fault 7)
        fault = fw.wait_event("fault")
        assert fault["code"] == "empty" and "load cards" in fault["message"]
        fw.request("stop")
        fw.request("fire", mode="exact", cards=5)
        assert fw.wait_event("eject")["cards"] == 0
        assert fw.wait_event("fault")["code"] == "empty"  # still dry: no new cards came
        fw.request("stop")
        fw.request("fire", mode="exact", cards=5)
        assert fw.wait_event("eject")["cards"] == 0
        fault = fw.wait_event("fault", timeout=3)
        assert fault["code"] == "empty" and "load cards" in fault["message"]
        fw.control("load 30")
        fw.request("stop")
        fw.request("fire", mode="exact", cards=3)
        assert fw.wait_event("eject")["cards"] == 3


def test_burst_limit_holds_whatever_the_host_asks() -> None:
    with Firmware(config={"burst_max_ms": 600, "jam_ms": 2000}) as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=40)
        fault = fw.wait_event("fault", timeout=3)
        assert fault["code"] == "motor_timeout"
        eject = fw.wait_event("eject")
        assert eject["cards"] < 10 and eject["wanted"] == 40
        wait_motor_stopped(fw)
        # the host can lower the duty ceiling but never lift the absolute burst ceiling
        bad = fw.request("config_set", config={"burst_max_ms": 60000})
        assert bad["error"] == "config_invalid"


def test_without_a_sensor_bursts_run_open_loop() -> None:
    with Firmware(sensor=False, config={"sensor_pin": None, "ms_per_card": 110}) as fw:
        hello = fw.request("hello")
        assert "sensor" not in hello["capabilities"]
        fw.request("fire", mode="exact", cards=6)
        eject = fw.wait_event("eject")
        assert eject["cards"] == 6 and eject["counted"] is False
        assert abs(len(cards_reported(fw)) - 6) <= 1  # the calibration is close


def test_until_card_keeps_the_player_owing_through_blanks() -> None:  # ATK Wild Hit Fire
    with Firmware(config={"fire_chance_pct": 1, "max_blanks": 2}) as fw:
        fw.wait_event("boot")
        fw.request("seed", seed=5)
        fw.request("arm", player="Cy", mode="until_card")
        owed = []
        for _ in range(3):
            fw.control("press")
            owed.append(fw.wait_event("press")["owed"])
            fw.wait_event("eject")
        assert owed == [1, 1, 0]
        assert fw.wait_event("done")["player"] == "Cy"


def test_config_survives_a_reboot_and_bad_files_fall_back_to_defaults(tmp_path: Path) -> None:
    flash = make_flash_dir(tmp_path / "flash")
    with Firmware(flash) as fw:
        assert fw.request("config_set", config={"jam_ms": 777})["ok"]
    assert json.loads((flash / "launcher.json").read_text())["jam_ms"] == 777
    assert not (flash / "launcher.json.tmp").exists()
    with Firmware(flash) as fw:
        assert fw.request("hello")["config_status"] == "ok"
        assert fw.request("config_get")["config"]["jam_ms"] == 777

    (flash / "launcher.json").write_text('{"jam_ms": 777,')
    with Firmware(flash) as fw:
        hello = fw.request("hello")
        assert hello["config_status"] == "defaults:corrupt"
        assert fw.request("config_get")["config"]["jam_ms"] == DEFAULTS["jam_ms"]

    (flash / "launcher.json").write_text('{"motor_pwm_hz": 400}')  # audible: refused
    with Firmware(flash) as fw:
        hello = fw.request("hello")
        assert hello["config_status"] == "defaults:invalid"
        assert hello["config_errors"][0]["key"] == "motor_pwm_hz"


def test_pins_this_chip_lacks_never_fall_back_to_default_pins() -> None:
    # GPIO 40 exists on an RP2350B, not on this RP2040 board (issue 14 faults 2 and 6): the
    # key is refused, every other setting kept, and no default GPIO is driven instead
    with Firmware(config={"buzzer_pin": 40, "beep_hz": 3100}) as fw:
        hello = fw.request("hello")
        assert hello["config_status"] == "defaults:invalid" and hello["motor"] == "ok"
        assert "GPIO 40" in hello["config_errors"][0]["reason"]
        cfg = fw.request("config_get")["config"]
        assert cfg["buzzer_pin"] is None and cfg["beep_hz"] == 3100
    with Firmware(config={"motor_a_pin": 40}) as fw:
        hello = fw.request("hello")
        assert hello["config_status"] == "defaults:invalid" and hello["motor"] == "disabled"
        assert fw.request("config_get")["config"]["motor_a_pin"] is None
        fw.request("arm", player="Ann", mode="exact", cards=1)
        fw.control("press")
        fw.wait_event("press")
        motor = [ev for ev in hw_after_the_loop(fw) if ev["hw"] == "motor"]
        assert all(ev["duty"] == 0 for ev in motor), motor  # GP16/17 never driven


def _firmware_proc(flash: Path, ctl_lines: str, hw_w: int, ctl_r: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update(
        MICROPYPATH=str(SIM_BOARD), UNOLAUNCH_SIM_CTL_FD=str(ctl_r), UNOLAUNCH_SIM_HW_FD=str(hw_w)
    )
    return subprocess.Popen(
        [micropython_exe(), "-X", "heapsize=192K", "main.py"],
        cwd=flash,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        pass_fds=(ctl_r, hw_w),
    )


def test_button_held_at_power_up_starts_safe_mode(tmp_path: Path) -> None:
    flash = make_flash_dir(tmp_path / "flash")
    ctl_r, ctl_w = os.pipe()
    hw_r, hw_w = os.pipe()
    os.write(ctl_w, b"down\n")  # held before power-up
    proc = _firmware_proc(flash, "down", hw_w, ctl_r)
    os.close(ctl_r)
    os.close(hw_w)
    out, _ = proc.communicate(b'{"id": 1, "cmd": "hello"}\n', timeout=20)
    os.close(ctl_w)
    with os.fdopen(hw_r, "rb") as f:
        hw = [json.loads(line) for line in f.read().splitlines()]
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["event"] == "safe_mode" and "REPL" in lines[0]["message"]
    assert len(lines) == 1  # no launcher loop: the hello went unanswered
    assert all(h["duty"] == 0 for h in hw if h["hw"] == "motor")


def test_reset_request_reboots_through_machine_reset() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        assert fw.request("reset")["resetting"] is True
        assert fw.proc.wait(timeout=5) == 0
        hw = fw.hw_events(0.5)
        assert hw[-1] == {"hw": "reset", "cause": "reset"}


def test_ctrl_c_twice_stops_the_motor_and_the_watchdog_for_mpremote() -> None:
    with Firmware(config={"wdt_ms": 500}) as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=30)
        wait_motor_on(fw)
        fw.allow_text = True
        # Ctrl-C is a byte (main.py: micropython.kbd_intr(-1)); one is line noise to the
        # launcher (issue 14, fault 5), a second within a second is someone taking the REPL
        fw.send_raw(b"\x03")
        time.sleep(0.2)
        assert fw.proc.poll() is None
        fw.send_raw(b"\x03")
        try:
            fw.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            # diagnostics for a rare hang seen once under load
            proc_dir = Path(f"/proc/{fw.proc.pid}")
            diag = (proc_dir / "wchan").read_text() + " " + (proc_dir / "status").read_text()
            fw.drain()
            tail = b"".join(fw.raw)[-500:]
            raise AssertionError(f"{diag} {tail!r} {fw.hw_events(0.1)[-5:]}") from None
        hw = fw.hw_events(0.3)
        assert [h for h in hw if h["hw"] == "motor"][-1]["duty"] == 0.0
        assert [h for h in hw if h["hw"] == "buzzer"][-1]["freq"] == 0
        # KeyboardInterrupt reached the REPL (where mpremote takes over); no watchdog reset
        assert not [h for h in hw if h["hw"] == "reset"]
        fw.drain()
        assert b"\nKeyboardInterrupt" in b"".join(fw.raw)


def test_main_loop_feeds_the_watchdog_through_bursts() -> None:
    with Firmware(config={"wdt_ms": 500}) as fw:
        fw.wait_event("boot")
        uptime_before = fw.request("status")["uptime_ms"]
        for _ in range(3):
            fw.request("fire", mode="exact", cards=5)
            fw.wait_event("eject")
        time.sleep(0.7)
        # the same boot all along (its clock is the host's on this board): longer than
        # the watchdog's 500 ms, with no reset between
        assert fw.request("status")["uptime_ms"] >= uptime_before + 700
        assert fw.proc.poll() is None
        assert not [h for h in fw.hw_events(0.1) if h["hw"] == "reset"]


def test_fake_watchdog_resets_a_stalled_program(tmp_path: Path) -> None:
    script = tmp_path / "stall.py"
    script.write_text(
        "import machine, time\n"
        "w = machine.WDT(timeout=100)\n"
        "w.feed()\n"
        "time.sleep_ms(250)\n"
        "w.feed()\n"
        "print('survived')\n"
    )
    hw_r, hw_w = os.pipe()
    env = dict(os.environ, MICROPYPATH=str(SIM_BOARD), UNOLAUNCH_SIM_HW_FD=str(hw_w))
    proc = subprocess.run(
        [micropython_exe(), str(script)],
        env=env,
        pass_fds=(hw_w,),
        capture_output=True,
        timeout=20,
    )
    os.close(hw_w)
    with os.fdopen(hw_r, "rb") as f:
        assert json.loads(f.read()) == {"hw": "reset", "cause": "wdt"}
    assert b"survived" not in proc.stdout


def test_ram_after_boot_in_a_pico_sized_heap_and_loop_figures(tmp_path: Path) -> None:
    # a budget, not a timing: with -X heapsize=192K the firmware itself may take at most
    # 64 KB of this 64-bit heap (192 - 64 = 128 KB free). The fake machine module and the
    # launcher physics count against us here (on a Pico they are native or absent), so their
    # own share is measured and added back. tests/test_boards.py checks the rp2 port's own
    # figure on its 32-bit heap.
    # The fake board runs from a copy beside the firmware, found by a relative path: module
    # file names are heap too, and with the board's absolute path the figure depended on
    # where the checkout lies (CI's is 6 characters longer than this machine's: 96 B less).
    flash = make_flash_dir(tmp_path / "flash")
    shutil.copytree(SIM_BOARD, flash / ".board", ignore=shutil.ignore_patterns("__pycache__"))
    fake = fake_board_heap_bytes("192K", ".board", cwd=flash)
    with Firmware(flash, heap="192K", env={"MICROPYPATH": ".board"}) as fw:
        fw.wait_event("boot")
        fw.request("arm", player="Ann", mode="exact", cards=1)
        fw.control("press")
        fw.wait_event("eject")
        perf = fw.request("status", perf=True)["perf"]
        assert 12 * 1024 < fake < 40 * 1024, fake
        # the budget (bench/bench_firmware.py): >= 103 KB free on a Pico-sized heap, 100 KB
        # after a burst. Issue 3 asked for 120 KB when the firmware was a third of its size;
        # protocol 2's self-test commands cost about 6 KB, issue 20 (edge rings, output in
        # pieces, the encoder's key cache, main.py's early Ctrl-C) about 9 KB, protocol 3's
        # event log about 2 KB at boot and a full ring 11.9 KB more (docs/protocol.md), issue
        # 32's request path (the loop answering what woke it first, lines written body then
        # newline, the one-slice line reader) about 0.6 KB: the boot budget went 104 -> 103 KB
        # then, where it had 0.5 KB to spare (the rp2 port: 181 KB free after boot).
        # This 64-bit figure moves in steps: MicroPython grows its table of interned names
        # in pools that double (the last, about 7 KB here, is opened by the firmware's 620th
        # name, the fake board's 260 included) and their text in chunks, so an unrelated
        # change moves it by up to ~1 KB (the board's path length alone did: 96 B in CI).
        # The rp2 port's own heap, the judge, keeps >= 180 KB of 240 KB free (test_boards).
        assert perf["mem_free_boot"] + fake >= 103 * 1024, (perf, fake)
        assert perf["mem_free"] + fake >= 100 * 1024, (perf, fake)  # and after a burst
        assert perf["iterations"] > 0 and perf["step_us_max"] >= perf["step_us_avg"] > 0
        # the press is acted on in the iteration that completes the debounce
        assert 1 <= perf["press_to_motor_iters"] <= 200
        assert fw.request("status")["perf"] is None


def test_an_unexpected_exception_stops_the_motor_and_the_loop_carries_on() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=20)
        time.sleep(0.3)
        fw.control("glitch")  # the next pin read raises OSError inside the loop
        fault = fw.wait_event("fault")
        assert fault["code"] == "internal" and "simulated pin glitch" in fault["message"]
        eject = fw.wait_event("eject")  # the interrupted burst still reports its cards
        assert 0 < eject["cards"] < 20 and eject["wanted"] == 20
        wait_motor_stopped(fw)
        assert fw.request("status")["state"] == "fault"
        assert fw.request("stop")["state"] == "idle"
        fw.request("fire", mode="exact", cards=2)
        assert fw.wait_event("eject")["cards"] == 2


def test_a_storm_of_exceptions_resets_the_board() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.control("glitch 1000")
        assert fw.proc.wait(timeout=10) == 0
        assert fw.hw_events(0.3)[-1] == {"hw": "reset", "cause": "reset"}
        assert len([e for e in fw.drain() + fw.events if e.get("code") == "internal"]) > 5


def test_fake_timer_calls_back_periodically_and_one_shot(tmp_path: Path) -> None:
    script = tmp_path / "timers.py"
    script.write_text(
        "import machine, time\n"
        "n = [0, 0]\n"
        "def tick(t):\n"
        "    n[0] += 1\n"
        "def once(t):\n"
        "    n[1] += 1\n"
        "machine.Timer(mode=machine.Timer.PERIODIC, period=10, callback=tick)\n"
        "machine.Timer(mode=machine.Timer.ONE_SHOT, period=20, callback=once)\n"
        "start = time.ticks_ms()\n"
        "end = time.ticks_add(start, 205)\n"
        "while time.ticks_diff(end, time.ticks_ms()) > 0:\n"
        "    machine.idle()\n"
        "before = time.ticks_diff(time.ticks_ms(), start)\n"
        "for _ in range(1000):\n"  # catch up whatever fell due while we were descheduled
        "    machine.idle()\n"
        "after = time.ticks_diff(time.ticks_ms(), start)\n"
        "print(n[0], n[1], before, after)\n"
    )
    env = dict(os.environ, MICROPYPATH=str(SIM_BOARD))
    proc = subprocess.run(
        [micropython_exe(), str(script)], env=env, capture_output=True, text=True, timeout=20
    )
    periodic, one_shot, before_ms, after_ms = map(int, proc.stdout.split())
    # One call per 10 ms period of board time, however busy the machine (no timed bound).
    assert before_ms // 10 - 1 <= periodic <= after_ms // 10
    assert one_shot == 1


def test_the_protocol_also_runs_on_a_uart() -> None:
    rx_r, rx_w = os.pipe()  # host -> board RX
    tx_r, tx_w = os.pipe()  # board TX -> host
    env = {"UNOLAUNCH_SIM_UART_RX_FD": str(rx_r), "UNOLAUNCH_SIM_UART_TX_FD": str(tx_w)}
    with Firmware(config={"uart_id": 0}, env=env, pass_fds=(rx_r, tx_w)) as fw:
        os.close(rx_r)
        os.close(tx_w)
        uart = os.fdopen(tx_r, "rb")
        usb_hello = fw.request("hello")
        assert "uart" in usb_hello["capabilities"]
        os.write(rx_w, b'{"id": 77, "cmd": "hello"}\n{"id": 78, "cmd": "arm", "player": "Uma"}\n')
        lines = [json.loads(uart.readline()) for _ in range(3)]
        assert lines[0]["event"] == "boot"  # events go to both ports
        assert lines[1]["id"] == 77 and lines[1]["firmware"] == usb_hello["firmware"]
        assert lines[2]["id"] == 78 and lines[2]["armed"]["player"] == "Uma"
        fw.control("press")
        assert json.loads(uart.readline())["event"] == "press"
        assert fw.wait_event("press")["player"] == "Uma"
        # a reply goes only to the port that asked: USB never saw ids 77/78
        assert not [m for m in fw.drain() if m.get("id") in (77, 78)]
        os.close(rx_w)
        uart.close()


def test_uart_pins_must_not_clash_when_the_uart_is_on() -> None:
    from launcher.config import merged

    assert merged(DEFAULTS, {"uart_tx_pin": 15})[0] is not None  # off: no clash
    new, errors = merged(DEFAULTS, {"uart_id": 0, "uart_tx_pin": 15})
    assert new is None and errors[0][0] == "uart_tx_pin"
    assert merged(DEFAULTS, {"uart_id": 2})[1][0] == ("uart_id", "must be 0, 1 or null")


def _run_on_fake_board(
    tmp_path: Path, script: str, controls: bytes
) -> tuple[str, list[dict[str, Any]]]:
    """Run ``script`` under MicroPython on the fake board with ``controls`` queued on its
    control channel; its output and the hardware reports."""
    path = tmp_path / "script.py"
    path.write_text(script)
    ctl_r, ctl_w = os.pipe()
    hw_r, hw_w = os.pipe()
    os.write(ctl_w, controls)
    env = dict(
        os.environ,
        MICROPYPATH=str(SIM_BOARD),
        UNOLAUNCH_SIM_CTL_FD=str(ctl_r),
        UNOLAUNCH_SIM_HW_FD=str(hw_w),
    )
    try:
        proc = subprocess.run(
            [micropython_exe(), str(path)],
            env=env,
            pass_fds=(ctl_r, hw_w),
            capture_output=True,
            timeout=30,
        )
    finally:
        os.close(ctl_r)
        os.close(hw_w)
        os.close(ctl_w)
    with os.fdopen(hw_r, "rb") as f:
        hw = [json.loads(line) for line in f.read().splitlines()]
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode(), hw


def test_queued_presses_stay_apart_when_an_irq_handler_reads_the_pin(tmp_path: Path) -> None:
    """Found behind the never-deaf flake (a queued press lost under a loaded machine, 15 of
    16): the fake board fired a hard pin IRQ at the button's edge from inside the world's
    update; a handler that reads the pin a millisecond later ran the world's update again,
    which took the next queued `press` while the first one was still being made (its
    release time not yet set) - the two became one press. Here the handler takes 3 ms on
    purpose and the presses are queued at once: each must be a press of its own."""
    _, hw = _run_on_fake_board(
        tmp_path,
        "import time, machine\n"
        "pin = machine.Pin(15, machine.Pin.IN, machine.Pin.PULL_UP)\n"
        "def took(p):\n"
        "    time.sleep_ms(3)\n"
        "    p.value()\n"
        "pin.irq(took, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)\n"
        "end = time.ticks_add(time.ticks_ms(), 1500)\n"
        "while time.ticks_diff(end, time.ticks_ms()) > 0:\n"
        "    pin.value()\n"
        "    time.sleep_ms(1)\n",
        b"press 30\npress 40\npress 60\n",
    )
    assert [h["down"] for h in hw if h["hw"] == "button"] == [True, False] * 3, hw


def test_the_fake_board_latches_interrupts_as_a_chip_does(tmp_path: Path) -> None:
    """An edge is never handled inside another handler, nor while the firmware has
    interrupts off (machine.disable_irq, as rp2's PRIMASK): the chip keeps it pending and
    the handler runs once the handler before it returned, or interrupts are on again, with
    every edge's level in order."""
    out, hw = _run_on_fake_board(
        tmp_path,
        "import time, machine\n"
        "pin = machine.Pin(15, machine.Pin.IN, machine.Pin.PULL_UP)\n"
        "depth = [0, 0]  # now, deepest\n"
        "levels = []\n"
        "off = [False, 0]  # interrupts off now, handlers run while off\n"
        "def took(p):\n"
        "    if off[0]:\n"
        "        off[1] += 1\n"
        "    depth[0] += 1\n"
        "    depth[1] = max(depth)\n"
        "    levels.append(p.value())\n"
        "    end = time.ticks_add(time.ticks_us(), 40000)\n"
        "    while time.ticks_diff(end, time.ticks_us()) > 0:\n"
        "        p.value()  # the world moves on: the next edge comes meanwhile\n"
        "    depth[0] -= 1\n"
        "pin.irq(took, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)\n"
        "end = time.ticks_add(time.ticks_ms(), 1500)\n"
        "while time.ticks_diff(end, time.ticks_ms()) > 0:\n"
        "    state = machine.disable_irq()\n"
        "    off[0] = True\n"
        "    t = time.ticks_add(time.ticks_ms(), 7)\n"
        "    while time.ticks_diff(t, time.ticks_ms()) > 0:\n"
        "        pin.value()\n"
        "    off[0] = False\n"
        "    machine.enable_irq(state)\n"
        "    pin.value()\n"
        "print(depth[1], off[1], len(levels))\n",
        b"press 20\npress 20\npress 20\n",
    )
    deepest, while_off, handled = (int(w) for w in out.split())
    edges = [h["down"] for h in hw if h["hw"] == "button"]
    assert edges == [True, False] * 3, hw
    assert (deepest, while_off, handled) == (1, 0, len(edges)), out
