"""An in-memory Tracker: the reference the contract suite holds the real backends to.

It is a test double, kept in tests/, and it runs the same contract suite as the git and GitHub
backends, so it cannot drift from them either.
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.errors import ConcurrentChange, Refused
from bot.lifecycle import evaluate_gate
from bot.models import Answer, Decision, LogEntry
from bot.tracker import GateResult, Location


class MemoryTracker:
    backend = "memory"

    def __init__(self, owner: str = "alice") -> None:
        self.items: dict[str, Decision] = {}
        self.answers: dict[str, Answer] = {}
        self.notes: dict[tuple[str, str], str] = {}
        self.trailers: dict[str, set[str]] = {}
        self.published: dict[str, GateResult] = {}
        self.writes = 0
        self.owner = owner
        self.teams: dict[str, set[str]] = {}
        self.log: list[LogEntry] = []

    def default_owner(self) -> str:
        return self.owner

    def claim(self, decision_id: str) -> bool:
        return False

    def find(self, decision_id: str) -> Decision | None:
        return self.items.get(decision_id)

    def recorded_answer(self, decision: Decision) -> Answer | None:
        return self.answers.get(decision.id)

    def location(self, decision: Decision) -> Location:
        return Location(backend="memory", path=decision.id)

    def create(self, decision: Decision) -> Location:
        if decision.id in self.items:
            raise ConcurrentChange(f"{decision.id} appeared meanwhile")
        self.items[decision.id] = decision
        self.writes += 1
        return self.location(decision)

    def update(self, decision: Decision) -> Location:
        self.items[decision.id] = decision
        self.writes += 1
        return self.location(decision)

    def block_dependents(self, decision: Decision) -> list[GateResult]:
        return [self._publish(target) for target in decision.dependents]

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        existing = self.answers.get(decision.id)
        if existing is not None and not existing.same_answer(answer):
            raise Refused("conflicting answer", reason="conflicting_answer")
        if existing is None:
            self.answers[decision.id] = answer
            self.writes += 1

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        for target in decision.dependents:
            self.notes[(target, decision.id)] = f"answered: {answer.value}"

    def clear_blocking(self, decision: Decision) -> list[GateResult]:
        return [
            self._publish(target, evaluate_gate(target, self.linked_decisions(target), ignore=decision.id))
            for target in decision.dependents
        ]

    def close(self, decision: Decision, answer: Answer) -> None:
        current = self.items[decision.id]
        if current.state != "resolved":
            self.items[decision.id] = current.model_copy(update={"state": "resolved", "answer": answer})
            self.writes += 1

    def mark_abandoned(self, decision: Decision, reason: str) -> None:
        self.items[decision.id] = self.items[decision.id].model_copy(update={"state": "abandoned"})

    def linked_decisions(self, target: str) -> list[Decision]:
        linked = [d for d in self.items.values() if target in d.dependents]
        linked += [self.items[i] for i in self.trailers.get(target, set()) if i in self.items]
        return linked

    def publish_gate(self, result: GateResult) -> None:
        self.published[result.target] = result

    def _publish(self, target: str, result: GateResult | None = None) -> GateResult:
        result = result or evaluate_gate(target, self.linked_decisions(target))
        self.publish_gate(result)
        return result

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

    def permission_of(self, login: str, decision: Decision | None = None) -> str | None:
        return None
