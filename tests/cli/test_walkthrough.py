"""README's walk-through, run as written in a fresh repository: every command of its block, in order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def walkthrough() -> list[str]:
    section = README.split("## Walk-through in your own repository", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    commands = [line.split("  #", 1)[0].strip() for line in block.splitlines()]
    return [c for c in commands if c and not c.startswith("#")]


def run_walkthrough(tmp_path: Path, *, with_remote: bool) -> subprocess.CompletedProcess[str]:
    repo = tmp_path / "your-repo"
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # this parkbot
        "HOME": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }
    setup = [
        f"git init -q -b main {repo}",
        f"git -C {repo} config user.email you@example.com",
        f"git -C {repo} config user.name You",
        f"git -C {repo} commit -q --allow-empty -m initial",
    ]
    if with_remote:
        setup += [
            f"git init -q --bare {tmp_path / 'remote.git'}",
            f"git -C {repo} remote add origin {tmp_path / 'remote.git'}",
        ]
    steps = [c.replace("cd your-repo", f"cd {repo}").replace("path/to/parkbot/", f"{ROOT}/") for c in walkthrough()]
    script = "\n".join(setup + [f"echo '$ {c}'\n{c}" for c in steps]) + "\n"
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path, check=False)


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    done = run_walkthrough(tmp_path, with_remote=True)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "created billing-42-decision-refund (owner you@example.com)" in out
    gates = out.split("$ parkbot gate --ref agent/billing-42")
    assert "blocked" in gates[1]
    assert "exit 1" in gates[1]
    assert "resolved billing-42-decision-refund: 'full_original' by you@example.com" in gates[1]
    assert "open" in gates[2]
    assert "exit 0" in gates[2]
    pushed = subprocess.run(
        ["git", "--git-dir", str(tmp_path / "remote.git"), "rev-parse", "refs/parkbot/backlog"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert pushed.returncode == 0, "the backlog reached the remote"


def test_the_walkthrough_says_that_its_last_step_needs_a_remote(tmp_path: Path) -> None:
    assert walkthrough()[-1] == "git push origin refs/parkbot/backlog"
    assert "(needs a remote)" in README
    assert "`git remote add origin URL` first" in README
    done = run_walkthrough(tmp_path, with_remote=False)
    assert done.returncode != 0  # git's own error, which README warned about
    assert "$ git push origin refs/parkbot/backlog" in done.stdout
