"""The git backlog benchmark still runs (one tiny size; the real run is `python benchmarks/git_backlog.py`)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import load_script

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "git_backlog.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(BENCHMARK, "parkbot_benchmark_git_backlog")


def test_the_benchmark_measures_whole_processes_and_prints_tables(bench: ModuleType, tmp_path: Path) -> None:
    timed = frozenset({"list --state all --json", "iter_decisions()"})  # each is a whole process: keep it short
    (row,) = bench.run([6], repeat=1, root=tmp_path, only=timed)
    assert row.decisions == 6
    assert row.commits_per_park == 1
    assert 5 <= row.objects_per_park <= row.max_objects_per_park <= 10
    assert row.git_kib > 0
    assert set(row.commands) == timed
    assert timed <= {*bench.COMMANDS, *bench.READERS}
    for timing in row.commands.values():
        assert timing.seconds > 0
        assert timing.max_rss_kib > 10_000  # a whole Python process, measured by wait4
    lines = bench.table([row]).splitlines()
    assert lines[0].startswith("| decisions in backlog | new objects per park (mean / max) | commits per park |")
    assert lines[2].startswith("| 6 | ")
    assert any(line.startswith("| `parkbot list --state all --json` | ") for line in lines)
    assert list(tmp_path.iterdir()) == []  # the temporary repository is gone
    with pytest.raises(ValueError, match="at least 5"):
        bench.run([3])


def test_kept_backlogs_are_reused_by_the_next_run(bench: ModuleType, tmp_path: Path) -> None:
    keep, work = tmp_path / "kept", tmp_path / "work"
    work.mkdir()
    timed = frozenset({"list --state all --json"})
    (built,) = bench.run([5], repeat=1, root=work, only=timed | {"park"}, keep=keep)
    kept = keep / "5" / "repo"
    assert (kept / ".git").is_dir()
    listed = subprocess.run(
        [*bench.parkbot_command(), "list", "--state", "all", "--json"], cwd=kept, capture_output=True, check=True
    )
    assert json.loads(listed.stdout)["count"] == 5  # as built: the timed park went to the backlog being built
    (reused,) = bench.run([5], repeat=1, root=work, only=timed, keep=keep)
    assert dataclasses.replace(reused, commands={}) == dataclasses.replace(built, commands={})
    assert set(reused.commands) == timed
    assert list(work.iterdir()) == []


def test_a_timed_process_is_not_charged_for_the_benchmarks_own_memory(bench: ModuleType, tmp_path: Path) -> None:
    """A child's ``ru_maxrss`` starts at its parent's resident set; the launcher keeps that small."""
    held = bytearray(256 * 2**20)
    held[:: 2**12] = b"\1" * len(held[:: 2**12])  # touch every page, so it is resident
    timing, code, _ = bench.launch(tmp_path, [sys.executable, "-c", "pass"])
    assert code == 0
    assert 1_000 < timing.max_rss_kib < 100 * 2**10, timing  # a bare Python, not the 256 MB held here
    del held
