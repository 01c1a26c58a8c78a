"""The action and the workflows, read as data: the rules zizmor and actionlint cannot state for us."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.workflows import PINNED, VERSION_COMMENT, load, steps_of, uses_lines

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "actions" / "parkbot" / "action.yml"
WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / "docs" / "workflows").glob("*.yml")])


def test_every_input_is_kebab_case_with_a_description_and_reaches_the_script_through_env() -> None:
    action = load(ACTION)
    inputs = action["inputs"]
    assert inputs["command"]["default"] == "handle-event"
    for name, spec in inputs.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name), name
        assert spec.get("description", "").strip(), name
    run_step = next(s for s in steps_of(action) if s.get("id") == "run")
    env_values = " ".join(str(v) for v in run_step["env"].values())
    for name in inputs:
        if name == "python-version":
            continue
        assert f"inputs.{name}" in env_values, name


def test_no_expression_inside_any_run_block() -> None:
    for path in [ACTION, *WORKFLOWS]:
        for step in steps_of(load(path)):
            assert "${{" not in str(step.get("run", "")), (path.name, step.get("name"))


def test_action_outputs_come_from_the_run_step() -> None:
    outputs = load(ACTION)["outputs"]
    for name in ("decision-id", "issue-number", "gate-state"):
        assert outputs[name]["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
        assert outputs[name]["description"].strip()


def test_action_caches_its_virtual_environment_and_installs_from_the_lock() -> None:
    text = ACTION.read_text(encoding="utf-8")
    for line in uses_lines(ACTION):
        ref = line.split("uses:", 1)[1].split("#")[0].strip()
        assert PINNED.match(ref), line
        assert VERSION_COMMENT.search(line), line
    assert "actions/setup-python@" in text
    steps = {step.get("id"): step for step in steps_of(load(ACTION))}
    cache = next(step for step in steps_of(load(ACTION)) if str(step.get("uses", "")).startswith("actions/cache@"))
    assert cache["with"] == {
        "path": "${{ steps.cache-key.outputs.venv }}",
        "key": "${{ steps.cache-key.outputs.key }}",
        "restore-keys": "${{ steps.cache-key.outputs.deps-key }}-",
    }
    assert "venv_key.py" in steps["cache-key"]["run"]
    assert "install.sh" in steps["install"]["run"]
    assert steps["run"]["env"]["PARKBOT_PYTHON"] == "${{ steps.install.outputs.python }}"
    assert (ACTION.parent / "requirements.lock").is_file()
    assert not (ACTION.parent / "constraints.txt").exists()


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_are_least_privilege_and_pinned(path: Path) -> None:
    data = load(path)
    assert data["permissions"] == {}, "top-level permissions must be {}"
    for name, job in data["jobs"].items():
        assert "permissions" in job, f"job {name} must grant its own permissions"
        for scope, level in job["permissions"].items():
            assert level in ("read", "write"), (scope, level)
    for step in steps_of(data):
        uses = step.get("uses")
        if not uses:
            continue
        if uses.startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, path.name
    for line in uses_lines(path):
        ref = line.split("uses:", 1)[1].split("#")[0].strip()
        if ref.startswith("./"):
            continue
        if ref.startswith("OWNER/REPO/actions/parkbot@"):  # the template line users pin themselves
            assert "zizmor: ignore[unpinned-uses]" in line
            continue
        assert PINNED.match(ref), line
        assert VERSION_COMMENT.search(line), line


FORK_GATE = ROOT / "docs" / "workflows" / "gate-fork-pull-requests.yml"


@pytest.mark.parametrize(
    "path", sorted(set((ROOT / "docs" / "workflows").glob("*.yml")) - {FORK_GATE}), ids=lambda p: p.name
)
def test_examples_serialize_runs_per_item(path: Path) -> None:
    group = load(path)["concurrency"]["group"]
    assert group == ("parkbot-${{ github.event.issue.number || github.event.pull_request.number || github.ref }}")


def test_the_fork_gate_serializes_runs_per_fork_branch() -> None:
    # A workflow_run event names no pull request; one fork branch is one pull request.
    concurrency = load(FORK_GATE)["concurrency"]
    assert concurrency["group"] == (
        "parkbot-fork-${{ github.event.workflow_run.head_repository.full_name }}-"
        "${{ github.event.workflow_run.head_branch }}"
    )
    assert concurrency["cancel-in-progress"] is False


def test_the_examples_exist_with_their_triggers() -> None:
    triggers = {p.name: set(load(p)["on"]) for p in (ROOT / "docs" / "workflows").glob("*.yml")}
    assert triggers == {
        "answer-decisions.yml": {"issue_comment", "issues"},
        "gate-pull-requests.yml": {"pull_request", "merge_group", "status"},
        "gate-fork-pull-requests.yml": {"workflow_run"},
        "park-from-agent-branches.yml": {"push"},
        "nightly-reconcile.yml": {"schedule", "workflow_dispatch"},
        "gate-git-backlog.yml": {"pull_request"},
    }


def test_the_fork_gate_never_checks_out_or_runs_the_forks_code() -> None:
    data = load(FORK_GATE)
    gate = load(ROOT / "docs" / "workflows" / "gate-pull-requests.yml")
    assert data["on"]["workflow_run"] == {"workflows": [gate["name"]], "types": ["completed"]}
    (job,) = data["jobs"].values()
    # Only for runs of pull requests from forks; the ordinary gate skips exactly those.
    condition = " ".join(job["if"].split())
    assert "github.event.workflow_run.event == 'pull_request'" in condition
    assert "github.event.workflow_run.head_repository.full_name != github.repository" in condition
    assert "github.event.pull_request.head.repo.full_name == github.repository" in " ".join(
        gate["jobs"]["parkbot"]["if"].split()
    )
    steps = job["steps"]
    # One step, the parkbot action with its defaults: handle-event on the workflow_run event.
    assert [step.get("uses", "").split("@")[0] for step in steps] == ["OWNER/REPO/actions/parkbot"]
    assert all("run" not in step and "with" not in step for step in steps)
    text = FORK_GATE.read_text(encoding="utf-8")
    code = "\n".join(line.split("#")[0] for line in text.splitlines())  # what runs, without the comments
    assert "actions/checkout" not in code
    assert "head_sha" not in code
    assert "pull_request_target" not in code
    assert set(job["permissions"]) == {"contents", "issues", "pull-requests", "checks"}
    assert job["permissions"]["contents"] == "read"


def test_ci_self_tests_the_action() -> None:
    ci = load(ROOT / ".github" / "workflows" / "ci.yml")
    uses = [s.get("uses") for job in ci["jobs"].values() for s in job.get("steps") or []]
    assert "./actions/parkbot" in uses
    runs = [s.get("run", "") for job in ci["jobs"].values() for s in job.get("steps") or []]
    assert any("bash .ci/run" in r for r in runs)


def test_lint_script_is_executable_and_names_every_folder() -> None:
    script = ROOT / ".ci" / "lint-workflows"
    assert script.stat().st_mode & 0o111
    text = script.read_text(encoding="utf-8")
    for needle in ("zizmor", "actionlint", ".github/workflows", "docs/workflows", "actions/*/action.yml"):
        assert needle in text
