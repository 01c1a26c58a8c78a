"""A lazy package loads a name's module on its first use only, and says plainly when a name is not there."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent(
    """
    import sys
    import parkbot.api.results as results
    before = "parkbot.api.results.gate" in sys.modules
    report = results.GateReport
    after = "parkbot.api.results.gate" in sys.modules
    assert report is sys.modules["parkbot.api.results.gate"].GateReport
    assert "GateReport" in results.__dict__  # the next lookup is a plain attribute
    try:
        results.NoSuchResult
    except AttributeError as exc:
        missing = str(exc)
    print(before, after, "GateReport" in dir(results), "DecisionView" in dir(results), missing)
    """
)


def test_a_name_is_loaded_on_first_use_and_a_missing_one_is_an_attribute_error() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "bot")}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 4) == [
        "False",
        "True",
        "True",
        "True",
        "module 'parkbot.api.results' has no attribute 'NoSuchResult'\n",
    ]
