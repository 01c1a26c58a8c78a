"""The git backlog's pull-request workflow (docs/workflows/gate-git-backlog.yml), its `run:` steps run by
bash as the runner runs them (not GitHub): in a clone of the default branch, the backlog and the pull
request's head (refs/pull/N/head) fetched from origin, then `parkbot gate --ref <head>`. A branch blocked by
an open decision fails the job (exit 1); once the decision is answered and the backlog pushed, it passes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.git_helpers import commit_on_branch, make_repo, needs_input, run_git
from tests.support.workflows import load

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "workflows" / "gate-git-backlog.yml"
DID = "billing-42-decision-refund"


def steps() -> dict[str, dict[str, Any]]:
    job = load(WORKFLOW)["jobs"]["gate"]
    return {step["name"]: step for step in job["steps"] if "run" in step}


def run_step(step: dict[str, Any], cwd: Path, context: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The step's `run:` under `bash -e` (the runner's default shell), its `env:` with the expressions filled in."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "PARKBOT_BACKEND"):
        env.pop(name, None)
    for name, value in (step.get("env") or {}).items():
        env[name] = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: context[m.group(1)], str(value))
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def parkbot(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parkbot", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_the_gate_step_fails_the_job_while_a_decision_blocks_the_branch_and_passes_once_answered(
    tmp_path: Path,
) -> None:
    # The team's repository: a decision parked on the backlog, a branch that waits for it, its pull request #7.
    work = tmp_path / "work"
    make_repo(work)
    result = tmp_path / "result.json"
    result.write_text(needs_input().model_dump_json(), encoding="utf-8")
    parked = parkbot(work, "park", str(result), "--backend", "git")
    assert parked.returncode == 0, parked.stderr
    commit_on_branch(work, "agent/x", "refund flow", trailers=[("Blocked-by", DID)])
    origin = tmp_path / "origin.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    run_git(work, "push", "-q", str(origin), "refs/parkbot/backlog", "agent/x:refs/pull/7/head")

    # What actions/checkout leaves: the default branch, full history, no credentials.
    checkout = tmp_path / "checkout"
    run_git(tmp_path, "clone", "-q", "--branch", "main", str(origin), str(checkout))
    context = {
        "github.token": "ghs_not_a_real_token",
        "github.event.pull_request.number": "7",
        "github.event.pull_request.head.ref": "agent/x",
    }
    fetch, gate = steps()["Fetch the backlog and the pull request's branch"], steps()["Gate the pull request's branch"]
    fetched = run_step(fetch, checkout, context)
    assert fetched.returncode == 0, fetched.stderr
    blocked = run_step(gate, checkout, context)
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr  # the job fails: the required check is red
    assert DID in blocked.stdout

    answered = parkbot(work, "resolve", DID, "--answer", "remaining", "--backend", "git")
    assert answered.returncode == 0, answered.stderr
    run_git(work, "push", "-q", "-f", str(origin), "refs/parkbot/backlog")
    assert run_step(fetch, checkout, context).returncode == 0  # the next run (synchronize) fetches again
    passed = run_step(gate, checkout, context)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_without_a_backlog_on_origin_a_branch_naming_no_decision_passes_and_one_naming_a_decision_stays_blocked(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    make_repo(work)
    commit_on_branch(work, "plain", "docs")
    commit_on_branch(work, "agent/y", "waits", trailers=[("Blocked-by", DID)])
    origin = tmp_path / "origin.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    run_git(work, "push", "-q", str(origin), "plain:refs/pull/1/head", "agent/y:refs/pull/2/head")
    for number, branch, expected in (("1", "plain", 0), ("2", "agent/y", 1)):
        checkout = tmp_path / f"checkout-{number}"
        run_git(tmp_path, "clone", "-q", "--branch", "main", str(origin), str(checkout))
        context = {
            "github.token": "ghs_not_a_real_token",
            "github.event.pull_request.number": number,
            "github.event.pull_request.head.ref": branch,
        }
        fetched = run_step(steps()["Fetch the backlog and the pull request's branch"], checkout, context)
        assert fetched.returncode == 0, fetched.stderr
        assert "no refs/parkbot/backlog on origin yet" in fetched.stdout
        gated = run_step(steps()["Gate the pull request's branch"], checkout, context)
        assert gated.returncode == expected, (branch, gated.stdout, gated.stderr)
        shutil.rmtree(checkout)
