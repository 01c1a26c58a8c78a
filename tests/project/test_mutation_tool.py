"""The mutation-testing tool itself, on a throwaway module (the real runs are `python benchmarks/mutation.py`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import load_script

TOOL = Path(__file__).resolve().parents[2] / "benchmarks" / "mutation.py"

TINY_MODULE = """\
def double(x):
    return x * 2


def clamp(value, limit):
    if value > limit:
        return limit
    return value


def countdown(n):
    while n > 0:
        n -= 1
    return n


def shout(text):
    return text.upper()


def unused():
    return 1
"""

TINY_TESTS = """\
from tinymod import clamp, countdown, double, shout


def test_double():
    assert double(3) == 6


def test_clamp():
    assert clamp(5, 3) == 3
    assert clamp(2, 3) == 2


def test_countdown():
    assert countdown(3) == 0


def test_shout():
    assert isinstance(shout("hi"), str)
"""

PYPROJECT = """\
[tool.parkbot.mutation]
equivalents = "equivalents.toml"
workers = 2
timeout_factor = 1
timeout_seconds = 1.5

[tool.parkbot.mutation.tests]
"tinymod.py" = ["test_tinymod.py"]
"brokenmod.py" = ["test_brokenmod.py"]
"""

EQUIVALENTS = """\
[[mutant]]
module = "tinymod.py"
function = "clamp"
operator = "swap_op"
line = "if value > limit:"
mutated = "if value >= limit:"
reason = "at value == limit both branches return the same number"
evidence = "input: clamp(3, 3) is 3 either way"

[[mutant]]
module = "tinymod.py"
function = "double"
operator = "number"
line = "return x * 2"
mutated = "return x * 3"
reason = "listed by mistake: test_double kills it"
evidence = "input: double(1)"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tinymod.py").write_text(TINY_MODULE)
    (tmp_path / "test_tinymod.py").write_text(TINY_TESTS)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "equivalents.toml").write_text(EQUIVALENTS)
    # A second module whose tests fail even unmutated: it cannot be measured.
    (tmp_path / "brokenmod.py").write_text("def half(x):\n    return x / 2\n")
    (tmp_path / "test_brokenmod.py").write_text(
        "from brokenmod import half\n\n\ndef test_half():\n    assert half(4) == 3\n"
    )
    return tmp_path


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return load_script(TOOL, "parkbot_benchmark_mutation")


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=120)


def test_a_module_is_measured_against_its_tests(project: Path) -> None:
    files_before = sorted(p.name for p in project.iterdir())

    run = run_tool("--root", str(project), "tinymod.py", "brokenmod")

    assert run.returncode == 2, run.stderr  # brokenmod could not be measured
    out = run.stdout
    # 10 mutants: double 2 (killed), clamp 3 (2 killed, `>=` equivalent), countdown 4 (2 killed; `+=` and
    # `n = 1` loop forever and time out), shout 1 (survives: the test only checks the type), unused 1
    # (survives: no test calls it).
    assert "| tinymod.py | 10 | 5 | 2 | 2 | 1 | 70.0 % | 77.8 % | 4 |" in out
    assert "tinymod.py: 1 surviving mutant(s) are in code that no selected test runs." in out

    survivors = out.split("## Surviving mutants (2)\n")[1].split("## Equivalent mutants")[0]
    assert "### tinymod.py:18 in `shout` [symmetric_string_methods_swap]\n" in survivors
    assert "@@ -17,2 +17,2 @@\n def shout(text):\n-    return text.upper()\n+    return text.lower()\n" in survivors
    assert "### tinymod.py:22 in `unused` [number] (no selected test runs this code)\n" in survivors
    assert "-    return 1\n+    return 2\n" in survivors
    assert "clamp" not in survivors  # listed as equivalent, so reported there instead

    equivalent = out.split("## Equivalent mutants, listed in equivalents.toml (1)\n")[1].split("## Stale")[0]
    assert "### tinymod.py:6 in `clamp` [swap_op]\n" in equivalent
    assert "reason: at value == limit both branches return the same number\n" in equivalent
    assert "evidence: input: clamp(3, 3) is 3 either way\n" in equivalent
    assert "-    if value > limit:\n+    if value >= limit:\n" in equivalent

    stale = out.split("## Stale entries in equivalents.toml (1)\n")[1]
    assert "tinymod.py in `double` [number]: no surviving mutant matches" in stale
    assert 'reason = "listed by mistake: test_double kills it"' in stale

    assert "tinymod.py: 10 mutants, 4 tests, 2 worker(s)" in run.stderr
    assert "| brokenmod.py | 2 | not measured |" in out
    assert "error: brokenmod.py: the tests fail without any mutation: test_brokenmod.py::test_half" in run.stderr
    # Nothing is written into the project: no pytest cache, no hypothesis database, no mutated copies.
    assert sorted(p.name for p in project.iterdir()) == files_before


def test_a_printed_survivor_entry_matches_its_mutant_once_it_has_a_reason(tool: ModuleType, project: Path) -> None:
    (shout,) = [m for m in tool.generate_mutants(project, "tinymod.py") if m.function == "shout"]
    printed = tool._toml_entry(shout)
    assert printed[0] == "```toml"
    assert printed[-1] == "```"
    entry = "\n".join(printed[1:-1]) + "\n"
    assert entry.endswith('reason = ""\nevidence = ""\n')

    path = project / "equivalents.toml"
    path.write_text(entry)
    with pytest.raises(tool.UsageError, match="the reason is empty"):
        tool.load_equivalents(path)
    path.write_text(entry.replace('reason = ""', 'reason = "demo"'))
    with pytest.raises(tool.UsageError, match="the evidence is empty"):
        tool.load_equivalents(path)
    path.write_text(entry.replace('reason = ""', 'reason = "demo"').replace('evidence = ""', 'evidence = "none: demo"'))
    (listed,) = tool.load_equivalents(path)
    assert listed.matches(shout)
    assert listed.reason == "demo"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"args": ["other.py"]}, "no tests are mapped to other.py: add it to [tool.parkbot.mutation.tests]"),
        ({"args": []}, "name a module, or --all (mapped: brokenmod.py, tinymod.py)"),
        ({"module": None}, "tinymod.py does not exist: if it moved, update its key in [tool.parkbot.mutation.tests]"),
        (
            {"equivalents": '[[mutant]]\nmodule = "tinymod.py"\n'},
            "[[mutant]] #1: missing function, operator, line, mutated, reason, evidence",
        ),
        (
            {
                "equivalents": EQUIVALENTS.replace(
                    'reason = "at value == limit both branches return the same number"', 'reason = " "'
                )
            },
            "[[mutant]] #1: the reason is empty",
        ),
        ({"pyproject": "[tool.parkbot.mutation]\nworkers = 2\n"}, '"tests" must map module paths'),
        ({"pyproject": PYPROJECT.replace("workers = 2", "workers = 'two'")}, '"workers" must be an integer'),
        ({"pyproject": PYPROJECT + "\n[tool.parkbot.mutation.extra]\n"}, "unknown key(s) extra"),
    ],
)
def test_bad_input_is_one_clear_error(
    tool: ModuleType, project: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], message: str
) -> None:
    if "equivalents" in change:
        (project / "equivalents.toml").write_text(str(change["equivalents"]))
    if "pyproject" in change:
        (project / "pyproject.toml").write_text(str(change["pyproject"]))
    if "module" in change:
        (project / "tinymod.py").unlink()
    args = change.get("args", ["tinymod.py"])
    assert isinstance(args, list)
    assert tool.main(["--root", str(project), *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.startswith("error: ")
    assert captured.out == ""


def test_mutants_are_identified_by_what_they_change_not_where(tool: ModuleType, project: Path) -> None:
    before = {(m.function, m.operator, m.before, m.after) for m in tool.generate_mutants(project, "tinymod.py")}
    (project / "tinymod.py").write_text('"""Docs."""\n\nLIMIT = 3\n\n\n' + textwrap.dedent(TINY_MODULE))
    after = tool.generate_mutants(project, "tinymod.py")
    assert {(m.function, m.operator, m.before, m.after) for m in after} == before
    assert [m.line for m in after if m.function == "shout"] == [18 + 5]


def test_the_report_names_what_mutmut_s_engine_leaves_unmutated(tool: ModuleType, tmp_path: Path) -> None:
    module = tmp_path / "validated.py"
    module.write_text(
        "import functools\n\n\nclass Settings:\n    limit: int = 3\n    name: str\n\n"
        "    @classmethod\n    def make(cls):\n        return cls()\n\n"
        "    @functools.cache\n    def cached(self):\n        return 1\n\n\n"
        "@property\ndef top():\n    return 2\n\n\ndef plain():\n    return 3\n"
    )
    assert tool.not_mutated(module) == [
        "`Settings.cached` (line 13, decorated)",
        "`Settings.limit` default (line 5)",
        "`top` (line 18, decorated)",
    ]
