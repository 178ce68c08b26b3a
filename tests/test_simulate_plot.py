"""Issue 11: `simulate --plot` and `tune --plot` draw with the optional matplotlib extra."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import RunCli


def _need_matplotlib() -> None:
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        message = "the plot tests need matplotlib: pip install -e '.[plot]' (or '.[test]')"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_simulate_plot_draws_both_figures(run_cli: RunCli, tmp_path: Path, suffix: str) -> None:
    _need_matplotlib()
    target = tmp_path / f"rounds{suffix}"
    proc = run_cli("simulate", "--variant", "attack", "--players", "3", "--games", "20",
                   "--bot", "heuristic", "--plot", target, "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = target.read_bytes()
    if suffix == ".svg":
        text = data.decode()
        assert "<svg" in text
        assert "cards per press (0 = blank)" in text and "minutes per round" in text
    else:
        assert data.startswith(b"\x89PNG") and len(data) > 10_000
    assert f"plot: {target}" in proc.stdout


def test_tune_plot_draws_the_search(run_cli: RunCli, tmp_path: Path) -> None:
    _need_matplotlib()
    target = tmp_path / "search.svg"
    proc = run_cli("tune", "--players", "3", "--turns-per-round", "36", "--games", "20",
                   "--seed", "5", "--plot", target, "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "turns per round" in target.read_text()


def test_plot_into_a_missing_folder_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("simulate", "--variant", "attack", "--games", "2",
                   "--plot", tmp_path / "no" / "such.svg")  # fmt: skip
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_plot_without_matplotlib_says_how_to_install_it(run_cli: RunCli, tmp_path: Path) -> None:
    from conftest import HOST

    broken = tmp_path / "matplotlib"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise ImportError('No module named matplotlib')\n")
    proc = run_cli("simulate", "--variant", "attack", "--games", "2", "--plot", "x.svg",
                   env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{HOST}"})  # fmt: skip
    assert proc.returncode == 1
    assert "pip install 'unolaunch[plot]'" in proc.stderr and "Traceback" not in proc.stderr
