"""Which version of a decision wins when two copies of the backlog changed it: a pure rule, so every
backend that merges (the git backlog's ``sync``) applies the same one, and it is tested without one.

* A resolution that carries authority beats one that does not; a resolved version beats an open one.
* Two resolutions that carry authority and give **different** answers are a conflict. No answer is ever
  dropped: the earlier answer stands (it is the one dependents may already have acted on), the other is
  reported (:class:`AnswerConflict`) and kept, until an owner confirms one.
* Otherwise the later ``updated_at`` wins. Dependents are always united.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parkbot.core.models import Answer, Decision


@dataclass(frozen=True)
class Version:
    """One side's copy of a decision, and whether its resolution carries authority (always, unless signed
    answers are required and its answer's signature does not prove an owner)."""

    decision: Decision
    counts: bool


@dataclass(frozen=True)
class AnswerConflict:
    """Two answers an owner gave to one decision on two machines: ``kept`` stands, ``other`` is reported."""

    decision_id: str
    kept: Answer
    other: Answer

    def as_dict(self) -> dict[str, Any]:
        def answer(a: Answer) -> dict[str, Any]:
            return {"value": a.value, "kind": a.kind, "by": a.by, "at": a.at.isoformat()}

        return {"decision": self.decision_id, "kept": answer(self.kept), "other": answer(self.other)}

    def message(self) -> str:
        return (
            f"{self.decision_id}: conflicting answers: {self.kept.value!r} by {self.kept.by} at "
            f"{self.kept.at.isoformat()} stands (the earlier); {self.other.value!r} by {self.other.by} at "
            f"{self.other.at.isoformat()} is kept in the history"
        )


@dataclass(frozen=True)
class SyncResult:
    """What one ``sync`` did: ``action`` (``up-to-date``, ``fetched``, ``pushed``, ``merged``), and the
    remote records it kept but that carry no authority (``<id>: unverified answer by ...``)."""

    action: str
    ignored: tuple[str, ...] = ()
    #: Answers that conflicted (two owners answered differently on two copies): the earlier stands.
    conflicts: tuple[AnswerConflict, ...] = ()

    def summary(self) -> str:
        text = self.action
        if self.ignored:
            text += f"; ignored {len(self.ignored)} unverified record(s): " + "; ".join(self.ignored)
        if self.conflicts:
            text += f"; {len(self.conflicts)} conflicting answer(s): " + "; ".join(c.message() for c in self.conflicts)
        return text


def _rank(version: Version) -> tuple[bool, bool]:
    resolved = version.decision.state == "resolved"
    return (resolved and version.counts, resolved)


def earlier(first: Answer, second: Answer) -> Answer:
    """The answer given first: the one that stands when two conflict. Answers given in the same second are
    ordered by who gave them, then by value, so every copy of the backlog keeps the same one."""

    def order(answer: Answer) -> tuple[object, ...]:
        return (answer.at, answer.by.casefold(), answer.value.casefold(), answer.kind)

    return second if order(second) < order(first) else first


def merge_versions(ours: Version, theirs: Version) -> tuple[Decision, AnswerConflict | None]:
    """The merged decision, and the conflict it settled, if any (see the module docstring)."""
    o, t = ours.decision, theirs.decision
    conflict = None
    if _rank(ours) != _rank(theirs):
        winner, loser = (o, t) if _rank(ours) > _rank(theirs) else (t, o)
    elif _rank(ours) == (True, True) and o.answer is not None and t.answer is not None:
        kept = earlier(o.answer, t.answer)
        winner, loser = (o, t) if kept is o.answer else (t, o)
        if not o.answer.same_answer(t.answer):
            assert loser.answer is not None
            conflict = AnswerConflict(o.id, kept, loser.answer)
    else:
        winner, loser = (t, o) if t.updated_at > o.updated_at else (o, t)
    dependents = list(dict.fromkeys([*winner.dependents, *loser.dependents]))
    return winner.model_copy(update={"dependents": dependents}), conflict
