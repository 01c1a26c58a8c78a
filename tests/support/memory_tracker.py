"""An in-memory Tracker: the reference the contract suite holds the real backends to.

It is a test double, kept in tests/, and it runs the same contract suite as the git and GitHub
backends, so it cannot drift from them either.
"""

from __future__ import annotations

from collections.abc import Iterator

from parkbot.core.authority import Actor
from parkbot.core.errors import ConcurrentChange
from parkbot.core.identity import check_decision_id
from parkbot.core.links import unverifiable_link
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.core.tracker import DependentState, GateResult, Location, ReactionContent, Role


def _why_not_found(ref: str) -> str:
    """What every backend reports for a trailer naming no decision it holds."""
    try:
        check_decision_id(ref)
    except ValueError:
        return "not a decision id parkbot can look up"
    return "not found"


class MemoryTracker:
    backend = "memory"

    def __init__(self, owner: str = "alice") -> None:
        self.items: dict[str, Decision] = {}
        self.answers: dict[str, Answer] = {}
        self.notes: dict[tuple[str, str], str] = {}
        #: The answer each dependent was pointed at (step b), as backends store it beside the note.
        self.pointed: dict[tuple[str, str], Answer] = {}
        #: Why each abandoned decision was given up (backends show it on the item).
        self.abandon_reasons: dict[str, str] = {}
        self.trailers: dict[str, set[str]] = {}
        self.published: dict[str, GateResult] = {}
        self.writes = 0
        self.owner = owner
        self.teams: dict[str, set[str]] = {}
        self.log: list[LogEntry] = []
        #: Repository roles and the authors of dependents, for the authorization rules.
        self.roles: dict[str, Role] = {}
        self.authors: dict[str, str] = {}
        #: Reactions given to comments: (issue number, comment id, content), in order.
        self.reactions: list[tuple[int, str, ReactionContent]] = []
        #: Answers that lost a sync to the one that stands, as the git backlog keeps them (found with each decision).
        self.conflicts: list[Answer] = []

    def default_owner(self) -> str:
        return self.owner

    def claim(self, decision_id: str) -> bool:
        return False

    def find(self, decision_id: str) -> Decision | None:
        found = self.items.get(decision_id)
        return found.with_conflicting_answers(self.conflicts) if found is not None and self.conflicts else found

    def recorded_answer(self, decision: Decision) -> Answer | None:
        return self.answers.get(decision.id)

    def location(self, decision: Decision) -> Location:
        return Location(backend="memory", path=decision.id)

    def create(self, decision: Decision, log: LogEntry) -> Location:
        if decision.id in self.items:
            raise ConcurrentChange(f"{decision.id} appeared meanwhile")
        self.items[decision.id] = decision
        self.log.append(log)
        self.writes += 1
        return self.location(decision)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        self.items[decision.id] = decision
        if log is not None:
            self.log.append(log)
        self.writes += 1
        return self.location(decision)

    def _states(self, decision: Decision) -> list[DependentState]:
        return [
            DependentState(target, tuple(d for d in self.linked_decisions(target) if d.id != decision.id))
            for target in dict.fromkeys(decision.dependents)
        ]

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        return self._states(decision)

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        existing = self.answers.get(decision.id)
        if existing is not None and not existing.same_answer(answer):
            raise ConcurrentChange(f"{decision.id} was answered differently meanwhile")
        if existing is None:
            self.answers[decision.id] = answer
            self.writes += 1

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        for target in decision.dependents:
            self.notes[(target, decision.id)] = f"answered: {answer.value}"
            self.pointed[(target, decision.id)] = answer

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        return self._states(decision)

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        current = self.items[decision.id]
        if current.state != "resolved":
            self.log.append(log)
            self.items[decision.id] = current.model_copy(update={"state": "resolved", "answer": answer})
            self.writes += 1

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        self.abandon_reasons[decision.id] = reason  # what a backend shows on the item (GitHub: a comment)
        self.log.append(log)
        self.items[decision.id] = self.items[decision.id].model_copy(update={"state": "abandoned"})

    def linked_decisions(self, target: str) -> list[Decision]:
        linked = [d for d in self.items.values() if target in d.dependents]
        for ref in sorted(self.trailers.get(target, set())):
            linked.append(self.items[ref] if ref in self.items else unverifiable_link(ref, _why_not_found(ref)))
        return linked

    def publish_gate(self, result: GateResult) -> None:
        self.published[result.target] = result

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        return iter([d for d in self.items.values() if state is None or d.state == state])

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        return [d for d in self.items.values() if d.state == "open" and (d.origin == origin or (run and d.run == run))]

    def append_log(self, entry: LogEntry) -> None:
        self.log.append(entry)

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        return iter(list(self.log))

    def is_member(self, login: str, principal: str) -> bool:
        if principal.startswith("@"):
            return login.casefold() in {m.casefold() for m in self.teams.get(principal, set())}
        return login.casefold() == principal.casefold()

    def actor(self, claimed: str | None) -> Actor:
        return Actor(claimed or self.owner, bot=(claimed or "").casefold().endswith("[bot]"))

    def permission_of(self, login: str) -> Role | None:
        return self.roles.get(login.casefold())

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        return frozenset(self.authors[t].casefold() for t in decision.dependents if t in self.authors)

    # -- capabilities -------------------------------------------------------------------------------

    def last_seen(self, decision_id: str) -> Decision | None:
        return self.items.get(decision_id)

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        if (issue_number, str(comment_id), content) not in self.reactions:
            self.reactions.append((issue_number, str(comment_id), content))
