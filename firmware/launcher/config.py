# Launcher configuration: defaults, validation and atomic load/save of launcher.json.
# Pure logic plus plain file I/O (json, os): no `machine`, runs under CPython too.
import json
import os

FILE = "launcher.json"
MAX_FILE_BYTES = 8192  # a real config is ~800 bytes; refuse to read a runaway file into RAM

# Every key the firmware knows, with its default. hardware/ documents the pin map and a test
# checks it against this dict (docs/architecture.md §4). Pins are GPIO numbers; None = not
# fitted. led_pin may also be "LED" (the Pico W's onboard LED).
DEFAULTS = {
    # pins
    "button_pin": 15,
    "motor_a_pin": 16,
    "motor_b_pin": 17,
    "sensor_pin": 14,
    "buzzer_pin": 18,
    "led_pin": 25,
    # motor (PWM above the audible range; duty and burst length are hard-limited)
    "motor_pwm_hz": 20000,
    "motor_duty_pct": 80,
    "motor_max_duty_pct": 100,
    "ramp_ms": 80,
    "burst_max_ms": 5000,
    "brake_ms": 50,  # after a burst both H-bridge inputs high this long, then coast
    # button
    "debounce_ms": 20,
    # card sensor (IR break beam); without one the burst runs open loop for ms_per_card
    "sensor_blocked_value": 0,
    "sensor_min_ms": 2,  # the beam must be blocked (then clear) this long to count a card
    "jam_ms": 1500,
    "empty_bursts": 2,
    "ms_per_card": 115,
    # ejection pattern (the original toy: ~35% of presses fire, <= 3 blanks in a row,
    # mostly 3-8 cards, rare big bursts). burst_weights[i] is the weight of i+1 cards.
    "fire_chance_pct": 22,
    "max_blanks": 3,
    "burst_weights": [3, 5, 13, 17, 18, 16, 13, 9, 2, 2, 1, 1],
    # feedback
    "quiet": False,
    "beep_hz": 2700,
    # watchdog timeout (the RP2040 allows at most 8388 ms)
    "wdt_ms": 3000,
    # the same protocol on a UART as well as USB (uart_id null: off)
    "uart_id": None,
    "uart_tx_pin": 0,
    "uart_rx_pin": 1,
    "uart_baud": 115200,
}

PIN_KEYS = ("button_pin", "motor_a_pin", "motor_b_pin", "sensor_pin", "buzzer_pin", "led_pin")
UART_KEYS = ("uart_id", "uart_tx_pin", "uart_rx_pin", "uart_baud")
# Keys that only take effect after a reset (the pins are claimed at boot).
RESTART_KEYS = PIN_KEYS + UART_KEYS + ("motor_pwm_hz", "sensor_blocked_value", "wdt_ms")
# Firmware-enforced ceilings that no configuration can lift.
ABS_MAX_BURST_MS = 10000
MAX_PIN = 47  # RP2350B has GPIO0..47; the RP2040 stops at 29
REQUIRED_PINS = ("button_pin", "motor_a_pin", "motor_b_pin")
# The chip this firmware runs on (app.py sets it at boot from board.chip()); None: not
# known (the host validating a file), which allows every GPIO up to MAX_PIN.
CHIP = None
# Outputs: never driven on a guess (a board wired to other pins may have anything there).
OUTPUT_PINS = ("motor_a_pin", "motor_b_pin", "buzzer_pin", "led_pin")
# The GPIOs each chip has for the launcher: (highest GPIO, GPIOs the Pico board itself uses:
# GP23 SMPS mode, GP24 VBUS sense, GP29 VSYS sense; GP25 is the LED, for led_pin only).
_CHIP_PINS = {
    "rp2040": (29, (23, 24, 29)),
    "rp2350": (29, (23, 24, 29)),  # RP2350A (Pico 2)
    "rp2350b": (47, ()),
}
# The pins each hardware UART can use (RP2040 datasheet, GPIO function table).
UART_TX = {0: (0, 12, 16, 28), 1: (4, 8, 20, 24)}
UART_RX = {0: (1, 13, 17, 29), 1: (5, 9, 21, 25)}

# key -> (lo, hi) for integers
_RANGES = {
    "motor_pwm_hz": (20000, 100000),
    "motor_duty_pct": (20, 100),
    "motor_max_duty_pct": (20, 100),
    "ramp_ms": (0, 1000),
    "burst_max_ms": (200, ABS_MAX_BURST_MS),
    "brake_ms": (0, 500),
    "debounce_ms": (1, 200),
    "sensor_blocked_value": (0, 1),
    "sensor_min_ms": (0, 50),
    "jam_ms": (100, 10000),
    "empty_bursts": (1, 20),
    "ms_per_card": (20, 2000),
    "fire_chance_pct": (1, 100),
    "max_blanks": (0, 20),
    "beep_hz": (100, 10000),
    "wdt_ms": (500, 8000),
    "uart_baud": (1200, 1000000),
}


def _is_int(v):
    return type(v) is int


def _gpio_reason(value, chip):
    if chip is None:
        chip = CHIP
    top, board = _CHIP_PINS.get(chip, (MAX_PIN, ()))
    if not _is_int(value) or value < 0 or value > top:
        return "GPIO %r: must be a GPIO number 0..%d%s" % (
            value,
            top,
            "" if chip is None else " on the " + chip,
        )
    if value in board:
        return "GPIO %d is used by the Pico board itself; choose another" % value
    return None


def check_value(key, value, chip=None):
    """Return None if `value` is acceptable for `key`, else a short reason. `chip` (rp2040,
    rp2350, rp2350b or None: not known) narrows pins to the GPIOs that chip has."""
    if key not in DEFAULTS:
        return "unknown key"
    if key in PIN_KEYS:
        if value is None:
            if key in REQUIRED_PINS:
                return "required pin; give a GPIO number"
            return None
        if key == "led_pin" and value in ("LED", 25):
            return None
        return _gpio_reason(value, chip)
    if key in ("uart_tx_pin", "uart_rx_pin"):
        return _gpio_reason(value, chip)
    if key == "uart_id":
        return (
            None if value is None or value in (0, 1) and _is_int(value) else "must be 0, 1 or null"
        )
    if key == "quiet":
        return None if type(value) is bool else "must be true or false"
    if key == "burst_weights":
        if type(value) is not list or not 1 <= len(value) <= 40:
            return "must be a list of 1..40 integer weights (weight i = i+1 cards)"
        for w in value:
            if not _is_int(w) or w < 0 or w > 1000:
                return "weights must be integers 0..1000"
        if not sum(value):
            return "at least one weight must be above 0"
        return None
    lo, hi = _RANGES[key]
    if not _is_int(value):
        return "must be an integer %d..%d" % (lo, hi)
    if value < lo or value > hi:
        return "out of range %d..%d" % (lo, hi)
    return None


def check(cfg, chip=None):
    """Validate a whole configuration; return a list of (key, reason), empty if valid."""
    errors = []
    for key in DEFAULTS:
        if key not in cfg:
            errors.append((key, "missing"))
            continue
        reason = check_value(key, cfg[key], chip)
        if reason:
            errors.append((key, reason))
    for key in cfg:
        if key not in DEFAULTS:
            errors.append((key, "unknown key"))
    if errors:
        return errors
    return _cross(cfg)


def _slice(pin):
    # RP2040/RP2350: a GPIO's PWM is slice (gpio >> 1) & 7, channel gpio & 1 (A/B); GPn and
    # GPn+16 are the same output, and the two channels of a slice share one frequency.
    return (pin >> 1) & 7


def _cross(cfg):
    """The rules between keys; a list of (key, reason), the later key of a pair named."""
    errors = []
    if cfg["motor_duty_pct"] > cfg["motor_max_duty_pct"]:
        errors.append(("motor_duty_pct", "above motor_max_duty_pct"))
    seen: dict = {}
    keys: tuple = PIN_KEYS
    if cfg["uart_id"] is not None:
        keys = keys + ("uart_tx_pin", "uart_rx_pin")
    for key in keys:
        pin = cfg[key]
        if pin is None or pin == "LED":
            continue
        if pin in seen:
            errors.append((key, "GPIO %d already used by %s" % (pin, seen[pin])))
        else:
            seen[pin] = key
    if cfg["ramp_ms"] >= cfg["burst_max_ms"]:
        errors.append(("ramp_ms", "must be shorter than burst_max_ms"))
    errors.extend(_pwm_conflicts(cfg))
    uart = cfg["uart_id"]
    if uart is not None:
        for key, table in (("uart_tx_pin", UART_TX), ("uart_rx_pin", UART_RX)):
            if cfg[key] not in table[uart]:
                errors.append(
                    (
                        key,
                        "GPIO %r is not a UART%d %s pin (those are GPIO %s)"
                        % (cfg[key], uart, key[5:7].upper(), ", ".join(map(str, table[uart]))),
                    )
                )
    return errors


def _pwm_conflicts(cfg):
    a, b, buzzer = cfg["motor_a_pin"], cfg["motor_b_pin"], cfg["buzzer_pin"]
    errors = []
    if _is_int(a) and _is_int(b) and _slice(a) == _slice(b) and a & 1 == b & 1:
        errors.append(
            (
                "motor_b_pin",
                "GPIO %d and motor_a_pin GPIO %d are the same PWM output (slice %d channel %s)"
                % (b, a, _slice(a), "AB"[a & 1]),
            )
        )
    if _is_int(buzzer):
        keys = ("motor_a_pin", "motor_b_pin")
        if cfg["motor_b_pin"] == buzzer ^ 16 or cfg["motor_b_pin"] == buzzer:
            keys = ("motor_b_pin", "motor_a_pin")  # name the one on the same channel
        for key in keys:
            pin = cfg[key]
            if _is_int(pin) and _slice(pin) == _slice(buzzer):
                errors.append(
                    (
                        "buzzer_pin",
                        "GPIO %d shares PWM slice %d with %s GPIO %d: the buzzer's pitch "
                        "would retune the motor (a slice has one frequency); choose a GPIO "
                        "on another slice" % (buzzer, _slice(buzzer), key, pin),
                    )
                )
                break
    return errors


def merged(current, changes, chip=None):
    """Return (new_config, errors) for applying `changes` (a dict) to `current`."""
    if type(changes) is not dict:
        return None, [("config", "must be an object")]
    new = dict(current)
    for key in changes:
        if type(key) is not str:
            # MicroPython's json.loads lets a few malformed lines through as non-string keys
            return None, [(str(key), "keys must be strings")]
        new[key] = changes[key]
    errors = check(new, chip)
    if errors:
        return None, [_own(e, changes) for e in errors]
    return new, []


def _own(error, changes):
    """A pin clash names the key the request changed (issue 20: {"buzzer_pin": 25} was
    refused as "led_pin: GPIO 25 already used by buzzer_pin")."""
    key, reason = error
    if key in changes:
        return error
    for other in changes:
        tail = " already used by " + str(other)
        if type(reason) is str and reason.endswith(tail):
            return other, reason[: -len(tail)] + " already used by " + key
    return error


def load(path=FILE, chip=None):
    """Read the configuration. Returns (config, status, errors).

    status is "ok", "defaults:missing", "defaults:corrupt" (not a JSON object) or
    "defaults:invalid" (errors lists the keys refused). Keys missing from an older file take
    their defaults and unknown keys are dropped, both still "ok", so that a firmware update
    keeps the owner's settings. A refused key takes its default and every other key of the
    file is kept - except pins: a refused output pin (or any output pin, when the file
    cannot be read) is None, never a default GPIO that this board may have wired to
    something else. With a motor pin None the launcher runs with its motor disabled.
    """
    try:
        size = os.stat(path)[6]
    except OSError:
        return dict(DEFAULTS), "defaults:missing", []
    if size > MAX_FILE_BYTES:
        return no_outputs(), "defaults:corrupt", [("file", "larger than %d bytes" % MAX_FILE_BYTES)]
    try:
        with open(path) as f:
            text = f.read()
        data = json.loads(text)
    except Exception:
        return no_outputs(), "defaults:corrupt", [("file", "not valid JSON")]
    if type(data) is not dict:
        return no_outputs(), "defaults:corrupt", [("file", "not a JSON object")]
    cfg = dict(DEFAULTS)
    errors = []
    for key in data:
        if key not in DEFAULTS:  # keys an older/newer firmware knew are dropped, not fatal
            continue
        reason = check_value(key, data[key], chip)
        if reason:
            errors.append((key, reason))
            _refuse(cfg, key)
        else:
            cfg[key] = data[key]
    for _ in range(len(DEFAULTS)):  # each round refuses at least one key
        cross = _cross(cfg)
        if not cross:
            break
        for key, reason in cross:
            errors.append((key, reason))
            _refuse(cfg, key)
    if errors:
        return cfg, "defaults:invalid", errors
    return cfg, "ok", []


def _refuse(cfg, key):
    cfg[key] = None if key in OUTPUT_PINS else DEFAULTS[key]


def no_outputs():
    """The defaults with no output pin at all: what runs when the file cannot be read or its
    pins cannot be used (the motor disabled, nothing driven on a GPIO the owner did not
    choose); inputs keep their defaults (an input with a pull-up harms nothing)."""
    cfg = dict(DEFAULTS)
    for key in OUTPUT_PINS:
        cfg[key] = None
    return cfg


def motor_enabled(cfg):
    """False when the configuration leaves the motor without its pins (see load)."""
    return cfg["motor_a_pin"] is not None and cfg["motor_b_pin"] is not None


def save(cfg, path=FILE):
    """Write the configuration atomically: a temporary file, then a rename over the old one,
    so a power cut leaves either the old or the new file, never half of one."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(dumps(cfg))
    try:
        os.rename(tmp, path)
    except OSError:
        # FAT refuses to rename over an existing file (littlefs and POSIX replace it).
        os.remove(path)
        os.rename(tmp, path)


def dumps(cfg):
    """The configuration as JSON text, one key per line in a stable order (human-diffable)."""
    keys = sorted(cfg)
    return (
        "{\n" + ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(cfg[k])) for k in keys) + "\n}\n"
    )
