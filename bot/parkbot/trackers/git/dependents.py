"""Dependents and their gates on the embedded backlog: the decisions a dependent waits for, found through
the index and, for a branch, through the ``Blocked-by:`` trailers of its own commits.

The adapter reports facts (:class:`~parkbot.core.tracker.DependentState`); the core evaluates the gates.
A trailer naming a decision the backlog does not hold (not parked yet, not fetched, a typo, not an id at
all) is reported as such and becomes the core's stand-in (:func:`parkbot.core.links.unverifiable_link`):
the gate fails closed, with the same reason on every backend.
"""

from __future__ import annotations

from collections.abc import Iterable

from parkbot.core.errors import InvalidInput
from parkbot.core.identity import check_decision_id
from parkbot.core.links import unverifiable_link
from parkbot.core.models import Decision
from parkbot.core.tracker import DependentState, GateResult
from parkbot.trackers.git.layout import is_decision_id, normalize_target
from parkbot.trackers.git.reads import DecisionReads
from parkbot.trackers.git.repository import BacklogRepository
from parkbot.trackers.git.view import BacklogView

#: What the backend found for a trailer it cannot follow (the words the GitHub backend uses too).
NOT_FOUND = "not found"
NOT_AN_ID = "not a decision id parkbot can look up"


def _why_not_found(raw: str) -> str:
    """The fact about a link this backlog holds no decision for: no such decision, or not an id at all
    (by the core's rule for ids, as on GitHub)."""
    try:
        check_decision_id(raw)
    except ValueError:
        return NOT_AN_ID
    return NOT_FOUND


def trailer_values(text: str) -> list[str]:
    """The ids in ``Blocked-by:`` values, lowercased: separated by commas or spaces (string tests: no pattern
    compiled by every ``gate``)."""
    return [value.lower() for value in text.replace(",", " ").split()]


class BranchDependents:
    """What links a dependent (``#12`` or ``branch:<name>``) to decisions, and the base its branch is read from."""

    def __init__(self, backlog: BacklogRepository, reads: DecisionReads, *, base: str | None = None) -> None:
        self.backlog = backlog
        self.reads = reads
        self._base_arg = base
        self._base: str | None = None
        self._base_known = False

    def full_ref(self, name: str) -> str | None:
        """``name`` as the ref that exists here (a branch, then a remote-tracking branch), or None."""
        candidates = [name] if name.startswith("refs/") else [f"refs/heads/{name}", f"refs/remotes/{name}"]
        return next((ref for ref in candidates if self.backlog.ref_sha(ref) is not None), None)

    def base(self) -> str | None:
        """The ref a dependent branch is compared with: origin's HEAD, else ``main``, else ``master``."""
        if not self._base_known:
            if self._base_arg is not None:
                self._base = self.full_ref(self._base_arg) or self._base_arg
            else:
                self._base = self._remote_head() or self.full_ref("main") or self.full_ref("master")
            self._base_known = True
        return self._base

    def _remote_head(self) -> str | None:
        try:
            text = (self.backlog.common / "refs/remotes/origin/HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if text.startswith("ref: ") and self.backlog.ref_sha(text[5:]) is not None:
            return text[5:]
        return None

    def _trailer_ids(self, branch: str, *, strict: bool) -> list[str]:
        """Values of ``Blocked-by:`` trailers on the branch's own commits (one ``git log``).

        A branch that does not exist here yields nothing when ``strict`` is false (a dependent named
        before it was pushed) and an :class:`InvalidInput` otherwise (``parkbot gate`` on a typo).
        """
        if branch.startswith("-") or any(c.isspace() for c in branch):
            raise InvalidInput(f"{branch!r} is not a branch name")
        git_ = self.backlog.git
        rev = self.full_ref(branch)
        if rev is None:  # a commit id or another revision: ask git (rare, so one more process is fine)
            done = git_.run("rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False)
            if done.returncode != 0:
                if not strict:
                    return []
                raise InvalidInput(
                    f"branch {branch!r} is not in this repository (neither refs/heads/{branch}, "
                    f"refs/remotes/{branch} nor a commit): fetch it, or name it as a full ref"
                )
            rev = done.stdout.decode("ascii").strip()
        base = self.base()
        spec = rev if base is None or base == rev else f"{base}..{rev}"
        done = git_.run(
            "log", "--no-show-signature", "--format=%(trailers:key=Blocked-by,valueonly)", spec, "--", check=False
        )
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            raise InvalidInput(f"cannot read the commits {spec} (is the base {base!r} valid?): {stderr}")
        out = done.stdout.decode("utf-8", "replace")
        return trailer_values(out)

    def _linked(self, view: BacklogView, target: str, *, strict: bool) -> list[Decision]:
        ids = view.link_ids(target)
        if target.startswith("branch:"):
            ids += self._trailer_ids(target.removeprefix("branch:"), strict=strict)
        unique = list(dict.fromkeys(ids))
        found = {d.id: d for d in view.decisions(i for i in unique if is_decision_id(i))}
        linked = [found.get(raw) or unverifiable_link(raw, _why_not_found(raw)) for raw in unique]
        return self.reads.prove(linked, view)

    def linked_decisions(self, target: str) -> list[Decision]:
        """Decisions from the index plus, for a branch, its ``Blocked-by:`` trailers.

        A trailer naming no decision here comes back as the core's blocking stand-in (the gate fails
        closed, saying why). A branch that cannot be read is an :class:`InvalidInput`.
        """
        return self._linked(self.reads.view(), normalize_target(target), strict=True)

    def states(self, targets: Iterable[str], decision_id: str) -> list[DependentState]:
        """What still links each dependent besides ``decision_id`` (the core evaluates the gates)."""
        view = self.reads.view()
        return [
            DependentState(target, tuple(d for d in self._linked(view, target, strict=False) if d.id != decision_id))
            for target in dict.fromkeys(targets)
        ]

    def publish_gate(self, result: GateResult) -> None:
        """Nothing to write: ``parkbot gate`` reports the result and its exit code."""
