"""Statistics of the ejection pattern over 100k presses, computed by the firmware's own code
running in MicroPython (and cross-checked against the same module under CPython)."""

from __future__ import annotations

import json
import math
import subprocess

from fw_fakes import FIRMWARE
from fw_harness import micropython_exe
from launcher.config import DEFAULTS
from launcher.pattern import Pattern, Rng, fire_rate

PRESSES = 100_000
SEED = 20260530

# runs inside MicroPython: the histogram of cards per press and the blank-streak lengths
SCRIPT = """
import json, sys
from launcher.pattern import Pattern, Rng
from launcher.config import DEFAULTS
p = Pattern(Rng(%d))
p.configure(DEFAULTS)
cards = {}
streaks = {}
streak = 0
first = []
for i in range(%d):
    c = p.press()
    if i < 200:
        first.append(c)
    cards[c] = cards.get(c, 0) + 1
    if c == 0:
        streak += 1
    else:
        streaks[streak] = streaks.get(streak, 0) + 1
        streak = 0
print(json.dumps({"cards": cards, "streaks": streaks, "first": first}))
"""


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with ``dof`` degrees of freedom (series form of
    the regularised lower incomplete gamma function; accurate for the sizes used here)."""
    s, z = dof / 2.0, x / 2.0
    term = total = 1.0 / s
    n = 1
    while term > 1e-15 * total:
        term *= z / (s + n)
        total += term
        n += 1
    lower = math.exp(s * math.log(z) - z - math.lgamma(s)) * total
    return max(0.0, 1.0 - lower)


def run_in_micropython(seed: int, presses: int) -> dict[str, dict[str, int] | list[int]]:
    proc = subprocess.run(
        [micropython_exe(), "-c", SCRIPT % (seed, presses)],
        cwd=FIRMWARE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, dict[str, int] | list[int]] = json.loads(proc.stdout)
    return data


def test_chi2_helper_matches_known_values() -> None:
    assert abs(chi2_sf(3.841, 1) - 0.05) < 1e-3
    assert abs(chi2_sf(19.675, 11) - 0.05) < 1e-3
    assert abs(chi2_sf(11.345, 3) - 0.01) < 1e-3


def test_default_pattern_over_100k_presses_matches_its_configuration() -> None:
    data = run_in_micropython(SEED, PRESSES)
    cards = {int(k): v for k, v in data["cards"].items()}  # type: ignore[union-attr]
    streaks = {int(k): v for k, v in data["streaks"].items()}  # type: ignore[union-attr]
    assert sum(cards.values()) == PRESSES

    # fire rate: the toy's ~1 in 3, exactly what fire_chance_pct + max_blanks imply
    fires = PRESSES - cards.get(0, 0)
    expected_rate = fire_rate(DEFAULTS["fire_chance_pct"], DEFAULTS["max_blanks"])
    sd = math.sqrt(expected_rate * (1 - expected_rate) / PRESSES)
    assert abs(fires / PRESSES - expected_rate) < 5 * sd, (fires / PRESSES, expected_rate)
    assert 0.30 < fires / PRESSES < 0.40

    # blank streaks: never more than max_blanks in a row, and the bound is reached
    assert max(streaks) == DEFAULTS["max_blanks"] == 3

    # cards per fire: chi-square against burst_weights
    weights = DEFAULTS["burst_weights"]
    total_w = sum(weights)
    observed = [cards.get(i + 1, 0) for i in range(len(weights))]
    assert sum(observed) == fires
    assert set(cards) <= set(range(len(weights) + 1))
    expected = [fires * w / total_w for w in weights]
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    p = chi2_sf(stat, len(weights) - 1)
    print(f"chi-square {stat:.2f} on {len(weights) - 1} dof, p = {p:.3f}")
    assert p > 0.01, (stat, p, observed)
    # "mostly 3-8 cards, rare big bursts"
    assert sum(observed[2:8]) / fires > 0.8
    assert sum(observed[8:]) / fires < 0.1


def test_micropython_and_cpython_give_the_same_presses_for_a_seed() -> None:
    data = run_in_micropython(7, 200)
    p = Pattern(Rng(7))
    p.configure(DEFAULTS)
    assert data["first"] == [p.press() for _ in range(200)]
