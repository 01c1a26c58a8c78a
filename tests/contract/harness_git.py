"""Contract harness for the embedded git backlog, on a real repository in a temporary folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import git

from bot.core.config import Config, Owners
from bot.trackers.git import GitTracker


class GitHarness:
    def __init__(self, root: Path) -> None:
        self.repo = git.Repo.init(root, initial_branch="main")
        with self.repo.config_writer() as writer:
            writer.set_value("user", "name", "Alice")
            writer.set_value("user", "email", "alice@example.com")
        (root / "README").write_text("hello\n")
        self.repo.index.add(["README"])
        self.repo.index.commit("initial")
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})
        self.tracker = GitTracker(self.repo, ref=self.config.backlog_ref)

    def make_dependent(self, name: str) -> str:
        self.repo.create_head(name, "main")
        return f"branch:{name}"

    def link_by_trailer(self, target: str, decision_id: str) -> None:
        branch = target.removeprefix("branch:")
        head = self.repo.heads[branch].commit
        message = f"work that needs the answer\n\nBlocked-by: {decision_id}\n"
        commit = git.Commit.create_from_tree(self.repo, head.tree, message, parent_commits=[head])
        self.repo.heads[branch].commit = commit

    #: git has no repository roles, and a branch's commits name whoever their author claims to be.
    knows_roles = False
    knows_dependent_authors = False

    def owner_backlog(self, backlog: Any, login: str) -> Any:
        """Acting as an owner needs no other credentials here: the backlog itself."""
        return backlog

    def deliver(self, config: Any = None) -> None:
        """Nothing waits for a workflow here: acts are recorded at once."""

    def close(self) -> None:
        self.repo.close()


def make_git_harness(tmp_path: Path) -> GitHarness:
    return GitHarness(tmp_path / "repo")
