"""What an agent waits for: command start-up, parking through the API, and how soon ``wait`` sees an answer.

Prints three Markdown tables (numbers, not tests; tests/test_startup.py pins *which* modules load):

* start-up: each command run as a fresh process, paired with ``python -c pass`` of the same
  interpreter (bytecode cached), median of the per-pair ratios; the targets are the ones in
  docs/development/performance.md. Two rows have no target and say what the others are made of: ``gate`` in a
  repository with a configuration file (PyYAML is imported to read it), and importing click and
  pydantic and building one validator, which every local command does before any of its own work;
* park in process, through :class:`bot.Backlog`, on an embedded backlog that already holds N
  decisions (median and 90th percentile of new decisions filed one after another);
* wait: a ``parkbot wait`` process is waiting; the answer is recorded; how long until it exits.

    python benchmarks/startup.py              # 15 pairs, a 1,000-decision backlog, 5 waits
    python benchmarks/startup.py --quick      # 5 pairs, 100 decisions, 2 waits
    python benchmarks/startup.py --against 9550a5c   # first: start-up then and now, under the same load
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
try:
    import parkbot
except ImportError:  # run as a script from a checkout: make the package importable
    sys.path.insert(0, str(ROOT))

from parkbot import Backlog  # noqa: E402 - after making the package importable

EXAMPLE = ROOT / "examples" / "needs_input.json"
#: command -> the largest acceptable median ratio to ``python -c pass``.
TARGETS = {"--help": 3.5, "gate --ref": 6.0, "show ID": 6.0, "park": 7.0}
#: What every local command imports before doing anything of its own (no parkbot code).
LIBRARIES = "import click; from pydantic import BaseModel, Field, TypeAdapter; TypeAdapter(int)"
PARK_TARGET_MS = 20.0
WAIT_TARGET_S = 1.0


@dataclass(frozen=True)
class Startup:
    command: str
    median_ms: float
    baseline_ms: float
    ratio: float
    cpu_ratio: float
    target: float | None

    @property
    def label(self) -> str:
        return self.command if self.command.startswith("python") else f"`parkbot {self.command}`"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.name", "Bench")
    _git(path, "config", "user.email", "bench@example.com")
    _git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    _git(path, "branch", "agent/billing-42")
    return path


def result(i: int) -> dict[str, object]:
    return {
        "status": "needs_input",
        "origin": f"bench-{i}",
        "key": "q",
        "question": f"Question {i}: refund the remaining items or the full total?",
        "options": ["remaining: remaining items", "full: the full total"],
        "work_so_far": {"step": i},
    }


def parkbot() -> list[str]:
    """The console script as users run it, next to this interpreter (else ``python -m parkbot``)."""
    script = Path(sys.executable).with_name("parkbot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "parkbot"]


def cache_bytecode(tree: Path) -> None:
    """Write the bytecode of ``tree``'s package, which a run with PYTHONDONTWRITEBYTECODE set would never do:
    every command would compile its modules again, and the figures would measure the compiler."""
    compileall.compile_dir(str(tree / "bot" / "parkbot"), quiet=1)


def _timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) milliseconds of one run; CPU time suffers less from a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def startup(pairs: int, root: Path) -> list[Startup]:
    repo = make_repo(root / "startup")
    subprocess.run([*parkbot(), "park", str(EXAMPLE)], cwd=repo, check=True, capture_output=True)
    configured = make_repo(root / "configured")
    (configured / ".github").mkdir()
    (configured / ".github" / "parkbot.yml").write_text("owners:\n  default: bench@example.com\n", encoding="utf-8")
    subprocess.run([*parkbot(), "park", str(EXAMPLE)], cwd=configured, check=True, capture_output=True)
    files = root / "results"
    files.mkdir()
    #: row -> (the command of run n, where it runs)
    commands: dict[str, tuple[Callable[[int], list[str]], Path]] = {
        "--help": (lambda n: [*parkbot(), "--help"], repo),
        "gate --ref": (lambda n: [*parkbot(), "gate", "--ref", "agent/billing-42"], repo),
        "show ID": (lambda n: [*parkbot(), "show", "billing-42-decision-refund"], repo),
        "park": (lambda n: [*parkbot(), "park", str(_result_file(files, n))], repo),
        "gate --ref (with .github/parkbot.yml)": (
            lambda n: [*parkbot(), "gate", "--ref", "agent/billing-42"],
            configured,
        ),
        "python -c: import click and pydantic, build one validator": (
            lambda n: [sys.executable, "-c", LIBRARIES],
            repo,
        ),
    }
    baseline = [sys.executable, "-c", "pass"]
    cache_bytecode(ROOT)
    for argv in ([*parkbot(), "--help"], baseline):  # warm the page cache
        _timed(argv, repo)
    rows = []
    for name, (command, cwd) in commands.items():
        ratios, cpu_ratios, times, bases = [], [], [], []
        for n in range(pairs):
            base, base_cpu = _timed(baseline, cwd)
            took, took_cpu = _timed(command(n), cwd)
            bases.append(base)
            times.append(took)
            ratios.append(took / base)
            cpu_ratios.append(took_cpu / max(base_cpu, 0.001))
        rows.append(
            Startup(
                name,
                statistics.median(times),
                statistics.median(bases),
                statistics.median(ratios),
                statistics.median(cpu_ratios),
                TARGETS.get(name),
            )
        )
    return rows


def against(revision: str, pairs: int, root: Path) -> list[tuple[str, float, float]]:
    """(command, CPU-time ratio of ``revision``, of this checkout), both run as ``python -m parkbot`` under one load.

    Interleaved runs of the two versions share whatever else the machine is doing, so their ratio to
    ``python -c pass`` compares them fairly even where the absolute ratios are inflated by a busy machine.
    """
    old = root / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(old), revision], check=True)
    try:
        cache_bytecode(old)
        cache_bytecode(ROOT)
        repo = make_repo(root / "against")
        env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
        subprocess.run([*parkbot(), "park", str(EXAMPLE)], cwd=repo, check=True, capture_output=True)
        versions = {"old": {**env, "PYTHONPATH": str(old)}, "new": {**env, "PYTHONPATH": str(ROOT / "bot")}}
        rows = []
        for name, args in {
            "--help": ["--help"],
            "gate --ref": ["gate", "--ref", "agent/billing-42"],
            "show ID": ["show", "billing-42-decision-refund"],
        }.items():
            ratios: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(pairs):
                base = _timed([sys.executable, "-c", "pass"], repo)[1]
                for version, version_env in versions.items():
                    took = _cpu([sys.executable, "-m", "parkbot", *args], repo, version_env)
                    ratios[version].append(took / max(base, 0.001))
            rows.append((name, statistics.median(ratios["old"]), statistics.median(ratios["new"])))
        return rows
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)


def _cpu(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def _result_file(folder: Path, n: int) -> Path:
    path = folder / f"result-{n}.json"
    path.write_text(json.dumps(result(100_000 + n)), encoding="utf-8")
    return path


def park_in_process(size: int, samples: int, root: Path) -> tuple[float, float]:
    """(median, p90) milliseconds of ``Backlog.park`` on a backlog of ``size`` decisions."""
    repo = make_repo(root / "api")
    with Backlog.open(repo=repo, backend="git") as backlog:
        for i in range(size):
            backlog.park(result(i))
        times = []
        for i in range(size, size + samples):
            start = time.perf_counter()
            backlog.park(result(i))
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def wait_latency(runs: int, root: Path) -> list[float]:
    """Seconds from the answer being recorded to ``parkbot wait`` exiting with it."""
    repo = make_repo(root / "wait")
    latencies = []
    with Backlog.open(repo=repo, backend="git") as backlog:
        for i in range(runs):
            did = backlog.park(result(200_000 + i)).id  # type: ignore[union-attr]
            waiting = subprocess.Popen(
                [*parkbot(), "wait", did, "--timeout", "60s"],
                cwd=repo,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert waiting.stderr is not None
            waiting.stderr.readline()  # "waiting up to ..."
            time.sleep(1.5)  # let it settle into polling
            answered = time.perf_counter()
            backlog.resolve(did, "full", by="bench@example.com")
            waiting.wait(timeout=60)
            latencies.append(time.perf_counter() - answered)
            if waiting.returncode != 0:
                raise RuntimeError(f"wait exited {waiting.returncode}")
            waiting.communicate()
    return latencies


def tables(rows: list[Startup], park: tuple[float, float], size: int, waits: list[float]) -> str:
    lines = [
        "| command | median | `python -c pass` | median ratio | CPU-time ratio | target | |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        target, ok = (
            ("", "") if row.target is None else (f"<= {row.target}x", "ok" if row.ratio <= row.target else "over")
        )
        lines.append(
            f"| {row.label} | {row.median_ms:.0f} ms | {row.baseline_ms:.0f} ms | "
            f"{row.ratio:.1f}x | {row.cpu_ratio:.1f}x | {target} | {ok} |"
        )
    median, p90 = park
    lines += [
        "",
        "| park through the API | median | 90th percentile | target |",
        "| --- | --- | --- | --- |",
        f"| backlog of {size:,} decisions | {median:.1f} ms | {p90:.1f} ms | < {PARK_TARGET_MS:.0f} ms median |",
    ]
    lines += [
        "",
        "| wait: answer recorded -> `parkbot wait` exits | median | slowest | target |",
        "| --- | --- | --- | --- |",
        f"| {len(waits)} runs | {statistics.median(waits):.2f} s | {max(waits):.2f} s | < {WAIT_TARGET_S:.0f} s |",
    ]
    return "\n".join(lines)


def run(pairs: int, size: int, samples: int, waits: int, root: Path | None = None) -> str:
    with tempfile.TemporaryDirectory(prefix="parkbot-startup-", dir=root) as folder:
        work = Path(folder)
        rows = startup(pairs, work)
        park = park_in_process(size, samples, work)
        latencies = wait_latency(waits, work)
    return tables(rows, park, size, latencies)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer pairs, a smaller backlog, fewer waits")
    parser.add_argument("--against", metavar="REV", help="also compare start-up with this git revision")
    args = parser.parse_args(argv)
    if args.against:
        with tempfile.TemporaryDirectory(prefix="parkbot-against-") as folder:
            rows = against(args.against, 5 if args.quick else 11, Path(folder))
        print(f"| command | CPU-time ratio at {args.against} | now |\n| --- | --- | --- |")
        for name, old, new in rows:
            print(f"| `parkbot {name}` | {old:.1f}x | {new:.1f}x |")
        print()
    if shutil.which("git") is None:
        print("git is needed", file=sys.stderr)
        return 2
    os.environ.pop("PARKBOT_BACKEND", None)
    if args.quick:
        print(run(pairs=5, size=100, samples=20, waits=2))
    else:
        print(run(pairs=15, size=1000, samples=50, waits=5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
