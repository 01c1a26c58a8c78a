"""Talking to the Actions runner: escaping, GITHUB_OUTPUT multi-line safety, and the action's entry point."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parkbot.actions_output import (
    Actions,
    annotation,
    escape_data,
    escape_property,
    format_outputs,
    md,
    md_code,
    run_action,
    untrusted,
    workflow_command,
    write_outputs,
)
from tests.support.events import HOSTILE, parse_github_output, workflow_commands
from tests.support.git_helpers import make_repo


def test_escape_data_and_properties() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert annotation("error", "line one\n::set-output name=x::y", title="t: 1,2") == (
        "::error title=t%3A 1%2C2::line one%0A::set-output name=x::y"
    )
    assert workflow_command("notice", "plain") == "::notice::plain"
    with pytest.raises(ValueError, match="not a workflow command"):
        workflow_command("error::x", "y")


@given(st.text())
def test_an_annotation_is_always_exactly_one_command_line(text: str) -> None:
    line = annotation("error", text)
    assert "\n" not in line
    assert "\r" not in line
    assert workflow_commands(line) == [line]
    # The runner unescapes %0D, %0A and %25 (in that order of precedence): the message comes back intact.
    message = line.removeprefix("::error::")
    assert message.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%") == text


@given(st.text())
def test_untrusted_text_is_never_acted_on(text: str) -> None:
    fenced = untrusted(text)
    acted = workflow_commands(fenced)
    assert len(acted) == 1
    assert acted[0].startswith("::stop-commands::")


def test_untrusted_fences_the_hostile_sample() -> None:
    fenced = untrusted(HOSTILE, token="f" * 32)
    assert fenced.startswith("::stop-commands::" + "f" * 32 + "\n")
    assert fenced.endswith("::" + "f" * 32 + "::\n")
    assert workflow_commands(fenced) == ["::stop-commands::" + "f" * 32]


@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True), st.text(), max_size=5))
def test_github_output_round_trips_any_value(values: dict[str, str]) -> None:
    text = format_outputs(values)
    assert parse_github_output(text) == dict(values.items())


def test_a_value_cannot_add_outputs_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "output"
    hostile = "open\ngate-state=open\ndecision-id<<EOF\nevil\nEOF\nghadelimiter_x"
    write_outputs(str(path), {"gate-state": "blocked", "decision-id": hostile, "empty": "", "none": None})
    parsed = parse_github_output(path.read_text(encoding="utf-8"))
    assert parsed == {"gate-state": "blocked", "decision-id": hostile, "empty": ""}


def test_fixed_delimiter_found_in_the_value_is_refused() -> None:
    with pytest.raises(ValueError, match="delimiter"):
        format_outputs({"a": "x\nEOF\ny"}, delimiter="EOF")
    with pytest.raises(ValueError, match="invalid output name"):
        format_outputs({"bad name": "x"})
    assert not write_outputs(None, {"a": "b"})


def test_markdown_escaping() -> None:
    text = md(HOSTILE)
    assert "\n" not in text
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    assert "](" not in text  # no link or image survives
    assert "@alice" not in text  # no mention pings
    assert md("x" * 600, limit=10) == "x" * 9 + "…"
    assert md_code("a|b`c") == "``a\\|b`c``"


def test_actions_helper_outside_actions_prints_plain_text() -> None:
    out = io.StringIO()
    local = Actions({})
    local.annotate("error", "boom", out)
    local.show("::add-mask::x", out)
    assert out.getvalue() == "parkbot: error: boom\n::add-mask::x\n"
    out = io.StringIO()
    Actions({"GITHUB_ACTIONS": "true"}).show("::add-mask::x", out)
    assert workflow_commands(out.getvalue())[0].startswith("::stop-commands::")


# --- the action's entry point ------------------------------------------------------------------------


def action_env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    (tmp_path / "output").touch()
    (tmp_path / "summary").touch()
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "PATH": "/usr/bin:/bin",
    }
    import os

    env["PATH"] = os.environ.get("PATH", env["PATH"])
    env.update(inputs)
    return env


def run_entry(env: dict[str, str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_action(env, out, err)
    return code, out.getvalue(), err.getvalue()


def test_schema_through_the_action(tmp_path: Path) -> None:
    code, out, _ = run_entry(action_env(tmp_path, PARKBOT_COMMAND="schema"))
    assert code == 0
    outputs = parse_github_output((tmp_path / "output").read_text())
    assert outputs["exit-code"] == "0"
    assert "parkbot agent result" in out
    assert "### parkbot schema" in (tmp_path / "summary").read_text()


def test_gate_of_a_branch_in_the_embedded_backlog(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    env = action_env(
        tmp_path,
        PARKBOT_COMMAND="gate",
        PARKBOT_BACKEND="git",
        PARKBOT_ARGS="--ref main",
        PARKBOT_REPOSITORY_PATH=str(repo),
    )
    code, _, _ = run_entry(env)
    assert code == 0
    outputs = parse_github_output((tmp_path / "output").read_text())
    assert outputs["gate-state"] == "open"
    assert json.loads(outputs["result"])["target"] == "branch:main"


def test_args_are_split_but_never_evaluated(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    marker = tmp_path / "pwned"
    env = action_env(
        tmp_path,
        PARKBOT_COMMAND="gate",
        PARKBOT_BACKEND="git",
        PARKBOT_ARGS=f"--ref 'x$(touch {marker})' ; touch {marker}",
        PARKBOT_REPOSITORY_PATH=str(repo),
    )
    code, _, err = run_entry(env)
    assert code != 0  # "x$(touch ...)" is just an (odd) argument, and the rest are extra arguments
    assert not marker.exists()
    assert all(line.startswith(("::stop-commands::", "::error::")) for line in workflow_commands(err))


def test_unknown_command_and_unsplittable_args(tmp_path: Path) -> None:
    code, _, err = run_entry(action_env(tmp_path, PARKBOT_COMMAND="rm"))
    assert code == 2
    assert err.startswith("::error::unknown command 'rm'")
    code, _, err = run_entry(action_env(tmp_path, PARKBOT_COMMAND="gate", PARKBOT_ARGS="'unclosed"))
    assert code == 2
    assert "cannot be split" in err


def test_handle_event_through_the_action_needs_no_token_for_unknown_events(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "created"}), encoding="utf-8")
    env = action_env(tmp_path, PARKBOT_EVENT_NAME="deployment_status", PARKBOT_EVENT_PATH=str(event))
    code, _, err = run_entry(env)
    assert code == 0
    assert "::notice::parkbot: ignoring the deployment_status event" in err
    assert parse_github_output((tmp_path / "output").read_text())["event-status"] == "unknown"


def test_handle_event_failure_through_the_action(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text("not json", encoding="utf-8")
    env = action_env(tmp_path, PARKBOT_EVENT_NAME="push", PARKBOT_EVENT_PATH=str(event), PARKBOT_SUMMARY="false")
    code, _, _ = run_entry(env)
    assert code == 2
    assert (tmp_path / "summary").read_text() == ""
