"""What the MCP tests share: the server to spawn on either backend, a git repository to serve, the tool's JSON."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import git
from mcp import StdioServerParameters

from tests.support.github_helpers import TOKEN

#: The repository's root (the server runs from the source tree, as the tests do).
ROOT = Path(__file__).resolve().parents[2]
#: The documented example result, ``examples/needs_input.json``.
EXAMPLE: dict[str, Any] = json.loads((ROOT / "examples" / "needs_input.json").read_text())


def git_repo(tmp_path: Path) -> Path:
    """A repository with one commit on ``main`` and the agent branch ``agent/billing-42``."""
    root = tmp_path / "repo"
    repository = git.Repo.init(root, initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "name", "Alice")
        writer.set_value("user", "email", "alice@example.com")
    repository.index.commit("initial")
    repository.create_head("agent/billing-42", "main")
    return root


def server(backend: str, tmp_path: Path) -> tuple[StdioServerParameters, dict[str, Any]]:
    """How to start the server, and how the gate is asked for on that backend."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "bot")))}
    if backend == "git":
        repo = git_repo(tmp_path)
        args = ["-m", "parkbot", "mcp", "--repo", str(repo)]
        return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(repo)), {
            "ref": "agent/billing-42"
        }
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\n")
    env |= {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": "https://api.github.com"}
    args = ["-m", "tests.support.mcp_github_server", "--config", str(config)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(tmp_path)), {"pr": 1}


def structured(result: Any) -> dict[str, Any]:
    """The tool's JSON: the same object as structured content and as its one text block."""
    assert len(result.content) == 1
    text: dict[str, Any] = json.loads(result.content[0].text)
    assert text == result.structured_content
    return text
