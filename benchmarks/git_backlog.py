"""What the embedded git backlog costs as it grows: whole `parkbot` processes at 10, 1,000 and 10,000 decisions.

For each size the backlog is built in-process (``parkbot.core.lifecycle.park`` with the default
configuration, precedents on; every tenth decision is resolved, so the log, the answers and the
precedent index fill too), because building 10,000 decisions through 10,000 processes would take
hours. Then every command is timed the way a person or a CI job runs it: a whole ``parkbot``
process in the repository (Python start, imports, the configuration looked up, git's helpers):

* ``park`` a new decision, ``show`` one, ``gate --ref`` a branch with three ``Blocked-by:``
  trailers (exit 1: blocked), ``list``, ``list --state all --json``, ``resolve`` an open decision,
  and ``report``;
* each is run ``--repeat`` times; the table shows the median wall time and CPU time and the largest
  resident set (``ru_maxrss`` from ``wait4``: the largest of the process and the git helpers it waited
  for). Each is started from a small launcher process, because a child's ``ru_maxrss`` starts at the
  resident set of the process it was forked from, and the benchmark holds the backlog it built.

Also measured: new git objects and commits per park (the last parks of each size, counted loose
with packing paused), the in-process time per park, and the ``.git`` folder on disk after the build
(packing left on, as every user has it: no ``git gc`` is ever run).

Before timing, the ``bot`` package is compiled to bytecode, as ``pip install`` leaves it (a checkout
run with ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module in every process).

Building 10,000 decisions takes minutes; ``--keep DIR`` keeps a copy of the backlog of each size
(as built, before any command is timed) and its storage figures in ``DIR``, and a later run with the
same ``--keep DIR`` times commands on fresh copies of those instead of building again.

    python benchmarks/git_backlog.py                     # sizes 10,1000,10000
    python benchmarks/git_backlog.py --quick             # sizes 10,200
    python benchmarks/git_backlog.py --sizes 10,500 --repeat 1
    python benchmarks/git_backlog.py --keep /tmp/backlogs   # build once; later runs reuse the backlogs
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

try:
    import parkbot  # noqa: F401
except ImportError:  # run as a script from a checkout: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

import git

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.models import parse_result
from parkbot.trackers.git import GitTracker

GATED_BRANCH = "bench/gated"
DEFAULT_SIZES = (10, 1000, 10000)
QUICK_SIZES = (10, 200)
#: Parks at the end of each size whose new objects are counted one by one.
OBJECT_WINDOW = 100
RESOLVE_EVERY = 10
OWNER = "owner@example.com"
COMMANDS = ("park", "show", "gate --ref", "list", "list --state all --json", "resolve", "report")
#: With ``--keep``: the storage figures of a kept backlog, beside its repository.
KEPT_ROW = "row.json"


@dataclass(frozen=True)
class Timing:
    seconds: float
    max_rss_kib: int
    cpu_seconds: float = 0.0


@dataclass
class Row:
    decisions: int
    park_in_process_ms: float
    objects_per_park: float
    max_objects_per_park: int
    commits_per_park: float
    git_kib: int
    loose_objects: int
    packs: int
    commands: dict[str, Timing] = field(default_factory=dict)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def decision_id(i: int) -> str:
    return f"bench-{i}-decision-q{i % 1000}"


def _word(i: int) -> str:
    """A distinct word per number (questions stay distinct once numbers are normalized away)."""
    letters = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _result(i: int) -> dict[str, object]:
    dependents = [f"branch:{GATED_BRANCH}"] if i < 3 else [f"#{i + 1}"]
    return {
        "status": "needs_input",
        "origin": f"bench-{i}",
        "key": f"q{i % 1000}",
        "question": f"Which way for the {_word(i)} account?",
        "options": ["a: the first way", "b: the second way"],
        "work_so_far": {"step": i, "notes": "x" * 200},
        "run": f"run-{i // 20}",
        "dependents": dependents,
    }


def make_repo(root: Path) -> Path:
    """A repository with one commit on main and a branch whose commits carry 3 ``Blocked-by:`` trailers."""
    path = root / "repo"
    _git(root, "init", "-q", "-b", "main", str(path))
    _git(path, "config", "user.name", "Bench Owner")
    _git(path, "config", "user.email", OWNER)
    _git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    parent = _git(path, "rev-parse", "HEAD").strip()
    tree = _git(path, "rev-parse", "HEAD^{tree}").strip()
    for i in range(3):
        message = f"work {i}\n\nBlocked-by: {decision_id(i)}"
        parent = _git(path, "commit-tree", tree, "-p", parent, "-m", message).strip()
    _git(path, "update-ref", f"refs/heads/{GATED_BRANCH}", parent)
    return path


def commits(path: Path, ref: str) -> int:
    done = subprocess.run(["git", "rev-list", "--count", ref], cwd=path, capture_output=True, text=True, check=False)
    return int(done.stdout) if done.returncode == 0 else 0


def count_objects(path: Path) -> dict[str, int]:
    out = _git(path, "count-objects", "-v")
    return {key: int(value) for key, value in (line.split(": ") for line in out.splitlines())}


def disk_kib(folder: Path) -> int:
    """Space the folder takes on disk (like ``du -sk``)."""
    total = 0
    for dirpath, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
    return total // 1024


def parkbot_command() -> list[str]:
    script = Path(sys.executable).with_name("parkbot")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from parkbot.cli import main; main()"]


#: Runs one command and prints its wall time and ``wait4`` figures. Timed processes are started from this
#: small process, not from the benchmark: a child's ``ru_maxrss`` starts at its parent's resident set
#: (the memory it was forked from is counted until ``exec`` replaces it), and the benchmark holds the
#: backlog it built in memory.
LAUNCHER = """
import json, os, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
elapsed = time.perf_counter() - started
figures = [elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)]
print(json.dumps(figures), file=sys.stderr)
"""


def launch(cwd: Path, command: list[str], stdin: bytes | None = None) -> tuple[Timing, int, str]:
    """Run ``command`` from :data:`LAUNCHER`: its timing, exit code and what it printed on stderr."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command], cwd=cwd, input=stdin or b"", capture_output=True, check=False
    )
    *said, last = done.stderr.decode("utf-8", "replace").rstrip("\n").split("\n")
    elapsed, max_rss_kib, cpu, code = json.loads(last)
    return Timing(elapsed, int(max_rss_kib), cpu), int(code), "\n".join(said)


def timed(cwd: Path, args: list[str], *, expect: int, stdin: bytes | None = None) -> Timing:
    """Run one whole ``parkbot`` process; its wall time and peak memory."""
    timing, code, error = launch(cwd, [*parkbot_command(), *args], stdin)
    if code != expect:
        raise RuntimeError(f"parkbot {' '.join(args)} exited {code}, not {expect}: {error}")
    return timing


#: What the adapter alone costs for a listing: a Python process that only opens the backlog and reads it.
READERS = {
    "iter_decisions()": "sum(1 for _ in tracker.iter_decisions())",
    "iter_decisions() + iter_log()": "sum(1 for _ in tracker.iter_decisions()) + sum(1 for _ in tracker.iter_log())",
}
READER = """
import sys, time
from parkbot.trackers.git import GitTracker
tracker = GitTracker.open(".")
started = time.perf_counter()
count = {expression}
print(time.perf_counter() - started, count, file=sys.stderr)
"""


def timed_reader(cwd: Path, expression: str) -> Timing:
    """The adapter's own reading cost: time inside the process (imports excluded), the process's peak memory."""
    timing, code, said = launch(cwd, [sys.executable, "-c", READER.format(expression=expression)])
    if code != 0:
        raise RuntimeError(f"reading the backlog failed: {said}")
    return Timing(float(said.split()[-2]), timing.max_rss_kib, timing.cpu_seconds)


class Bench:
    """One growing backlog, measured at each size."""

    def __init__(self, root: Path, progress: Callable[[str], None] | None) -> None:
        self.path = make_repo(root)
        self.repo = git.Repo(self.path)
        self.tracker = GitTracker(self.repo)
        self.config = Config()
        self.progress = progress
        self.parked = 0
        self.park_times: list[float] = []
        self.extra = 0  # decisions the timed `park` commands added

    def close(self) -> None:
        self.tracker.release()
        self.repo.close()

    def park(self, i: int) -> None:
        started = time.perf_counter()
        outcome = lifecycle.park(self.tracker, parse_result(_result(i)), self.config)
        self.park_times.append(time.perf_counter() - started)
        if outcome.action != "created":
            raise RuntimeError(f"park {i} was {outcome.action}, not created")
        if i % RESOLVE_EVERY == RESOLVE_EVERY - 1:
            lifecycle.resolve(self.tracker, self.config, decision_id(i), "b", Actor(OWNER))

    def grow(self, size: int) -> tuple[float, int, float]:
        """Park up to ``size``; the last parks are counted object by object (packing paused)."""
        window_start = max(self.parked, size - OBJECT_WINDOW)
        for i in range(self.parked, window_start):
            self.park(i)
            if self.progress and (i + 1) % 1000 == 0:
                self.progress(f"  parked {i + 1}")
        packer = self.tracker.backlog.packer
        packer.enabled = False
        counts: list[int] = []
        made: list[int] = []
        for i in range(window_start, size):
            loose = count_objects(self.path)["count"]
            before = commits(self.path, self.tracker.ref)
            started = time.perf_counter()
            outcome = lifecycle.park(self.tracker, parse_result(_result(i)), self.config)
            self.park_times.append(time.perf_counter() - started)
            if outcome.action != "created":
                raise RuntimeError(f"park {i} was {outcome.action}, not created")
            counts.append(count_objects(self.path)["count"] - loose)
            made.append(commits(self.path, self.tracker.ref) - before)
        packer.enabled = True
        packer.wrote(sum(counts))
        for i in range(window_start, size):  # resolve the window's share afterwards (not counted as parks)
            if i % RESOLVE_EVERY == RESOLVE_EVERY - 1:
                lifecycle.resolve(self.tracker, self.config, decision_id(i), "b", Actor(OWNER))
        self.parked = size
        return statistics.fmean(counts), max(counts), statistics.fmean(made)

    def time_commands(self, size: int, repeat: int, only: frozenset[str] | None = None) -> dict[str, Timing]:
        timings = time_commands(self.path, size, repeat, only, first_extra=self.extra)
        self.extra += repeat
        return timings


def time_commands(
    path: Path, size: int, repeat: int, only: frozenset[str] | None = None, *, first_extra: int = 0
) -> dict[str, Timing]:
    """Time each command ``repeat`` times on the backlog of ``size`` decisions in ``path`` (which they change)."""
    results: dict[str, list[Timing]] = {name: [] for name in COMMANDS}
    open_ids = [decision_id(i) for i in range(3, size) if i % RESOLVE_EVERY != RESOLVE_EVERY - 1]
    for n in range(repeat):
        extra = 1_000_000 + size * 10 + first_extra + n
        result = json.dumps({**_result(extra), "origin": f"timed-{extra}", "dependents": []}).encode()
        runs = {
            "park": (["park", "-"], 0, result),
            "show": (["show", open_ids[n % len(open_ids)]], 0, None),
            "gate --ref": (["gate", "--ref", GATED_BRANCH], 1, None),
            "list": (["list"], 0, None),
            "list --state all --json": (["list", "--state", "all", "--json"], 0, None),
            "resolve": (["resolve", open_ids[-1 - n], "--answer", "a"], 0, None),
            "report": (["report"], 0, None),
        }
        for name, (args, code, stdin) in runs.items():
            if only is None or name in only:
                results[name].append(timed(path, args, expect=code, stdin=stdin))
    for name, expression in READERS.items():
        if only is None or name in only:
            results[name] = [timed_reader(path, expression) for _ in range(repeat)]
    return {
        name: Timing(
            statistics.median(t.seconds for t in runs),
            max(t.max_rss_kib for t in runs),
            statistics.median(t.cpu_seconds for t in runs),
        )
        for name, runs in results.items()
        if runs
    }


def compile_bytecode() -> None:
    """Compile the ``bot`` package, as ``pip install`` does, so no timed process compiles a module."""
    import parkbot

    compileall.compile_dir(Path(parkbot.__file__).resolve().parent, quiet=1)


def _kept(keep: Path, size: int) -> Path:
    return keep / str(size)


def keep_backlog(keep: Path, row: Row, repo: Path) -> None:
    """Copy the backlog of ``row.decisions`` decisions (as built) and its storage figures into ``keep``."""
    folder = _kept(keep, row.decisions)
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(repo, folder / "repo", symlinks=True)
    figures = {k: v for k, v in dataclasses.asdict(row).items() if k != "commands"}
    (folder / KEPT_ROW).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def kept_rows(keep: Path, sizes: list[int]) -> list[Row] | None:
    """The storage figures of the kept backlogs of every size, or None when one is missing."""
    if not all((_kept(keep, size) / KEPT_ROW).is_file() for size in sizes):
        return None
    return [Row(**json.loads((_kept(keep, size) / KEPT_ROW).read_text(encoding="utf-8"))) for size in sizes]


def run(
    sizes: list[int],
    *,
    repeat: int = 3,
    progress: Callable[[str], None] | None = None,
    root: Path | None = None,
    only: frozenset[str] | None = None,
    keep: Path | None = None,
) -> list[Row]:
    """Build up to ``max(sizes)`` decisions; measure at every size. Returns one row per size.

    ``only`` limits the timed commands to these names (of :data:`COMMANDS` and :data:`READERS`).
    ``keep`` is a folder for the built backlogs: kept there when built, reused when every size is there.
    """
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] < 5:
        raise ValueError("sizes must be at least 5 (the gate uses 3 decisions, resolve needs open ones)")
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="parkbot-bench-", dir=root) as tmp:
        reused = kept_rows(keep, sizes) if keep is not None else None
        if reused is not None and keep is not None:
            for row in reused:
                copy = Path(tmp) / str(row.decisions)
                shutil.copytree(_kept(keep, row.decisions) / "repo", copy, symlinks=True)
                row.commands = time_commands(copy, row.decisions, repeat, only)
                if progress:
                    progress(f"  {row.decisions:,} decisions measured (kept backlog)")
            return reused
        return _build_and_measure(Path(tmp), sizes, repeat, progress, only, keep)


def _build_and_measure(
    tmp: Path,
    sizes: list[int],
    repeat: int,
    progress: Callable[[str], None] | None,
    only: frozenset[str] | None,
    keep: Path | None,
) -> list[Row]:
    rows: list[Row] = []
    bench = Bench(tmp, progress)
    try:
        for size in sizes:
            first = len(bench.park_times)
            mean_objects, max_objects, per_park = bench.grow(size)
            park_ms = statistics.fmean(bench.park_times[first:][-OBJECT_WINDOW:]) * 1000
            objects = count_objects(bench.path)
            row = Row(
                decisions=size,
                park_in_process_ms=park_ms,
                objects_per_park=mean_objects,
                max_objects_per_park=max_objects,
                commits_per_park=per_park,
                git_kib=disk_kib(bench.path / ".git"),
                loose_objects=objects["count"],
                packs=objects["packs"],
            )
            if keep is not None:
                keep_backlog(keep, row, bench.path)
            row.commands = bench.time_commands(size, repeat, only)
            rows.append(row)
            if progress:
                progress(f"  {size:,} decisions measured")
    finally:
        bench.close()
    return rows


def table(rows: list[Row]) -> str:
    """The results as two markdown tables: storage per size, then each command's time and memory."""
    lines = [
        "| decisions in backlog | new objects per park (mean / max) | commits per park | "
        "`.git` on disk | loose objects | packs | park, in-process |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.decisions:,} | {r.objects_per_park:.1f} / {r.max_objects_per_park} | {r.commits_per_park:g} | "
            f"{r.git_kib / 1024:.1f} MB | {r.loose_objects:,} | {r.packs} | {r.park_in_process_ms:.1f} ms |"
        )
    lines += [
        "",
        "Whole `parkbot` processes: median wall time (CPU time of the process), peak memory.",
        "",
        "| command | " + " | ".join(f"{r.decisions:,} decisions" for r in rows) + " |",
    ]
    lines.append("| --- | " + " | ".join("---:" for _ in rows) + " |")
    for name in (*COMMANDS, *READERS):
        if not all(name in r.commands for r in rows):
            continue
        cells = [
            f"{r.commands[name].seconds:.2f} s ({r.commands[name].cpu_seconds:.2f} s CPU), "
            f"{r.commands[name].max_rss_kib / 1024:.0f} MB"
            for r in rows
        ]
        label = f"`parkbot {name}`" if name in COMMANDS else f"adapter only: `{name}` (no imports timed)"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    cpus = os.cpu_count() or 0
    git_version = _git(Path.cwd(), "--version").strip()
    return f"{platform.system()} {platform.machine()}, {cpus} CPUs, Python {platform.python_version()}, {git_version}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="comma-separated backlog sizes")
    parser.add_argument("--quick", action="store_true", help=f"smoke run with sizes {QUICK_SIZES}")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command per size (median shown)")
    parser.add_argument(
        "--keep", type=Path, default=None, metavar="DIR", help="keep the built backlogs in DIR, or reuse them from it"
    )
    args = parser.parse_args(argv)
    sizes = list(QUICK_SIZES) if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"building up to {max(sizes):,} decisions (unless kept) ...", file=sys.stderr)
    rows = run(sizes, repeat=args.repeat, progress=lambda m: print(m, file=sys.stderr), keep=args.keep)
    print(f"Machine: {machine()}\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
