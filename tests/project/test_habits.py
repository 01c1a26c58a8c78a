"""The habits a contributor copies: pre-commit runs what CI runs (lint, types, the prebuilt schemas' check), and CI
runs every supported Python."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CI_SCRIPT = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_pre_commit_hook_is_a_command_ci_runs() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    commands = [hook["entry"].replace(".venv/bin/python", "python3", 1) for hook in hooks]
    assert {c.split()[2] for c in commands} == {"ruff", "mypy", "tests.support.prebuilt"}
    ci_lines = {line.strip() for line in CI_SCRIPT.splitlines()}
    assert [c for c in commands if c not in ci_lines] == []
    assert all(hook["pass_filenames"] is False for hook in hooks)  # the same folders as CI, not the staged files


def test_ci_tests_every_supported_python() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    versions = workflow["jobs"]["tests"]["strategy"]["matrix"]["python"]
    assert versions == ["3.11", "3.12", "3.13"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert requires == f">={versions[0]}"
