"""The simulator runner (docs/architecture.md §2/§3) with a tiny stand-in firmware written by the
test into a temporary flash: a real pty, real MicroPython, real pyserial and mpremote.

The client tests (tests/test_link*.py) run the real firmware; these pin down the
Pico-like USB REPL behaviour the runner itself promises."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from unolaunch.sim import SimError, SimulatedLauncher, configure_without_sensor

TINY_FIRMWARE = r"""
# A tiny stand-in firmware: JSON lines in, JSON lines out, and the fake board's channels.
import sys, os, select, json

cards = int(os.getenv("UNOLAUNCH_SIM_CARDS") or "112")
ctl_fd = os.getenv("UNOLAUNCH_SIM_CTL_FD")
hw_fd = os.getenv("UNOLAUNCH_SIM_HW_FD")
ctl = open(int(ctl_fd), "rb") if ctl_fd else None
hw = open(int(hw_fd), "wb") if hw_fd else None

def report(obj):
    if hw:
        hw.write(json.dumps(obj).encode() + b"\n")  # unbuffered; flush() is EINVAL on a pipe

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")

poll = select.poll()
poll.register(sys.stdin, select.POLLIN)
if ctl:
    poll.register(ctl, select.POLLIN)
send({"event": "boot", "cards": cards})
line = b""
cline = b""
while True:
    for obj, _ in poll.poll(100):
        if obj is ctl:
            c = ctl.read(1)
            if c == b"\n":
                words = cline.decode().split()
                cline = b""
                if words[0] == "press" and cards > 0:
                    cards -= 1
                    report({"hw": "card", "left": cards})
                elif words[0] == "load":
                    cards = int(words[1])
                send({"event": "ctl", "words": words, "cards": cards})
            else:
                cline += c
            continue
        c = sys.stdin.buffer.read(1)
        if c != b"\n":
            line += c
            continue
        req = json.loads(line.strip())
        line = b""
        if req.get("cmd") == "reset":
            report({"hw": "reset", "cause": "reset"})
            sys.exit(0)
        send({"id": req.get("id"), "ok": True, "cards": cards})
"""

MPREMOTE = [sys.executable, "-m", "mpremote"]


@pytest.fixture
def tiny_firmware(tmp_path: Path) -> Path:
    fw = tmp_path / "firmware"
    fw.mkdir()
    (fw / "main.py").write_text(TINY_FIRMWARE)
    return fw


@pytest.fixture
def sim(tiny_firmware: Path) -> Iterator[SimulatedLauncher]:
    with SimulatedLauncher(firmware_dir=tiny_firmware, cards=20) as s:
        yield s


def open_port(path: str) -> serial.Serial:
    return serial.serial_for_url(path, timeout=0.2, exclusive=True)


def read_json(ser: serial.Serial, want: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
    """Read lines until a JSON object holding every key/value of ``want`` arrives."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        raw = ser.readline()
        if not raw:
            continue
        seen.append(raw)
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        if isinstance(msg, dict) and all(msg.get(k) == v for k, v in want.items()):
            return msg
    raise AssertionError(f"no line with {want} within {timeout} s; got {seen!r}")


def read_until(ser: serial.Serial, marker: bytes, timeout: float = 5.0) -> bytes:
    deadline = time.monotonic() + timeout
    data = b""
    while marker not in data and time.monotonic() < deadline:
        data += ser.read(max(1, ser.in_waiting))
    assert marker in data, f"no {marker!r} within {timeout} s; got {data!r}"
    return data


def request(ser: serial.Serial, n: int, **kw: Any) -> dict[str, Any]:
    ser.write(json.dumps({"id": n, "cmd": "status", **kw}).encode() + b"\n")
    return read_json(ser, {"id": n})


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0): look at its state.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_runs_main_py_from_the_flash_behind_a_pty(sim: SimulatedLauncher) -> None:
    assert Path(sim.port).exists() and os.path.realpath(sim.link) == sim.port
    assert (sim.flash_dir / "main.py").is_file()
    with open_port(sim.port) as ser:
        assert request(ser, 1)["cards"] == 20
        # Bytes go through unchanged (raw mode both sides): no echo, no \r added.
        ser.write(b'{"id": 2, "cmd": "x"}\n')
        raw = ser.readline()
        assert raw.endswith(b"}\n") and b"\r" not in raw
        assert json.loads(raw) == {"id": 2, "ok": True, "cards": 20}


def test_close_and_reopen_does_not_reboot_the_board(sim: SimulatedLauncher) -> None:
    for i in range(5):
        with open_port(sim.port) as ser:
            assert request(ser, i)["ok"] is True
    assert sim.boots == 1


def test_ctrl_c_interrupts_running_code_and_ctrl_d_soft_resets(sim: SimulatedLauncher) -> None:
    with open_port(sim.port) as ser:
        request(ser, 1)
        ser.write(b"\x03\x03")  # Ctrl-C twice: one alone is line noise to the firmware
        out = read_until(ser, b">>> ")
        assert b"KeyboardInterrupt" in out
        # At the REPL, Ctrl-C is a character again (clears the line), not a signal.
        ser.write(b"1+\x03")
        ser.write(b"6*7\r")
        out = read_until(ser, b"\n>>> ", 5)
        while b"42" not in out:
            out += read_until(ser, b"\n>>> ", 5)
        assert b"Error" not in out  # the half line "1+" was thrown away by Ctrl-C
        # Ctrl-D at the friendly REPL: soft reboot, main.py runs again.
        ser.write(b"\x04")
        read_until(ser, b"MPY: soft reboot\r\n")
        read_json(ser, {"event": "boot"})
        assert request(ser, 2)["ok"] is True
    assert sim.boots == 2
    assert sim.hw_events()[-1] == {"hw": "boot", "cause": "soft_reset", "raw_repl": False}


def test_raw_repl_and_raw_paste_by_hand(sim: SimulatedLauncher) -> None:
    with open_port(sim.port) as ser:
        # once main.py runs: a Ctrl-C before that is a byte in the USB buffer on a Pico (and
        # on the unix board, issue 20), which this stand-in firmware reads as a byte
        read_json(ser, {"event": "boot"})
        ser.write(b"\r\x03\x03")  # Ctrl-C twice: the firmware hands the REPL over
        read_until(ser, b">>> ")
        ser.write(b"\r\x01")
        read_until(ser, b"raw REPL; CTRL-B to exit\r\n>")
        ser.write(b"print(6*7)\x04")
        assert read_until(ser, b"\x04>").endswith(b"OK42\n\x04\x04>")
        # Straight away again: the runner must not let the unix port flush this input.
        ser.write(b"print('x' * 3)\x04")
        assert read_until(ser, b"\x04>").endswith(b"OKxxx\n\x04\x04>")
        ser.write(b"\x05A\x01")  # raw-paste mode
        assert read_until(ser, b"R\x01", 2)
        ser.read(3)  # window size + first flow-control byte
        ser.write(b"print(2**10)\x04")
        assert b"1024" in read_until(ser, b"\x04>")
        # Ctrl-D at an empty raw REPL: a Pico soft-resets and comes back to the raw REPL.
        ser.write(b"\x04")
        out = read_until(ser, b"raw REPL; CTRL-B to exit\r\n>")
        assert b"soft reboot\r\n" in out
        assert b'"event"' not in out  # main.py does not run after a raw-REPL soft reset
        ser.write(b"print(5)\x04")
        assert b"OK5" in read_until(ser, b"\x04>")
        ser.write(b"\r\x02")  # back to the friendly REPL; Ctrl-D boots main.py
        read_until(ser, b">>> ")
        ser.write(b"\x04")
        read_json(ser, {"event": "boot"})


@pytest.mark.parametrize("resume", [False, True])
def test_mpremote_exec_against_the_simulator(sim: SimulatedLauncher, resume: bool) -> None:
    args = ["resume"] if resume else []
    proc = subprocess.run(
        [*MPREMOTE, "connect", sim.port, *args, "exec", "print(1+1)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2"
    # Runs in the flash directory, like files on a Pico's flash.
    proc = subprocess.run(
        [*MPREMOTE, "connect", sim.link, "exec", "import os; print(sorted(os.listdir()))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "main.py" in proc.stdout


def test_mpremote_copies_a_file_and_soft_reset_runs_main(sim: SimulatedLauncher) -> None:
    src = sim.flash_dir.parent / "hello.txt"
    src.write_text("from the host\n")
    proc = subprocess.run(
        [*MPREMOTE, "connect", sim.port, "cp", str(src), ":hello.txt", "+", "soft-reset"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert (sim.flash_dir / "hello.txt").read_text() == "from the host\n"
    # mpremote leaves the board at the REPL; a Ctrl-D there boots main.py again.
    with open_port(sim.port) as ser:
        ser.write(b"\r\x02")
        read_until(ser, b">>> ")
        ser.write(b"\x04")
        read_json(ser, {"event": "boot"})


def test_controls_reach_the_board_and_reports_come_back(sim: SimulatedLauncher) -> None:
    with open_port(sim.port) as ser:
        request(ser, 1)
        sim.control("press")
        assert read_json(ser, {"event": "ctl"})["cards"] == 19
        ev = sim.wait_hw(lambda e: e.get("hw") == "card")
        assert ev == {"hw": "card", "left": 19}
        assert sim.cards == 19
        sim.control("load 7")
        assert read_json(ser, {"event": "ctl"})["cards"] == 7
        assert sim.cards == 7
    with pytest.raises(SimError, match="unknown board control"):
        sim.control("explode")


def test_board_reset_restarts_main_and_keeps_the_magazine(sim: SimulatedLauncher) -> None:
    with open_port(sim.port) as ser:
        request(ser, 1)
        sim.control("press")
        sim.wait_hw(lambda e: e.get("hw") == "card")
        # The firmware reports a reset and ends (machine.reset() in the fake board).
        ser.write(b'{"id": 2, "cmd": "reset"}\n')
        boot = read_json(ser, {"event": "boot"})
        assert boot["cards"] == 19  # the physical magazine survives the reboot
        assert request(ser, 3)["cards"] == 19
        # The reset button, from the simulator.
        sim.reset()
        read_json(ser, {"event": "boot"})
    causes = [e["cause"] for e in sim.hw_events() if e.get("hw") == "boot"]
    assert causes == ["power_on", "reset", "reset"]


def test_unplug_makes_the_device_vanish_and_replug_boots_again(
    sim: SimulatedLauncher,
) -> None:
    ser = open_port(sim.link)
    request(ser, 1)
    old_pid = sim.pid
    sim.unplug()
    assert not sim.plugged
    assert not os.path.lexists(sim.link)
    with pytest.raises(serial.SerialException):
        for _ in range(10):
            ser.write(b'{"id": 2}\n')
            ser.read(100)
    ser.close()
    assert old_pid is not None and not alive(old_pid)
    sim.control("press")  # no power: nothing happens
    sim.replug()
    assert os.path.realpath(sim.link) == sim.port
    with open_port(sim.link) as ser:
        assert request(ser, 3)["cards"] == 20
    assert sim.boots == 2


def test_port_opened_before_the_board_prints_sees_the_boot(tiny_firmware: Path) -> None:
    with SimulatedLauncher(firmware_dir=tiny_firmware) as s, open_port(s.port) as ser:
        s.reset()
        assert read_json(ser, {"event": "boot"})["cards"] == 112


def test_close_leaves_no_process_and_no_files(tiny_firmware: Path) -> None:
    s = SimulatedLauncher(firmware_dir=tiny_firmware)
    with s:
        pid = s.pid
        flash = s.flash_dir
        link = s.link
        with open_port(s.port) as ser:
            request(ser, 1)
    assert pid is not None and not alive(pid)
    assert not flash.exists() and not os.path.lexists(link)


def test_given_flash_dir_is_kept_and_missing_firmware_is_a_clear_error(
    tmp_path: Path, tiny_firmware: Path
) -> None:
    flash = tmp_path / "flash"
    with SimulatedLauncher(flash_dir=flash, firmware_dir=tiny_firmware) as s:
        assert s.flash_dir == flash
    assert (flash / "main.py").is_file()  # populated once, then kept
    with pytest.raises(SimError, match="no firmware to run"):
        SimulatedLauncher(firmware_dir=tmp_path / "nowhere").start()


def test_sim_command_prints_the_device_and_takes_commands(tiny_firmware: Path) -> None:
    from conftest import cli_env

    flash = tiny_firmware.parent / "flash"
    shutil.copytree(tiny_firmware, flash)
    link = tiny_firmware.parent / "launcher"
    argv = ["sim", "--flash-dir", str(flash), "--cards", "9", "--link", str(link)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    said: list[str] = []  # stderr, as far as it was read
    try:
        device = proc.stdout.readline().strip()
        assert device.startswith("/dev/pts/")
        assert os.path.realpath(link) == device
        with open_port(device) as ser:
            assert request(ser, 1)["cards"] == 9
            proc.stdin.write("press\nfrobnicate\nreplug\nhold 300\n")
            proc.stdin.flush()
            assert read_json(ser, {"event": "ctl", "words": ["press", "300"]})["cards"] == 7
        proc.stdin.write("unplug\nreplug\n")
        proc.stdin.flush()
        # the commands run as stdin gives them: the new device is there once the simulator
        # says so (opening the link before that may open the old one as it goes: EIO)
        while not said or "USB plugged in" not in said[-1]:
            said.append(proc.stderr.readline())
            assert said[-1], said  # the simulator ended before it plugged the cable back
        with open_port(str(link)) as ser:
            assert request(ser, 2)["cards"] == 7
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = "".join(said) + proc.stderr.read()
    assert "card out (8 left)" in err
    assert "unknown command 'frobnicate'" in err
    assert "already plugged in" in err
    assert "USB unplugged" in err and "USB plugged in" in err
    assert "Traceback" not in err
    assert not os.path.lexists(link)


def test_start_failures_are_one_clear_error(tiny_firmware: Path, run_cli: Any) -> None:
    with pytest.raises(SimError, match="cannot start /nonexistent/micropython"):
        SimulatedLauncher(
            firmware_dir=tiny_firmware, micropython="/nonexistent/micropython"
        ).start()
    proc = run_cli("sim", "--cards", "-1")
    assert proc.returncode == 2 and "--cards must be between 0 and 500" in proc.stderr
    proc = run_cli("sim", "--flash-dir", str(tiny_firmware.parent / "empty"), input="quit\n")
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr


def test_a_board_that_stops_reading_pushes_back_on_the_host(sim: SimulatedLauncher) -> None:
    import signal

    pid = sim.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # the firmware hangs and reads nothing
    try:
        with (
            serial.serial_for_url(sim.port, write_timeout=1) as ser,
            pytest.raises(serial.SerialTimeoutException),
        ):
            ser.write(b"x" * 4_000_000)  # blocks like a USB device that NAKs
    finally:
        os.kill(pid, signal.SIGCONT)


def test_sim_command_will_not_steal_a_live_link(sim: SimulatedLauncher, run_cli: Any) -> None:
    proc = run_cli("sim", "--link", sim.link, input="quit\n")
    assert proc.returncode == 2
    assert f"already points at {sim.port}" in proc.stderr
    assert os.path.realpath(sim.link) == sim.port  # untouched


@pytest.fixture
def launcher_flash(tmp_path: Path) -> Path:
    """A flash holding the real firmware's configuration code (all configure_without_sensor
    needs; no MicroPython runs)."""
    from unolaunch import firmware_dir

    flash = tmp_path / "flash"
    (flash / "launcher").mkdir(parents=True)
    shutil.copy(firmware_dir() / "launcher" / "config.py", flash / "launcher" / "config.py")
    return flash


def test_no_sensor_writes_sensor_pin_null_when_there_is_no_config(launcher_flash: Path) -> None:
    assert configure_without_sensor(launcher_flash) is True
    saved = json.loads((launcher_flash / "launcher.json").read_text())
    assert saved["sensor_pin"] is None
    assert saved["button_pin"] == 15 and saved["jam_ms"] == 1500  # the firmware's defaults
    assert configure_without_sensor(launcher_flash) is False  # already right: not rewritten


def test_no_sensor_merges_into_the_existing_config(launcher_flash: Path) -> None:
    path = launcher_flash / "launcher.json"
    path.write_text(json.dumps({"jam_ms": 400, "quiet": True, "sensor_pin": 14}))
    assert configure_without_sensor(launcher_flash) is True
    saved = json.loads(path.read_text())
    assert saved["sensor_pin"] is None and saved["jam_ms"] == 400 and saved["quiet"] is True
    assert sorted(p.name for p in launcher_flash.iterdir()) == ["launcher", "launcher.json"]


def test_no_sensor_leaves_a_users_own_sensor_pin_and_a_bad_file_alone(
    launcher_flash: Path,
) -> None:
    path = launcher_flash / "launcher.json"
    own = json.dumps({"sensor_pin": 13, "jam_ms": 400})
    path.write_text(own)
    assert configure_without_sensor(launcher_flash) is False
    assert path.read_text() == own
    for bad in ("{not json", json.dumps({"sensor_pin": 14, "jam_ms": 5})):
        path.write_text(bad)
        with pytest.raises(SimError, match=r"not a valid launcher configuration.*fix or delete"):
            configure_without_sensor(launcher_flash)
        assert path.read_text() == bad  # nothing lost


def test_no_sensor_on_a_flash_without_the_launcher_firmware_writes_nothing(
    tiny_firmware: Path,
) -> None:
    assert configure_without_sensor(tiny_firmware) is False
    assert not (tiny_firmware / "launcher.json").exists()
    with SimulatedLauncher(firmware_dir=tiny_firmware, sensor=False) as s:
        assert not (s.flash_dir / "launcher.json").exists()


def test_seed_out_of_range_is_a_clear_error(run_cli: Any) -> None:
    with pytest.raises(SimError, match=r"seed must be 0\.\.4294967295"):
        SimulatedLauncher(seed=-1)
    proc = run_cli("sim", "--seed", str(2**32))
    assert proc.returncode == 2 and "--seed must be between 0 and 4294967295" in proc.stderr
    help_text = run_cli("sim", "--help").stdout
    assert "ejection pattern" in help_text and "sensor_pin" in help_text


class _SimCommand:
    """`unolaunch sim` (the real firmware) in a subprocess, its stderr read line by line."""

    def __init__(self, stdin: Any = subprocess.PIPE) -> None:
        import queue
        import threading

        from conftest import cli_env

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "unolaunch", "sim", "--seed", "1"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stderr is not None
        stream = self.proc.stderr
        threading.Thread(target=lambda: [self.lines.put(x) for x in stream], daemon=True).start()

    def say(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def wait_for(self, words: str, timeout: float = 30) -> list[str]:
        """stderr lines up to the first that holds ``words`` (AssertionError if none comes)."""
        import queue

        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(line)
            if words in line:
                return seen
        raise AssertionError(f"no {words!r} on stderr: {seen}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=30)


def test_sim_command_says_when_the_firmware_starts_in_safe_mode() -> None:
    """Issue 12: a button held through the boot puts the firmware in safe mode, and the
    simulator's stderr said only "board boots"."""
    sim = _SimCommand()
    try:
        sim.wait_for("simulated launcher running")
        sim.say("down\nreset\n")  # the button held through a reset
        seen = sim.wait_for("safe mode")
        assert any("board boots" in line for line in seen)
        assert "up" in seen[-1] and "reset" in seen[-1]  # what to do about it
        sim.say("up\nreset\n")
        assert not any("safe mode" in x for x in sim.wait_for("board boots")[:-1])
        sim.say("quit\n")
        assert sim.proc.wait(timeout=30) == 0
    finally:
        sim.stop()


def test_sim_command_answers_every_command() -> None:
    """Issue 19: `load N` (and stall, down, beam block…) said nothing, unlike the commands
    whose hardware reports itself."""
    sim = _SimCommand()
    try:
        sim.wait_for("simulated launcher running")
        sim.say("load 7\n")
        assert "magazine loaded: it holds 7 cards now" in sim.wait_for("magazine loaded")[-1]
        for command, words in (
            ("stall", "stopped reading"),
            ("unstall", "reads the board's output again"),
            ("beam block", "beam is blocked"),
            ("beam clear", "beam is clear"),
            ("down", "held down"),
            ("up", "released"),
        ):
            sim.say(command + "\n")
            sim.wait_for(words)
        sim.say("quit\n")
        assert sim.proc.wait(timeout=30) == 0
    finally:
        sim.stop()


def test_sim_command_says_it_runs_on_after_the_end_of_its_input() -> None:
    """Issue 12: with stdin not a terminal the simulator runs on after end of input (a script
    starts it in the background): it says so, and --help says so."""
    sim = _SimCommand(stdin=subprocess.DEVNULL)
    try:
        sim.wait_for("end of input")
        assert sim.proc.poll() is None  # still running: the device stays for the script
    finally:
        sim.stop()
    from conftest import cli_env

    helped = subprocess.run(
        [sys.executable, "-m", "unolaunch", "sim", "--help"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert "end of input" in " ".join(helped.stdout.split())
