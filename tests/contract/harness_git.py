"""Contract harnesses for the embedded git backlog, on real repositories in temporary folders.

:class:`GitHarness` is the backlog as most repositories run it. :class:`SignedGitHarness` adds
``answers.require_signed``: alice, carol and dana each have a real SSH key listed in an
allowed-signers file, and every act is signed with the key of whoever :meth:`~SignedGitHarness.act_as`
names (mallory's key is listed nowhere), so contract tests can check which records carry authority.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import git

from parkbot.core.config import Answers, Config, Owners
from parkbot.trackers.git import GitTracker

HIERARCHY = {"alice": "carol", "carol": "dana"}


class GitHarness:
    def __init__(self, root: Path, config: Config | None = None) -> None:
        self.repo = git.Repo.init(root, initial_branch="main")
        with self.repo.config_writer() as writer:
            writer.set_value("user", "name", "Alice")
            writer.set_value("user", "email", "alice@example.com")
        (root / "README").write_text("hello\n")
        self.repo.index.add(["README"])
        self.repo.index.commit("initial")
        self.config = config or Config(owners=Owners(default="alice"), hierarchy=dict(HIERARCHY))
        self.tracker = GitTracker(self.repo, config=self.config)

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
        self.tracker.release()
        self.repo.close()


class SignedGitHarness(GitHarness):
    """The git harness with signed answers: acts are signed with the key of :meth:`act_as`'s login."""

    SIGNERS = ("alice", "carol", "dana")

    def __init__(self, root: Path) -> None:
        keys = root.parent / f"{root.name}-keys"
        keys.mkdir(parents=True, exist_ok=True)
        self.keys: dict[str, Path] = {}
        for login in (*self.SIGNERS, "mallory"):
            key = keys / login
            if not key.exists():
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", login, "-f", str(key)], check=True)
            self.keys[login] = key
        signers = keys / "allowed_signers"
        lines = [
            f"{login} {' '.join(self.keys[login].with_suffix('.pub').read_text().split()[:2])}"
            for login in self.SIGNERS
        ]
        signers.write_text("\n".join(lines) + "\n")
        config = Config(
            owners=Owners(default="alice"),
            hierarchy=dict(HIERARCHY),
            answers=Answers(require_signed=True, allowed_signers=str(signers)),
        )
        super().__init__(root, config)
        with self.repo.config_writer() as writer:
            writer.set_value("gpg", "format", "ssh")
        self.act_as("alice")

    def act_as(self, login: str) -> None:
        """Sign what comes next with ``login``'s key (any login but alice, carol and dana: an unlisted key)."""
        key = self.keys.get(login, self.keys["mallory"])
        with self.repo.config_writer() as writer:
            writer.set_value("user", "signingkey", str(key))


def make_git_harness(tmp_path: Path) -> GitHarness:
    return GitHarness(tmp_path / "repo")


def make_signed_git_harness(tmp_path: Path) -> SignedGitHarness:
    return SignedGitHarness(tmp_path / "repo")
