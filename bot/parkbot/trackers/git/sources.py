"""What the planner may cite, read from git: files at the default branch's commit, and merged branches.

Facts only (``parkbot.core.planner`` holds the rules): ``git show <commit>:<path>`` for a file, ``git
merge-base --is-ancestor`` for whether a dependent branch is merged into the default branch.
"""

from __future__ import annotations

from parkbot.core.models import Decision
from parkbot.trackers.git.dependents import BranchDependents
from parkbot.trackers.git.repository import BacklogRepository


def file_at(backlog: BacklogRepository, commit: str, path: str) -> str | None:
    """The text of ``path`` at ``commit`` (a blob), or None when it is not a file there or not UTF-8."""
    done = backlog.git.run("cat-file", "-t", f"{commit}:{path}", check=False)
    if done.returncode != 0 or done.stdout.strip() != b"blob":
        return None
    shown = backlog.git.run("cat-file", "blob", f"{commit}:{path}", check=False)
    if shown.returncode != 0:
        return None
    try:
        return shown.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_merged(backlog: BacklogRepository, branch_ref: str, base_ref: str) -> bool:
    """Whether the branch's tip is contained in the base (the default branch)."""
    tip, base = backlog.ref_sha(branch_ref), backlog.ref_sha(base_ref)
    if tip is None or base is None:
        return False
    return backlog.git.run("merge-base", "--is-ancestor", tip, base, check=False).returncode == 0


class PlannerSources:
    """What a planner may cite (:class:`~parkbot.core.planner.SourceFiles`,
    :class:`~parkbot.core.planner.MergedDependents`), read at the default branch of :class:`BranchDependents`."""

    def __init__(self, backlog: BacklogRepository, dependents: BranchDependents) -> None:
        self.backlog = backlog
        self.dependents = dependents

    def default_branch_commit(self) -> str | None:
        """The default branch's current commit (origin's HEAD, else main, else master)."""
        base = self.dependents.base()
        return self.backlog.ref_sha(base) if base else None

    def file_at(self, commit: str, path: str) -> str | None:
        return file_at(self.backlog, commit, path)

    def merged_dependents(self, decision: Decision) -> frozenset[str]:
        """Dependent branches already contained in the default branch."""
        base = self.dependents.base()
        if base is None:
            return frozenset()
        merged = set()
        for target in decision.dependents:
            if target.startswith("branch:"):
                ref = self.dependents.full_ref(target.removeprefix("branch:"))
                if ref is not None and is_merged(self.backlog, ref, base):
                    merged.add(target)
        return frozenset(merged)
