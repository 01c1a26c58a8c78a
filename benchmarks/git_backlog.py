"""How the embedded git backlog scales: park, lookup and gate at growing backlog sizes.

Parks decisions one at a time through ``bot.core.lifecycle.park`` into a fresh temporary repository
and, each time the backlog reaches one of the sizes, measures:

* park: mean (and median) time of the last 100 parks (each creates a decision with one ``#N``
  dependent, appends to the question log, and scans the log for a precedent);
* find: mean of ``GitTracker.find`` on 200 random parked ids;
* gate: mean of ``lifecycle.gate`` on a branch with 3 ``Blocked-by:`` trailers and 2 index links (50 runs);
* the object database: loose objects and pack size (``git count-objects -v``).

Lookups and gates read a fixed number of small trees (the fan-out keeps every tree small), so
their columns should stay flat while the backlog grows.

    python benchmarks/git_backlog.py                 # sizes 1000,10000
    python benchmarks/git_backlog.py --quick         # sizes 200,1000
    python benchmarks/git_backlog.py --sizes 500,5000
    python benchmarks/git_backlog.py --no-gc         # diagnostic: without git's background gc
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

try:
    import bot  # noqa: F401
except ImportError:  # run as a script from a checkout: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import git

from bot.core import lifecycle
from bot.core.config import Config
from bot.core.models import parse_result
from bot.trackers.git import GitTracker

GATED_BRANCH = "bench/gated"
DEFAULT_SIZES = (1000, 10000)
QUICK_SIZES = (200, 1000)
PARK_WINDOW = 100
LOOKUPS = 200
GATES = 50


@dataclass(frozen=True)
class Row:
    decisions: int
    park_ms: float
    park_median_ms: float
    find_ms: float
    gate_ms: float
    loose_objects: int
    loose_kib: int
    packed_objects: int
    packs: int
    pack_kib: int
    elapsed_s: float


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def decision_id(i: int) -> str:
    return f"bench-{i}-decision-q"


def _result(i: int) -> dict:
    dependents = [f"branch:{GATED_BRANCH}"] if i < 2 else [f"#{i + 1}"]
    return {
        "status": "needs_input",
        "origin": f"bench-{i}",
        "key": "q",
        "question": f"Benchmark question {i}: which way?",
        "options": ["a: the first way", "b: the second way"],
        "work_so_far": {"step": i, "notes": "x" * 200},
        "dependents": dependents,
    }


def make_repo(root: Path) -> Path:
    """A repository with one commit on main and a branch whose commits carry 3 ``Blocked-by:`` trailers."""
    path = root / "repo"
    _git(root, "init", "-q", "-b", "main", str(path))
    _git(path, "config", "user.name", "Bench Owner")
    _git(path, "config", "user.email", "owner@example.com")
    _git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    _git(path, "checkout", "-q", "-b", GATED_BRANCH)
    for i in (2, 3, 4):
        _git(path, "commit", "-q", "--allow-empty", "-m", f"work {i}\n\nBlocked-by: {decision_id(i)}")
    _git(path, "checkout", "-q", "main")
    return path


def count_objects(path: Path) -> dict[str, int]:
    out = _git(path, "count-objects", "-v")
    return {key: int(value) for key, value in (line.split(": ") for line in out.splitlines())}


def _mean_ms(samples: list[float]) -> float:
    return statistics.fmean(samples) * 1000 if samples else float("nan")


def run(
    sizes: list[int],
    *,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    root: Path | None = None,
    auto_gc: bool = True,
) -> list[Row]:
    """Park up to ``max(sizes)`` decisions; measure at every size. Returns one row per size.

    ``auto_gc=False`` (``--no-gc``) is a diagnostic: the tracker never starts ``git gc --auto``, so
    the timings exclude git's background housekeeping, whose cost grows with the repository.
    """
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] < 5:
        raise ValueError("sizes must be at least 5 (the gate uses 5 decisions)")
    rng = random.Random(seed)
    config = Config()
    with tempfile.TemporaryDirectory(prefix="parkbot-bench-", dir=root) as tmp:
        path = make_repo(Path(tmp))
        repo = git.Repo(path)
        tracker = GitTracker(repo, auto_gc=auto_gc)
        rows: list[Row] = []
        park_times: list[float] = []
        started = time.perf_counter()
        try:
            for size in sizes:
                for i in range(len(park_times), size):
                    result = parse_result(_result(i))
                    t0 = time.perf_counter()
                    outcome = lifecycle.park(tracker, result, config)
                    park_times.append(time.perf_counter() - t0)
                    if outcome.action != "created":
                        raise RuntimeError(f"park {i} was {outcome.action}, not created")
                    if progress and (i + 1) % 1000 == 0:
                        progress(f"  parked {i + 1}")
                ids = [decision_id(rng.randrange(size)) for _ in range(LOOKUPS)]
                find_times = []
                for did in ids:
                    t0 = time.perf_counter()
                    found = tracker.find(did)
                    find_times.append(time.perf_counter() - t0)
                    if found is None or found.id != did:
                        raise RuntimeError(f"lookup of {did} returned {found!r}")
                gate_times = []
                for _ in range(GATES):
                    t0 = time.perf_counter()
                    gate = lifecycle.gate(tracker, Config(), f"branch:{GATED_BRANCH}")
                    gate_times.append(time.perf_counter() - t0)
                    if gate.state != "blocked" or len(gate.blocking) != 5:
                        raise RuntimeError(f"unexpected gate {gate}")
                objects = count_objects(path)
                row = Row(
                    decisions=size,
                    park_ms=_mean_ms(park_times[-PARK_WINDOW:]),
                    park_median_ms=statistics.median(park_times[-PARK_WINDOW:]) * 1000,
                    find_ms=_mean_ms(find_times),
                    gate_ms=_mean_ms(gate_times),
                    loose_objects=objects["count"],
                    loose_kib=objects["size"],
                    packed_objects=objects["in-pack"],
                    packs=objects["packs"],
                    pack_kib=objects["size-pack"],
                    elapsed_s=time.perf_counter() - started,
                )
                rows.append(row)
                if progress:
                    progress(f"  {size} decisions done after {row.elapsed_s:.1f} s: {table([row]).splitlines()[-1]}")
        finally:
            tracker.release()
            repo.close()
    return rows


def table(rows: list[Row]) -> str:
    """The results as a markdown table."""
    lines = [
        "| decisions in backlog | time per park | time per lookup (find) | time per gate | git objects |",
        "| ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        objects = (
            f"{r.loose_objects} loose ({r.loose_kib} KiB), "
            f"{r.packed_objects} packed ({r.pack_kib} KiB in {r.packs} packs)"
        )
        park = f"{r.park_ms:.2f} ms (median {r.park_median_ms:.2f})"
        lines.append(f"| {r.decisions:,} | {park} | {r.find_ms:.2f} ms | {r.gate_ms:.2f} ms | {objects} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="comma-separated backlog sizes")
    parser.add_argument("--quick", action="store_true", help=f"smoke run with sizes {QUICK_SIZES}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-gc", action="store_true", help="diagnostic: never start `git gc --auto`")
    args = parser.parse_args(argv)
    sizes = list(QUICK_SIZES) if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"parking up to {max(sizes):,} decisions one at a time ...", file=sys.stderr)
    rows = run(sizes, seed=args.seed, progress=lambda m: print(m, file=sys.stderr), auto_gc=not args.no_gc)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
