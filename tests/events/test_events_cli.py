"""``parkbot handle-event`` as a GitHub Actions step runs it: environment, outputs, summary, annotations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot.cli.events import EVENT_COMMANDS
from parkbot.cli.events import handle_event as command
from tests.support.events import (
    HOSTILE,
    labels_of,
    park,
    parse_github_output,
    run_cli,
    webhook,
    with_repository,
    workflow_commands,
)
from tests.support.github_helpers import DID, TOKEN, gate_of


def outputs(tmp_path: Path) -> dict[str, str]:
    return parse_github_output((tmp_path / "output").read_text(encoding="utf-8"))


def summary(tmp_path: Path) -> str:
    return (tmp_path / "summary").read_text(encoding="utf-8")


def decide_payload(fake: Any, number: int, body: str, author: str = "alice") -> dict[str, Any]:
    posted = fake.add_comment(number, body, author=author)
    payload = with_repository(webhook("issue_comment.created"), fake)
    payload["issue"].update(number=number, labels=labels_of(fake, number))
    user = fake.users[author.lower()]
    payload["comment"].update(id=posted.id, body=body, user={"login": user.login, "id": user.id, "type": "User"})
    payload["sender"] = payload["comment"]["user"]
    return payload


def test_registered_for_the_group() -> None:
    assert [c.name for c in EVENT_COMMANDS] == ["handle-event"]


def test_resolving_comment_writes_outputs_and_summary(fake: Any, tmp_path: Path) -> None:
    number = park(fake)
    result = run_cli(fake, "issue_comment", decide_payload(fake, number, "/decide full_original"), tmp_path)
    assert result.exit_code == 0, result.output
    out = outputs(tmp_path)
    assert out["decision-id"] == DID
    assert out["issue-number"] == str(number)
    assert out["event-status"] == "handled"
    assert out["exit-code"] == "0"
    assert json.loads(out["result"])["decision_id"] == DID
    text = summary(tmp_path)
    assert "#### Resolved" in text
    assert DID in text
    assert TOKEN not in result.output + text + (tmp_path / "output").read_text()


def test_blocked_gate_output(fake: Any, tmp_path: Path) -> None:
    number = park(fake)
    pull = fake.add_pull(title="Refund flow", body=f"Blocked by #{number}", head_ref="refund-flow")
    payload = with_repository(webhook("pull_request.opened"), fake)
    payload["pull_request"].update(number=pull.number, body=pull.body)
    payload["pull_request"]["head"].update(sha=pull.pull.head_sha, ref="refund-flow")
    result = run_cli(fake, "pull_request", payload, tmp_path, "--json")
    assert result.exit_code == 0, result.output
    assert outputs(tmp_path)["gate-state"] == "blocked"
    assert "#### Blocked" in summary(tmp_path)
    data = json.loads(_strip_stop_commands(result.stdout))
    assert data["gate_state"] == "blocked"
    assert data["items"][0]["target"] == f"#{pull.number}"


def test_unknown_event_is_a_notice_and_exit_0_without_requests(fake: Any, tmp_path: Path) -> None:
    result = run_cli(fake, "deployment_status", {"action": "created"}, tmp_path)
    assert result.exit_code == 0
    assert "::notice::parkbot: ignoring the deployment_status event" in result.stderr
    assert "Traceback" not in result.output
    assert fake.request_count == 0
    assert outputs(tmp_path)["event-status"] == "unknown"


def test_unknown_action_is_a_notice(fake: Any, tmp_path: Path) -> None:
    payload = webhook("issues.closed")
    payload["action"] = "pinned"
    result = run_cli(fake, "issues", payload, tmp_path)
    assert result.exit_code == 0
    assert "issues.pinned" in result.stderr
    assert fake.request_count == 0


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b"\xff\xfe", "not valid JSON"),
        (json.dumps({"action": "created", "issue": {"number": 1}}).encode(), "comment is missing"),
    ],
)
def test_malformed_payload_exits_2_with_an_annotation(fake: Any, tmp_path: Path, payload: bytes, message: str) -> None:
    result = run_cli(fake, "issue_comment", payload, tmp_path)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.startswith("::error::")
    assert "Traceback" not in result.output
    assert outputs(tmp_path)["event-status"] == "failed"
    assert fake.request_count == 0


def test_missing_event_path_and_name(fake: Any, tmp_path: Path) -> None:
    runner = CliRunner()
    # None unsets: when these tests run inside GitHub Actions, the job's own files must stay untouched.
    env: dict[str, str | None] = {
        "GITHUB_EVENT_NAME": None,
        "GITHUB_EVENT_PATH": None,
        "GITHUB_ACTIONS": None,
        "GITHUB_OUTPUT": None,
        "GITHUB_STEP_SUMMARY": None,
    }
    result = runner.invoke(command, [], env=env)
    assert result.exit_code == 2
    assert "GITHUB_EVENT_PATH" in result.stderr
    event = tmp_path / "e.json"
    event.write_text("{}", encoding="utf-8")
    result = runner.invoke(command, ["--event-path", str(event)], env=env)
    assert result.exit_code == 2
    assert "GITHUB_EVENT_NAME" in result.stderr


def test_options_override_the_environment(fake: Any, tmp_path: Path) -> None:
    event = tmp_path / "other.json"
    event.write_text(json.dumps(webhook("schedule")), encoding="utf-8")
    result = run_cli(fake, "push", {"nonsense": True}, tmp_path, "--event-name", "schedule", "--event-path", str(event))
    assert result.exit_code == 0, result.output
    assert outputs(tmp_path)["event-status"] == "ignored"  # nothing open to reconcile


def test_hostile_text_cannot_inject_workflow_commands(fake: Any, tmp_path: Path) -> None:
    """A refused command quoting hostile text: every log line it reaches is escaped or fenced."""
    number = park(fake)
    body = f"/decide {HOSTILE.split()[0]}\n\n{HOSTILE}"
    result = run_cli(fake, "issue_comment", decide_payload(fake, number, body, author="mallory"), tmp_path)
    assert result.exit_code == 0
    log = result.stdout + result.stderr
    acted = workflow_commands(log)
    # Only parkbot's own commands: stop-commands fences, and one escaped annotation per problem.
    assert acted, log
    for line in acted:
        assert line.startswith(("::stop-commands::", "::warning::", "::notice::", "::error::")), line
        assert "\n" not in line
    assert not any("set-output" in line and not line.startswith("::warning::") for line in acted)
    out = outputs(tmp_path)
    assert set(out) == {
        "decision-id",
        "decision-ids",
        "issue-number",
        "gate-state",
        "event-status",
        "exit-code",
        "result",
    }
    text = summary(tmp_path)
    assert "<script>" not in text
    assert "![x](" not in text
    assert "@alice" not in text


def _strip_stop_commands(text: str) -> str:
    lines = text.splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert lines[-1] == f"::{token}::"
    return "\n".join(lines[1:-1])


def test_hostile_file_name_on_a_push_stays_inside_its_own_text(fake: Any, tmp_path: Path) -> None:
    """git allows newlines in file names: one naming a broken result file reaches messages, annotations,
    the summary and the outputs, and must stay a piece of text in each."""
    from tests.support.git_helpers import make_repo, run_git

    repo = tmp_path / "checkout"
    make_repo(repo)
    run_git(repo, "checkout", "-q", "-b", "agent/billing-42")
    name = ".parkbot/decisions/x\n::set-output name=gate-state::open\n::add-mask::%0A${{ github.token }}$(id).json"
    target = repo / name
    target.parent.mkdir(parents=True)
    target.write_text("{broken", encoding="utf-8")
    run_git(repo, "add", "--", name)
    run_git(repo, "commit", "-q", "-m", "agent work")
    sha = run_git(repo, "rev-parse", "HEAD")
    target.unlink()
    fake.add_commit(sha, "agent work", branch="agent/billing-42")
    payload = with_repository(webhook("push"), fake)
    payload.update(ref="refs/heads/agent/billing-42", after=sha)

    result = run_cli(fake, "push", payload, tmp_path, "--repo", str(repo))

    assert result.exit_code == 2, result.output
    for line in workflow_commands(result.stdout + result.stderr):
        assert line.startswith(("::stop-commands::", "::error::")), line
    assert any(
        "%0A::set-output name=gate-state::open%0A::add-mask::%250A" in line for line in result.stderr.splitlines()
    )
    out = outputs(tmp_path)
    assert out["gate-state"] == "failure"  # not "open", whatever the file name says
    assert "decision-id" in out
    assert out["exit-code"] == "2"
    assert "\n::set-output" not in summary(tmp_path)
    assert gate_of(fake, sha).state == "failure"
