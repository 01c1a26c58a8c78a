"""What an agent waits for: command start-up next to the tools it already runs, parking through the API,
and how soon ``wait`` sees an answer.

Start-up is measured the way users install parkbot: a fresh virtual environment (in a temporary
folder) with a plain, non-editable ``pip install`` of this checkout, and pytest, black and mypy from
PyPI in the same environment; every module there compiled to bytecode. Each row is a whole process
(the console script as users run it), and its cost is the CPU time (user + system) of that process
and every child it waited for (git's helpers), read with ``getrusage(RUSAGE_CHILDREN)``: CPU time
suffers much less than wall time from a shared, busy machine. Runs are interleaved: each round runs
``python -c pass`` and every row once, so all rows share whatever else the machine is doing; the
table shows the median over the rounds (15 by default), and the ratio of that median to the median
of ``python -c pass``.

Rows: ``parkbot gate --ref B``, ``parkbot show ID``, ``parkbot list`` (a backlog of 100 decisions),
``parkbot park`` (a new decision each round) and ``parkbot --help``, each in a repository without
and with a ``.github/parkbot.yml``; and ``pytest --version``, ``black --version``, ``mypy --version``.
The targets (docs/agents.md): gate, show and list start faster than the fastest of the three tools;
park no slower than it; ``--help`` at most half of it; a configuration file adds at most 15 %.

Also: ``Backlog.park`` in process on a backlog of N decisions (median and 90th percentile), and
``wait``: a ``parkbot wait`` process is waiting; the answer is recorded; how long until it exits.

    python benchmarks/startup.py                  # a new environment, 15 rounds, 1,000 decisions, 5 waits
    python benchmarks/startup.py --venv /tmp/pb   # keep the environment there (made if missing,
                                                  # this checkout reinstalled into it otherwise)
    python benchmarks/startup.py --quick          # 5 rounds, 100 decisions, 2 waits
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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
    import parkbot  # noqa: F401
except ImportError:  # run as a script from a checkout: make the package importable
    sys.path.insert(0, str(ROOT / "bot"))

from parkbot import Backlog  # noqa: E402 - after making the package importable

EXAMPLE = ROOT / "examples" / "needs_input.json"
#: The tools an agent's shell and CI already run, installed from PyPI next to parkbot.
PEERS = ("pytest", "black", "mypy")
#: How many decisions the backlog ``list`` reads holds.
LIST_SIZE = 100
#: A configuration file may cost at most this much more than none.
CONFIG_ALLOWANCE = 1.15
PARK_TARGET_MS = 20.0
WAIT_TARGET_S = 1.0
BRANCH = "agent/billing-42"
SHOWN = "billing-42-decision-refund"
CONFIG = "owners:\n  default: bench@example.com\n"


@dataclass(frozen=True)
class Environment:
    """A virtual environment's interpreter and its scripts folder."""

    python: Path

    @property
    def bin(self) -> Path:
        return self.python.parent

    def script(self, name: str) -> list[str]:
        path = self.bin / name
        return [str(path)] if path.exists() else [str(self.python), "-m", name]

    def has(self, name: str) -> bool:
        return (self.bin / name).exists()

    @classmethod
    def current(cls) -> Environment:
        """This interpreter's environment (for a quick check of the benchmark itself, not for figures)."""
        return cls(Path(sys.executable))


def _quiet(argv: list[str], **kwargs: object) -> None:
    subprocess.run(argv, check=True, capture_output=True, **kwargs)  # type: ignore[call-overload]


def build_environment(folder: Path) -> Environment:
    """A virtual environment in ``folder`` with this checkout installed as users install it, and the peers.

    Made if missing; otherwise this checkout is reinstalled into it (a plain install copies the package,
    so an environment made before a change measures the code as it was).
    """
    env = Environment(folder / "bin" / "python")
    pip = [str(env.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not env.python.exists():
        _quiet([sys.executable, "-m", "venv", str(folder)])
        _quiet([*pip, str(ROOT), *PEERS], cwd=folder)
    else:
        _quiet([*pip, "--no-deps", "--force-reinstall", str(ROOT)], cwd=folder)
    # pip compiles what it installs; compile the rest too (the standard library of a fresh interpreter
    # may not be), so no run pays for the compiler.
    paths = subprocess.run(
        [
            str(env.python),
            "-c",
            "import sysconfig, json; print(json.dumps(sorted(set(sysconfig.get_paths().values()))))",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    folders = [p for p in json.loads(paths.stdout) if Path(p).is_dir() and not p.endswith(("bin", "include"))]
    subprocess.run([str(env.python), "-m", "compileall", "-q", "-j", "0", *folders], capture_output=True, check=False)
    return env


def _git(cwd: Path, *args: str) -> None:
    _quiet(["git", *args], cwd=cwd)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.name", "Bench")
    _git(path, "config", "user.email", "bench@example.com")
    _git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    _git(path, "branch", BRANCH)
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


#: Fills a repository's backlog through the installed package (argv: repository, first, count).
FILL = """\
import json, sys
from parkbot import Backlog
repo, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with Backlog.open(repo=repo, backend="git") as backlog:
    for i in range(first, first + count):
        backlog.park(json.loads(sys.stdin.readline()))
"""


def backlog_repo(env: Environment, path: Path, *, configured: bool, size: int) -> Path:
    """A repository whose backlog holds the example decision and ``size - 1`` others."""
    make_repo(path)
    if configured:
        (path / ".github").mkdir()
        (path / ".github" / "parkbot.yml").write_text(CONFIG, encoding="utf-8")
    _quiet([*env.script("parkbot"), "park", str(EXAMPLE)], cwd=path, env=_clean_env())
    lines = "".join(json.dumps(result(i)) + "\n" for i in range(size - 1))
    _quiet([str(env.python), "-c", FILL, str(path), "0", str(size - 1)], input=lines.encode(), env=_clean_env())
    return path


def _clean_env() -> dict[str, str]:
    """The environment a user's shell would give: none of a checkout's paths or parkbot's own settings."""
    drop = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHOME", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PARKBOT_")}


def cpu_ms(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """CPU milliseconds (user + system) of one whole process and every child it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


@dataclass(frozen=True)
class Row:
    name: str
    kind: str  # "baseline", "parkbot" or "peer"
    median_ms: float
    ratio: float
    target: str = ""
    holds: bool | None = None


def _result_file(folder: Path, n: int) -> Path:
    path = folder / f"result-{n}.json"
    path.write_text(json.dumps(result(100_000 + n)), encoding="utf-8")
    return path


def startup(env: Environment, rounds: int, root: Path, size: int = LIST_SIZE) -> list[Row]:
    """Every row run once per round, rounds interleaved; medians and the targets they meet."""
    plain = backlog_repo(env, root / "plain", configured=False, size=size)
    configured = backlog_repo(env, root / "configured", configured=True, size=size)
    files = root / "results"
    files.mkdir()
    parkbot_cmd = env.script("parkbot")
    commands: dict[str, Callable[[int], list[str]]] = {
        f"gate --ref {BRANCH}": lambda n: [*parkbot_cmd, "gate", "--ref", BRANCH],
        f"show {SHOWN}": lambda n: [*parkbot_cmd, "show", SHOWN],
        f"list ({size} decisions)": lambda n: [*parkbot_cmd, "list"],
        "park (a new decision)": lambda n: [*parkbot_cmd, "park", str(_result_file(files, n))],
        "--help": lambda n: [*parkbot_cmd, "--help"],
    }
    #: row -> (argv of round n, where it runs, kind)
    rows: dict[str, tuple[Callable[[int], list[str]], Path, str]] = {
        "python -c pass": (lambda n: [str(env.python), "-c", "pass"], plain, "baseline")
    }
    for name, command in commands.items():
        rows[f"parkbot {name}"] = (command, plain, "parkbot")
        rows[f"parkbot {name}, with .github/parkbot.yml"] = (command, configured, "parkbot")
    for peer in PEERS:
        if env.has(peer):
            rows[f"{peer} --version"] = (lambda n, peer=peer: [*env.script(peer), "--version"], plain, "peer")
    clean = _clean_env()
    for command, cwd, _ in rows.values():  # warm the page cache and any first-run caches
        cpu_ms(command(-1), cwd, clean)
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for n in range(rounds):
        for name, (command, cwd, _) in rows.items():
            samples[name].append(cpu_ms(command(n), cwd, clean))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    base = medians["python -c pass"]
    peers = [medians[name] for name, (_, _, kind) in rows.items() if kind == "peer"]
    fastest = min(peers) if peers else None
    out = []
    for name, (_, _, kind) in rows.items():
        target, holds = _target(name, medians, fastest)
        out.append(Row(name, kind, medians[name], medians[name] / max(base, 0.001), target, holds))
    return out


def _target(name: str, medians: dict[str, float], fastest: float | None) -> tuple[str, bool | None]:
    """What row ``name`` must meet, and whether it does (None: no target, or no peer to compare with)."""
    took = medians[name]
    suffix = ", with .github/parkbot.yml"
    if name.endswith(suffix):
        without = medians[name.removesuffix(suffix)]
        cap = CONFIG_ALLOWANCE * without
        holds = took <= cap
        if fastest is not None and not name.startswith("parkbot --help"):
            bound, own, _ = _own_target(name.removesuffix(suffix), fastest)
            return f"<= {cap:.0f} ms (+15 %), {own}", holds and took <= bound
        return f"<= {cap:.0f} ms (+15 %)", holds
    if not name.startswith("parkbot ") or fastest is None:
        return "", None
    bound, text, strict = _own_target(name, fastest)
    return text, (took < bound if strict else took <= bound)


def _own_target(name: str, fastest: float) -> tuple[float, str, bool]:
    """(bound in ms, its description, whether it is strict) for a command, from the fastest peer."""
    if name.startswith("parkbot --help"):
        return fastest / 2, f"<= {fastest / 2:.0f} ms (half the fastest tool)", False
    if name.startswith("parkbot park"):
        return fastest, f"<= {fastest:.0f} ms (the fastest tool)", False
    return fastest, f"< {fastest:.0f} ms (the fastest tool)", True


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


def wait_latency(env: Environment, runs: int, root: Path) -> list[float]:
    """Seconds from the answer being recorded to ``parkbot wait`` exiting with it."""
    repo = make_repo(root / "wait")
    latencies = []
    with Backlog.open(repo=repo, backend="git") as backlog:
        for i in range(runs):
            did = backlog.park(result(200_000 + i)).id  # type: ignore[union-attr]
            waiting = subprocess.Popen(
                [*env.script("parkbot"), "wait", did, "--timeout", "60s"],
                cwd=repo,
                env=_clean_env(),
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


def machine() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"{os.cpu_count()} cores, Python {platform.python_version()}, load average {load} (1, 5, 15 min)"


def tables(rows: list[Row], rounds: int, park: tuple[float, float], size: int, waits: list[float]) -> str:
    lines = [
        f"| command ({rounds} interleaved rounds) | CPU time, median | ratio to `python -c pass` | target | holds |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        holds = "" if row.holds is None else ("yes" if row.holds else "no")
        lines.append(f"| `{row.name}` | {row.median_ms:.0f} ms | {row.ratio:.1f}x | {row.target} | {holds} |")
    median, p90 = park
    lines += [
        "",
        "| park through the API | median | 90th percentile | target |",
        "| --- | --- | --- | --- |",
        f"| backlog of {size:,} decisions | {median:.1f} ms | {p90:.1f} ms | < {PARK_TARGET_MS:.0f} ms median |",
    ]
    if waits:
        lines += [
            "",
            "| wait: answer recorded -> `parkbot wait` exits | median | slowest | target |",
            "| --- | --- | --- | --- |",
            f"| {len(waits)} runs | {statistics.median(waits):.2f} s | {max(waits):.2f} s | < {WAIT_TARGET_S:.0f} s |",
        ]
    return "\n".join(lines)


def run(
    rounds: int,
    size: int,
    samples: int,
    waits: int,
    root: Path | None = None,
    env: Environment | None = None,
    venv: Path | None = None,
    list_size: int = LIST_SIZE,
) -> str:
    """Every table; in ``env`` if given (a quick check), else in the environment at ``venv`` or a new one."""
    with tempfile.TemporaryDirectory(prefix="parkbot-startup-", dir=root) as folder:
        work = Path(folder)
        if env is None:
            env = build_environment(venv if venv is not None else work / "venv")
        before = machine()
        rows = startup(env, rounds, work, list_size)
        park = park_in_process(size, samples, work)
        latencies = wait_latency(env, waits, work)
        after = machine()
    return f"Machine: {before}; after the runs: {after.rsplit('load average ', 1)[1]}\n\n" + tables(
        rows, rounds, park, size, latencies
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds, a smaller backlog, fewer waits")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 15; 5 with --quick)")
    parser.add_argument("--venv", type=Path, help="make (or refresh) the environment here and keep it")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        print("git is needed", file=sys.stderr)
        return 2
    os.environ.pop("PARKBOT_BACKEND", None)
    rounds = args.rounds or (5 if args.quick else 15)
    if args.quick:
        print(run(rounds=rounds, size=100, samples=20, waits=2, venv=args.venv))
    else:
        print(run(rounds=rounds, size=1000, samples=50, waits=5, venv=args.venv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
