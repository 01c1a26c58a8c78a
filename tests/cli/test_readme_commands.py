"""README's two commands for a newcomer: install and run the quickstart, and run the test suite.

They must work on a fresh Debian-like machine exactly as written, whose Python refuses ``pip install``
outside a virtual environment, so both make one first. CI (``.ci/run``) runs the test command as README
states it; the quickstart script runs here with the parkbot under test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def quick_start() -> str:
    return README.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def test_quick_start_has_exactly_two_commands_and_both_make_a_virtual_environment() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", quick_start(), re.S)
    assert blocks == [
        VENV + "pip install . && bash examples/quickstart.sh\n",
        VENV + "pip install -e '.[test]' && python3 -m pytest -n 2\n",
    ]
    assert "Python 3.11 or newer" in quick_start()
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_ci_runs_the_test_command_readme_states() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "/^Run the whole test suite:/" in script
    assert '${readme_test_command} -q"' in script
    assert "Run the whole test suite:\n\n```sh\n" + VENV in quick_start()


def test_the_quickstart_parks_blocks_resolves_and_opens(tmp_path: Path) -> None:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # this parkbot
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["bash", str(ROOT / "examples" / "quickstart.sh")], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout  # the script itself fails if the first gate is open
    gates = out.split("$ parkbot gate --ref agent/billing-42")
    assert len(gates) == 3
    assert "agent/billing-42: blocked" in gates[1]
    assert "billing-42-decision-refund" in gates[1]
    assert "agent/billing-42: open" in gates[2]
    assert "blocked" not in gates[2].split("$ git log")[0]
