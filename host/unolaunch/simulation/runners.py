"""Where the jobs of a run are played: this process, worker processes, or a Dask cluster.

A :class:`Runner` plays :class:`~unolaunch.simulation.jobs.Job` values and hands back their
:class:`~unolaunch.simulation.stats.Stats` as they finish (in any order: they merge
exactly). :func:`open_runner` makes the one a command line asks for; :func:`simulate`
plans a run, plays it on a runner and merges the parts.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext
from multiprocessing.pool import Pool
from typing import Any, Protocol

from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.simulation.jobs import Job, plan, play_games
from unolaunch.simulation.model import TimeModel
from unolaunch.simulation.stats import Stats

__all__ = [
    "CONNECT_TIMEOUT_S",
    "DaskRunner",
    "PoolRunner",
    "Runner",
    "SerialRunner",
    "check_scheduler",
    "default_workers",
    "open_runner",
    "simulate",
]

#: How long to wait for a Dask scheduler to answer before saying it does not.
CONNECT_TIMEOUT_S = 5.0

DASK_MISSING = (
    "--scheduler needs Dask: pip install 'unolaunch[dask]' (or pip install 'dask[distributed]')"
)


class Runner(Protocol):
    """Plays jobs somewhere; ``workers`` is how many play at once."""

    workers: int

    def run(self, jobs: Sequence[Job]) -> Iterator[Stats]:
        """Play ``jobs``; yield each one's statistics as it finishes (any order)."""
        ...


class SerialRunner:
    """Every job in this process, one after the other."""

    workers = 1

    def run(self, jobs: Sequence[Job]) -> Iterator[Stats]:
        """Play ``jobs`` here, in order."""
        return map(play_games, jobs)


class PoolRunner:
    """The jobs spread over a pool of worker processes on this machine."""

    def __init__(self, pool: Pool, workers: int) -> None:
        self.pool = pool
        self.workers = workers

    def run(self, jobs: Sequence[Job]) -> Iterator[Stats]:
        """Play ``jobs`` in the pool's processes, yielding results as they finish."""
        return self.pool.imap_unordered(play_games, jobs)


class DaskRunner:
    """The jobs spread over the workers of a Dask cluster (``dask.distributed.Client``)."""

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        info = client.scheduler_info()
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info["workers"].values()))

    def run(self, jobs: Sequence[Job]) -> Iterator[Stats]:
        """Submit ``jobs`` to the cluster; yield the results as they come back."""
        from dask.distributed import (  # type: ignore[import-not-found, unused-ignore]
            as_completed,
        )

        futures = self.client.map(play_games, list(jobs), pure=False)
        try:
            for future in as_completed(futures):  # type: ignore[no-untyped-call, unused-ignore]
                try:
                    result: Stats = future.result()
                except UnolaunchError:
                    raise  # a game's own error (a game that does not end): as on one core
                except Exception as exc:
                    raise UnolaunchError(
                        f"a Dask worker of {self.address} failed ({type(exc).__name__}: "
                        f"{exc}); every worker needs this unolaunch ({_version()}) "
                        "installed: pip install 'unolaunch[dask]'"
                    ) from None
                yield result
        finally:
            with contextlib.suppress(Exception):  # the cluster may be gone already
                self.client.cancel(futures)


def _version() -> str:
    from unolaunch import __version__

    return __version__


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle (it stops the pool): no traceback from each worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _single_threaded() -> bool:
    """Whether this process runs one thread, counting the threads Python does not know of
    (a numerical library's pool, a test runner's): fork is only safe then."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def pool_context() -> BaseContext:
    """How worker processes start: fork on Linux while this process has a single thread
    (at once: the CLI makes its pool before its progress bar's thread), else a fork
    server (forking from a threaded process may deadlock, and Python 3.12+ warns), else
    spawn. A job carries everything a worker needs, so all three play the same games."""
    if sys.platform.startswith("linux") and _single_threaded():
        return get_context("fork")
    if "forkserver" in get_all_start_methods():
        ctx = get_context("forkserver")
        ctx.set_forkserver_preload(["unolaunch.simulation.jobs"])
        return ctx
    return get_context("spawn")


SCHEDULER_FORMAT = re.compile(r"^(?:(?:tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[\w.-]+):(\d{1,5})$")


def check_scheduler(address: str) -> str:
    """A ``--scheduler`` value checked: ``local``, or a scheduler's address
    (``tcp://HOST:PORT``; a bare ``HOST:PORT`` is taken as tcp). Raises UsageError."""
    if address == "local":
        return address
    m = SCHEDULER_FORMAT.match(address.strip())
    if m is None or not 0 < int(m.group(2)) < 65536:
        raise UsageError(
            f"--scheduler {address!r}: give the address 'dask scheduler' prints "
            "(tcp://HOST:8786) or 'local' for a cluster on this machine"
        )
    address = address.strip()
    return address if "://" in address else f"tcp://{address}"


def _import_dask() -> tuple[Any, Any]:
    try:
        from dask.distributed import (  # type: ignore[import-not-found, unused-ignore]
            Client,
            LocalCluster,
        )
    except ImportError:
        raise UnolaunchError(DASK_MISSING) from None
    return Client, LocalCluster


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own log lines (a worker that left, a connection retried) stay out of the
    report; failures reach the user as one line each."""
    import logging

    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    # A local cluster's worker processes read Dask's logging settings from the environment
    # as they start (a task cancelled by Ctrl-C is no news either).
    env = "DASK_LOGGING__DISTRIBUTED"
    before = os.environ.get(env)
    os.environ[env] = "critical"
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
        if before is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = before


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Ctrl-C held back while the block runs: processes started in it inherit SIGINT
    ignored (it is this process's to handle, as a pool's workers'), and one that comes
    meanwhile is delivered here when the block ends. SIGINT is blocked in this (the main)
    thread and in the threads the block starts, so Linux keeps it pending although it is
    ignored, as long as no other thread takes it (Dask's own, started when it is
    imported, is started in such a block too). Ignoring it alone, as before, dropped a
    Ctrl-C typed while a local cluster started: the simulation went on as if nothing had
    been typed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # multiprocessing's resource tracker, started with the first process, unblocks SIGINT
    # in the thread that starts it (resource_tracker.ensure_running): before, not in here
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a pending one now


@contextmanager
def open_runner(
    workers: int = 1, scheduler: str | None = None, *, timeout: float = CONNECT_TIMEOUT_S
) -> Iterator[Runner]:
    """The runner for ``workers`` processes on this machine (1: this process), or for the
    Dask cluster at ``scheduler`` (``tcp://HOST:PORT``; ``local``: a ``LocalCluster`` of
    ``workers`` processes started here). A scheduler that does not answer within
    ``timeout`` seconds, or a missing Dask, is an :class:`UnolaunchError`."""
    if scheduler is None:
        if workers <= 1:
            yield SerialRunner()
            return
        pool = pool_context().Pool(workers, initializer=_worker_init)
        try:
            yield PoolRunner(pool, workers)
        finally:
            pool.terminate()
            pool.join()
        return
    address = check_scheduler(scheduler)
    # (importing Dask starts a thread of its own: for a local cluster it starts with SIGINT
    # blocked, as _sigint_held needs of every thread but the main one)
    with _sigint_held() if address == "local" else contextlib.nullcontext():
        client_cls, cluster_cls = _import_dask()
    with _quiet_dask():
        cluster = None
        if address == "local":
            # "port 8787 in use" when two clusters run; and the workers start with Ctrl-C
            # ignored (inherited), as a pool's: it is this process's to handle.
            with warnings.catch_warnings(), _sigint_held():
                warnings.simplefilter("ignore")
                try:
                    cluster = cluster_cls(
                        n_workers=max(1, workers), threads_per_worker=1, processes=True,
                        dashboard_address=":0",
                    )  # fmt: skip
                except Exception as exc:
                    raise UnolaunchError(
                        f"--scheduler local: cannot start a Dask cluster on this machine "
                        f"({type(exc).__name__}: {str(exc)[:160]}); try --workers instead"
                    ) from None
        try:
            try:
                client = client_cls(cluster if cluster is not None else address, timeout=timeout)
            except Exception as exc:  # refused, timed out, or something else answered
                detail = f"{type(exc).__name__}: {str(exc)[:120]}"
                why = "" if "Timed out" in str(exc) else f" ({detail})"
                raise UnolaunchError(
                    f"--scheduler {address}: no Dask scheduler answers there within "
                    f"{timeout:g} s{why}; start one with 'dask scheduler' and check the "
                    "address it prints"
                ) from None
            try:
                runner = DaskRunner(client, "a local cluster" if cluster else address)
                if cluster is None and not client.scheduler_info()["workers"]:
                    raise UnolaunchError(
                        f"--scheduler {address}: the scheduler has no workers; start some "
                        f"with 'dask worker {address}' (on each machine with cores to give)"
                    )
                yield runner
            finally:
                client.close()
        finally:
            if cluster is not None:
                cluster.close()


def simulate(
    variant: str,
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    options: dict[str, Any] | None = None,
    max_actions: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
    *,
    launcher_config: Mapping[str, Any] | None = None,
    launcher_source: str = "firmware defaults",
    time_model: TimeModel | None = None,
    workers: int = 1,
    runner: Runner | None = None,
    count_capped: bool = False,
) -> Stats:
    """Play ``games`` games; return the statistics. Deterministic for a given seed, whatever
    ``workers`` is (or the ``runner`` given: see :func:`open_runner`).

    ``launcher_config`` (UNO Attack) is a launcher configuration (default: the firmware's
    defaults); ``time_model`` defaults to :class:`TimeModel` with its motor figures.
    ``progress`` is called with the number of games done so far. A game that reaches
    ``max_actions`` raises :class:`UnolaunchError`, or with ``count_capped`` is counted in
    ``Stats.capped`` and left out of every other figure.
    """
    with _given(runner) if runner is not None else open_runner(max(workers, 1)) as r:
        stats, jobs = plan(
            variant, players, games, seed, bot_names, options, max_actions,
            launcher_config=launcher_config, launcher_source=launcher_source,
            time_model=time_model, chunk=min(200, games // (r.workers * 8) or 1),
            count_capped=count_capped,
        )  # fmt: skip
        stats.workers = r.workers
        start = time.perf_counter()
        for part in r.run(jobs):
            stats.merge(part)
            if progress is not None:
                progress(stats.games + stats.capped)
        stats.seconds = time.perf_counter() - start
    return stats


@contextmanager
def _given(runner: Runner) -> Iterator[Runner]:
    yield runner
