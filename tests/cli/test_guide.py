"""``parkbot guide``: built from the constants the code enforces, so it cannot promise what park refuses."""

from __future__ import annotations

import json
import re
from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.cli.guide import EXAMPLES, guide_text
from parkbot.core import models
from parkbot.core.config import Limits


def test_the_rule_for_when_to_ask_is_there() -> None:
    text = guide_text()
    assert "Reversible and low-impact" in text
    assert "PROCEED" in text
    assert "done_with_assumptions" in text
    assert "Irreversible, high-impact or ambiguous" in text
    assert "STOP and ASK" in text
    assert "work_so_far" in text


def test_every_limit_is_the_enforced_one() -> None:
    text = guide_text()
    limits = Limits()
    assert f"at most {limits.open_per_origin} open\n  questions per origin" in text
    assert f"{limits.open_per_run} per run" in text
    for name in (
        "MAX_NAME_LENGTH",
        "MAX_OPTIONS",
        "MAX_LABEL",
        "MAX_QUESTION",
        "MAX_TITLE",
        "MAX_WORK_SO_FAR_BYTES",
        "MAX_DEPENDENTS",
        "MAX_ASSUMPTIONS",
        "MAX_TEXT",
    ):
        assert re.search(rf"\b{getattr(models, name)}\b", text), name


def test_the_limits_follow_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Change a constant and the guide changes with it: nothing in it is typed twice."""
    monkeypatch.setattr(models, "MAX_OPTIONS", 7)
    assert "options: at most 7," in guide_text()


def test_every_example_in_the_guide_is_the_exact_json_shown_and_parks(tmp_path: Path) -> None:
    text = guide_text()
    for example in EXAMPLES.values():
        assert json.dumps(example, ensure_ascii=False) in text
    root = tmp_path / "repo"
    repository = git.Repo.init(root, initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "email", "alice@example.com")
    repository.index.commit("initial")
    repository.create_head("agent/billing-42", "main")
    for name in ("needs_input", "done_with_assumptions", "done", "done_nothing", "failed"):
        result = CliRunner().invoke(cli, ["park", "-", "--repo", str(root), "--json"], input=json.dumps(EXAMPLES[name]))
        assert result.exit_code == 0, (name, result.output)


def test_the_command_prints_it_and_json_wraps_it() -> None:
    plain = CliRunner().invoke(cli, ["guide"])
    assert plain.exit_code == 0
    assert plain.stdout == guide_text()
    as_json = CliRunner().invoke(cli, ["guide", "--json"])
    assert json.loads(as_json.stdout) == {"guide": guide_text()}
