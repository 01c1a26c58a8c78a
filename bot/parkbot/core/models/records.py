"""The records the backends keep: decisions, answers, escalations, citations, corrections, planner
steps and the question log. Stored data, read back by parkbot itself: strict about unknown fields,
and never trusted to vouch for itself (a :class:`Proof` is only ever attached by the adapter that checked it).
"""

import json
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from parkbot.core.modeling import ConfigDict, Field, Model, PrivateAttr, StringConstraints
from parkbot.core.models.fields import (
    MAX_SHORT,
    MAX_TEXT,
    Assumption,
    Option,
    Strict,
)

AnswerKind = Literal["option", "free_text", "default", "precedent", "accepted", "planner"]
#: Answer kinds that are a person's own answer, which a planner may cite.
PERSON_ANSWER_KINDS = ("option", "free_text")
#: How many lines a planner may quote from one cited range.
MAX_CITED_LINES = 20


class Proof(Model):
    """What a backend could verify about who wrote a record: a signature, and whose it is.

    Never read from stored data (records carry it as a private attribute set by the adapter that
    checked the signature), so a record cannot vouch for itself.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    good: bool
    signer: str | None = None
    detail: str = ""


class _Provable(Strict):
    """A record an adapter may attach a :class:`Proof` to (see :func:`parkbot.core.authority.verified`)."""

    _proof: Proof | None = PrivateAttr(default=None)

    @property
    def proof(self) -> Proof | None:
        return self._proof

    def with_proof(self, proof: Proof | None) -> Any:
        copy = self.model_copy()
        copy._proof = proof
        return copy


class Citation(Strict):
    """Where a precedent answer came from, so nobody mistakes it for an invention."""

    decision: str
    answer: str
    answered_by: str
    answered_at: datetime
    location: str | None = None


Verbatim = Annotated[str, StringConstraints(strip_whitespace=False)]


class CitedSource(Strict):
    """One source a planner cited, as parkbot checked it: a file's lines at a commit, or a person's answer."""

    source: str = Field(description="The source as cited: docs/refunds.md#L10-L14, or a decision id.")
    path: str | None = None
    commit: str | None = Field(default=None, description="The default branch's commit the lines were read at.")
    start: int | None = Field(default=None, ge=1)
    end: int | None = Field(default=None, ge=1)
    quote: Verbatim | None = Field(default=None, description="The cited lines, verbatim.")
    decision: str | None = None
    answer: str | None = None
    answered_by: str | None = None


class Answer(_Provable):
    """An owner's answer, with who gave it and when; ``assumption`` marks an explicit default."""

    value: str = Field(min_length=1, max_length=MAX_TEXT)
    kind: AnswerKind = "option"
    by: str = Field(min_length=1, max_length=MAX_SHORT)
    at: datetime
    source: str | None = Field(default=None, description="The comment or command that gave the answer.")
    citation: Citation | None = None
    sources: list[CitedSource] = Field(
        default_factory=list, description="A planner answer's checked sources (kind planner)."
    )
    digest: str | None = Field(
        default=None, description="The question and options the answer was given against (Decision.content_digest)."
    )

    @property
    def answered_by(self) -> str:
        """``planner`` for a planner's answer, else ``owner`` (or the precedent/accepted kind)."""
        return "planner" if self.kind == "planner" else "owner"

    @property
    def assumption(self) -> bool:
        return self.kind == "default"

    def same_answer(self, other: "Answer") -> bool:
        """Equal for the re-run rule: same value and kind; who and when may differ on a retry."""
        return self.kind == other.kind and self.value.casefold() == other.value.casefold()


class Escalation(_Provable):
    """One hop of the question: up the owner hierarchy, or back to the requester of an interactive run."""

    kind: Literal["escalate", "return"] = "escalate"
    from_owner: str
    to_owner: str
    by: str
    at: datetime


class Override(Strict):
    """An owner turned one stated assumption of a review item into a recorded answer."""

    assumption: int = Field(ge=1, description="1-based index into the review item's assumptions.")
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    by: str
    at: datetime


class PlannerStep(Strict):
    """Where a question stands with the planner: waiting for it during the window, then answered,
    passed or expired; a planner answer is reviewed by the owner (``pending`` until accepted or overridden)."""

    state: Literal["waiting", "answered", "passed", "expired"] = "waiting"
    until: datetime = Field(description="When the planner's window ends and the owner is assigned.")
    by: str | None = None
    at: datetime | None = None
    reason: str | None = Field(default=None, max_length=MAX_TEXT)
    answer: Answer | None = Field(default=None, description="The planner's answer, with its checked sources.")
    review: Literal["pending", "accepted", "overridden"] | None = None
    review_due: datetime | None = Field(default=None, description="After this, an unreviewed answer is flagged.")
    reviewed_by: str | None = None
    reviewed_at: datetime | None = None


class Correction(Strict):
    """A resolved decision's answer replaced: by whoever answered or an owner above them (``correct``), or
    by an owner overruling a planner answer (``override``). History keeps both answers."""

    kind: Literal["correct", "override"] = "correct"
    previous: Answer
    answer: Answer
    reason: str | None = Field(default=None, max_length=MAX_TEXT)
    by: str
    at: datetime
    regated: list[str] = Field(default_factory=list, description="Dependents not merged: re-gated on the answer.")
    rework: list[str] = Field(default_factory=list, description="Dependents already merged: told to rework.")


LogEvent = Literal[
    "parked",
    "refused",
    "resolved",
    "escalated",
    "returned",
    "overridden",
    "abandoned",
    "passed",
    "corrected",
    "reviewed",
]


class LogEntry(Model):
    """One line of the question log: what was asked or refused, and how it was answered.

    Precedents are looked up here, and the report clusters it, so it carries the question text.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    at: datetime
    event: LogEvent
    origin: str
    decision: str | None = None
    key: str | None = None
    run: str | None = None
    question: str | None = None
    options: list[str] = Field(default_factory=list)
    guess: str | None = None
    answer: str | None = None
    answer_kind: str | None = None
    by: str | None = None
    reason: str | None = None
    location: str | None = None
    sources: list[str] = Field(default_factory=list, description="What a planner answer cited.")

    @classmethod
    def for_decision(cls, event: str, decision: "Decision", at: datetime, **extra: Any) -> Self:
        """The line for ``event`` on ``decision``: what it asked, and ``extra`` (answer, by, reason, ...)."""
        return cls.model_validate(
            {
                "at": at,
                "event": event,
                "origin": decision.origin,
                "decision": decision.id,
                "key": decision.key,
                "run": decision.run,
                "question": decision.question,
                "options": decision.option_ids(),
                "guess": decision.guess,
                **extra,
            }
        )


DecisionState = Literal["open", "resolved", "abandoned"]
DecisionKind = Literal["decision", "review"]


class Decision(Model):
    """A parked decision, as both backends store it. Built from a :class:`NeedsInput` by the lifecycle."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    kind: DecisionKind = "decision"
    origin: str
    key: str
    title: str
    question: str
    options: list[Option] = Field(default_factory=list)
    allow_free_text: bool = False
    work_so_far: Any = None
    blocking: bool = True
    guess: str | None = None
    run: str | None = None
    dependents: list[str] = Field(default_factory=list)
    owner: str
    state: DecisionState = "open"
    answer: Answer | None = None
    escalations: list[Escalation] = Field(default_factory=list)
    assumptions: list[Assumption] = Field(default_factory=list)
    precedent: Citation | None = None
    requester: str | None = None
    overrides: list[Override] = Field(default_factory=list)
    planner: PlannerStep | None = None
    filed_by: str | None = Field(default=None, description="Who filed the question, where the backend could tell.")
    corrections: list[Correction] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime
    #: When a re-filing last changed what the owner reads (question, options): an answer written before is
    #: refused. None while the question is as first filed.
    content_changed_at: datetime | None = None
    #: Why parts of the stored record carry no authority, as the backend or the core found them
    #: (edited by someone else, an unverified answer). Never stored: set on every read.
    _problems: tuple[str, ...] = PrivateAttr(default=())
    #: Who vouched for ``blocking: false`` (a signed filing), where the backend proves records. Never stored.
    _blocking_proof: Proof | None = PrivateAttr(default=None)
    #: Answers owners gave on other clones that lost a sync to the earlier one, until an owner confirms it.
    _conflicting: tuple[Answer, ...] = PrivateAttr(default=())

    @property
    def problems(self) -> tuple[str, ...]:
        return self._problems

    @property
    def blocking_proof(self) -> Proof | None:
        return self._blocking_proof

    def with_blocking_proof(self, proof: Proof | None) -> Self:
        copy = self.model_copy()
        copy._blocking_proof = proof
        return copy

    @property
    def conflicting_answers(self) -> tuple[Answer, ...]:
        return self._conflicting

    def with_conflicting_answers(self, answers: tuple[Answer, ...] | list[Answer]) -> Self:
        copy = self.model_copy()
        copy._conflicting = tuple(answers)
        return copy

    def content_digest(self) -> str:
        """A digest of what the owner reads before answering: the question and its options (ids and labels).

        An answer records the digest it was given against, so an answer never binds to options rewritten
        after the owner read them.
        """
        import hashlib

        parts = [self.question, *(f"{o.id}\0{o.label}" for o in self.options), str(self.allow_free_text)]
        return hashlib.sha256("\0\0".join(parts).encode("utf-8")).hexdigest()[:16]

    def with_problems(self, problems: tuple[str, ...] | list[str]) -> Self:
        copy = self.model_copy()
        copy._problems = tuple(dict.fromkeys(problems))
        return copy

    def content_key(self) -> tuple[Any, ...]:
        """What a re-filing may change; equal keys mean ``unchanged`` and no write at all."""
        return (
            self.title,
            self.question,
            [o.model_dump() for o in self.options],
            self.allow_free_text,
            json.dumps(self.work_so_far, sort_keys=True),
            self.blocking,
            self.guess,
            self.run,
            sorted(self.dependents),
            [a.model_dump() for a in self.assumptions],
        )

    @property
    def current_answer(self) -> Answer | None:
        """The answer that stands: the last correction's, else the first answer."""
        return self.corrections[-1].answer if self.corrections else self.answer

    @property
    def with_planner(self) -> bool:
        """Waiting for the planner (its owner is not assigned or notified yet)."""
        return self.state == "open" and self.planner is not None and self.planner.state == "waiting"

    @property
    def free_text_allowed(self) -> bool:
        return self.allow_free_text or not self.options

    def option_ids(self) -> list[str]:
        return [o.id for o in self.options]

    def chain(self) -> list[str]:
        """Owners the question travelled through, first to current."""
        if not self.escalations:
            return [self.owner]
        return [self.escalations[0].from_owner, *(e.to_owner for e in self.escalations)]

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        return cls.model_validate_json(text)
