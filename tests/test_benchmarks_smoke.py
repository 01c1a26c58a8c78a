"""The git backlog benchmark still runs (tiny sizes; the real run is `python benchmarks/git_backlog.py`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "git_backlog.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parkbot_benchmark_git_backlog", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_quick_benchmark_measures_every_size(bench: ModuleType, tmp_path: Path) -> None:
    rows = bench.run([20, 50], root=tmp_path)
    assert [r.decisions for r in rows] == [20, 50]
    for row in rows:
        assert row.park_ms > 0
        assert row.find_ms > 0
        assert row.gate_ms > 0
        assert row.loose_objects + row.packed_objects > 0
    lines = bench.table(rows).splitlines()
    assert lines[0].startswith("| decisions in backlog | time per park | time per lookup (find) | time per gate")
    assert len(lines) == 4
    assert lines[2].startswith("| 20 |")
    assert lines[3].startswith("| 50 |")
    assert list(tmp_path.iterdir()) == []  # the temporary repository is gone


def test_the_command_line_prints_a_markdown_table(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(["--sizes", "10"]) == 0
    out = capsys.readouterr().out
    assert "| 10 |" in out
    with pytest.raises(ValueError, match="at least 5"):
        bench.run([3])
