"""Agent results and decision records (pydantic v2).

Everything an agent sends is untrusted: unknown fields, wrong types, blank questions, duplicate
option ids and oversized text are rejected with a message that names the field. The JSON Schema of
:data:`AgentResult` is published by ``parkbot schema`` so agents can validate before they send.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from bot.core.errors import InvalidInput
from bot.core.identity import check_decision_id, decision_id, normalize_name

# Size limits: generous for real use, small enough that one result cannot exhaust a backend.
MAX_QUESTION = 4_000
MAX_TITLE = 200
MAX_LABEL = 500
MAX_OPTIONS = 20
MAX_WORK_SO_FAR_BYTES = 256 * 1024
MAX_DEPENDENTS = 50
MAX_ASSUMPTIONS = 50
MAX_TEXT = 4_000
MAX_SHORT = 200


def _name(what: str):
    def check(value: Any) -> Any:
        return normalize_name(value, what=what) if isinstance(value, str) else value

    return BeforeValidator(check)


Origin = Annotated[str, _name("origin"), Field(description="Stable id of the task that raised the question.")]
Key = Annotated[str, _name("key"), Field(description="Names the question within its origin task.")]
OptionId = Annotated[str, _name("option id")]
ShortText = Annotated[str, Field(min_length=1, max_length=MAX_SHORT)]
Dependent = Annotated[str, Field(min_length=1, max_length=MAX_SHORT), AfterValidator(lambda v: parse_dependent(v))]


def utcnow() -> datetime:
    """The clock; tests pass their own ``now`` instead of patching this."""
    return datetime.now(UTC).replace(microsecond=0)


class Strict(BaseModel):
    """Unknown fields are errors: a typo must not silently drop information."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Option(Strict):
    """One answer the owner can pick; the id is what ``/decide <id>`` names."""

    id: OptionId
    label: str = Field(min_length=1, max_length=MAX_LABEL)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        """Accept the design notes' ``"id: label"`` strings as well as objects."""
        if isinstance(value, str):
            ident, sep, label = value.partition(":")
            return {"id": ident.strip(), "label": (label.strip() if sep else ident.strip()) or ident.strip()}
        return value


class NeedsInput(Strict):
    """The agent stops and asks: the question, concrete options, and the work already done."""

    status: Literal["needs_input"]
    origin: Origin
    key: Key
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    title: str | None = Field(
        default=None, min_length=1, max_length=MAX_TITLE, description="Defaults to the question's first line."
    )
    options: list[Option] = Field(default_factory=list, max_length=MAX_OPTIONS)
    allow_free_text: bool = Field(default=False, description="Accept `/answer <text>` even though options are given.")
    work_so_far: Any = Field(default=None, description="Preserved work; returned verbatim on resume.")
    blocking: bool = True
    guess: OptionId | None = Field(default=None, description="The option the agent would have picked.")
    run: ShortText | None = None
    dependents: list[Dependent] = Field(
        default_factory=list,
        max_length=MAX_DEPENDENTS,
        description="What waits for the answer: '#12' (a pull request) or a branch name.",
    )
    requester: ShortText | None = Field(
        default=None,
        description="Who started an interactive run; `/return` hands the question back to them.",
    )

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain non-whitespace text")
        return value

    @field_validator("options")
    @classmethod
    def _unique_options(cls, value: list[Option]) -> list[Option]:
        seen: set[str] = set()
        for option in value:
            if option.id in seen:
                raise ValueError(f"duplicate option id {option.id!r}")
            seen.add(option.id)
        return value

    @field_validator("work_so_far")
    @classmethod
    def _bounded_work(cls, value: Any) -> Any:
        size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
        if size > MAX_WORK_SO_FAR_BYTES:
            raise ValueError(f"is {size} bytes as JSON; at most {MAX_WORK_SO_FAR_BYTES} allowed")
        return value

    @field_validator("guess")
    @classmethod
    def _guess_is_an_option(cls, value: str | None, info: ValidationInfo) -> str | None:
        options = info.data.get("options") or []
        if value is not None and options and value not in {o.id for o in options}:
            raise ValueError(f"{value!r} is not one of the option ids {[o.id for o in options]}")
        return value

    @property
    def decision_id(self) -> str:
        return decision_id(self.origin, self.key)

    @property
    def effective_title(self) -> str:
        return self.title or default_title(self.question)


class Assumption(Strict):
    """One stated assumption the agent proceeded under."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    option: OptionId | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value


class DoneWithAssumptions(Strict):
    """The agent finished under stated assumptions, for the owner to review rather than pre-authorize."""

    status: Literal["done_with_assumptions"]
    origin: Origin
    run: ShortText | None = None
    title: str | None = Field(default=None, min_length=1, max_length=MAX_TITLE)
    assumptions: list[Assumption] = Field(min_length=1, max_length=MAX_ASSUMPTIONS)
    work_so_far: Any = None
    dependents: list[Dependent] = Field(default_factory=list, max_length=MAX_DEPENDENTS)

    _bounded_work = field_validator("work_so_far")(NeedsInput._bounded_work.__func__)  # type: ignore[attr-defined]


class _Inventory(Strict):
    """A finished run says which decisions it surfaced; silence is not an answer."""

    origin: Origin
    run: ShortText | None = None
    decisions: list[str] = Field(
        default_factory=list, description="Decision ids (or keys within this origin) the run surfaced."
    )
    none: bool = Field(default=False, description="The positive claim that the run looked and found nothing.")

    @field_validator("decisions")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        return [_inventory_entry(item) for item in value]

    @model_validator(mode="after")
    def _explicit_none(self) -> _Inventory:
        if not self.decisions and not self.none:
            raise ValueError(
                "decisions: an empty inventory is not accepted as 'nothing found'; "
                "list the decisions, or say none: true"
            )
        if self.decisions and self.none:
            raise ValueError("none: true contradicts a non-empty decisions list")
        return self

    def decision_ids(self) -> list[str]:
        return [d if "-decision-" in d else decision_id(self.origin, d) for d in self.decisions]


def _inventory_entry(value: str) -> str:
    if "-decision-" in value.lower():
        return check_decision_id(value)
    return normalize_name(value, what="decision key")


class Done(_Inventory):
    status: Literal["done"]


class Failed(_Inventory):
    status: Literal["failed"]
    error: str = Field(min_length=1, max_length=MAX_TEXT)


AgentResult = Annotated[NeedsInput | DoneWithAssumptions | Done | Failed, Field(discriminator="status")]
_RESULT_ADAPTER: TypeAdapter[Any] = TypeAdapter(AgentResult)


def parse_result(data: Any) -> NeedsInput | DoneWithAssumptions | Done | Failed:
    """Validate an agent result; raise :class:`InvalidInput` naming every bad field."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"result is not valid JSON: {exc}") from exc
    try:
        return _RESULT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "result")) from exc


def result_json_schema() -> dict[str, Any]:
    """The published JSON Schema of every result an agent may return."""
    schema = _RESULT_ADAPTER.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "parkbot agent result"
    return schema


def describe_validation_error(exc: ValidationError, what: str) -> str:
    """One line per problem, each naming the field path, e.g. ``options[1].id: duplicate ...``."""
    lines = []
    for error in exc.errors(include_url=False):
        loc = error.get("loc", ())
        # Discriminated unions put the tag first (``needs_input.question``): drop it.
        parts = [p for p in loc if not (isinstance(p, str) and p in _STATUSES and p == loc[0])]
        path = ""
        for part in parts:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        message = error.get("msg", "invalid").removeprefix("Value error, ")
        if error.get("type") == "extra_forbidden":
            message = "unknown field (check the spelling; see `parkbot schema`)"
        if error.get("type") == "union_tag_invalid":
            message = f"must be one of {sorted(_STATUSES)}"
        lines.append(f"{path or what}: {message}")
    return f"invalid {what}:\n  " + "\n  ".join(lines)


_STATUSES = {"needs_input", "done_with_assumptions", "done", "failed"}


def default_title(question: str) -> str:
    """The question's first line, cut to fit a title."""
    first = next((line.strip() for line in question.splitlines() if line.strip()), question.strip())
    return first if len(first) <= 120 else first[:119].rstrip() + "…"


_PR_PATTERN = re.compile(r"^(?:#|pr:|pull/)?(\d{1,9})$", re.IGNORECASE)


def parse_dependent(value: str) -> str:
    """Normalize a dependent to ``#N`` (a pull request) or ``branch:<name>``."""
    text = value.strip()
    match = _PR_PATTERN.match(text)
    if match:
        return f"#{int(match.group(1))}"
    name = text.removeprefix("branch:").removeprefix("refs/heads/")
    if not name or any(c.isspace() or c in "~^:?*[\\" for c in name) or ".." in name or name.startswith("-"):
        raise ValueError(f"{value!r} is neither a pull request ('#12') nor a valid branch name")
    return f"branch:{name}"


# --- records kept by the backends -------------------------------------------------------------

AnswerKind = Literal["option", "free_text", "default", "precedent", "accepted"]


class Proof(BaseModel):
    """What a backend could verify about who wrote a record: a signature, and whose it is.

    Never read from stored data (records carry it as a private attribute set by the adapter that
    checked the signature), so a record cannot vouch for itself.
    """

    model_config = ConfigDict(frozen=True)

    good: bool
    signer: str | None = None
    detail: str = ""


class _Provable(Strict):
    """A record an adapter may attach a :class:`Proof` to (see :func:`bot.core.authority.verified`)."""

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


class Answer(_Provable):
    """An owner's answer, with who gave it and when; ``assumption`` marks an explicit default."""

    value: str = Field(min_length=1, max_length=MAX_TEXT)
    kind: AnswerKind = "option"
    by: str = Field(min_length=1, max_length=MAX_SHORT)
    at: datetime
    source: str | None = Field(default=None, description="The comment or command that gave the answer.")
    citation: Citation | None = None

    @property
    def assumption(self) -> bool:
        return self.kind == "default"

    def same_answer(self, other: Answer) -> bool:
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


LogEvent = Literal["parked", "refused", "resolved", "escalated", "returned", "overridden", "abandoned"]


class LogEntry(BaseModel):
    """One line of the question log: what was asked or refused, and how it was answered.

    Precedents are looked up here, and the report clusters it, so it carries the question text.
    """

    model_config = ConfigDict(extra="ignore")

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

    @classmethod
    def for_decision(cls, event: str, decision: Decision, at: datetime, **extra: Any) -> LogEntry:
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


class Decision(BaseModel):
    """A parked decision, as both backends store it. Built from a :class:`NeedsInput` by the lifecycle."""

    model_config = ConfigDict(extra="forbid")

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
    created_at: datetime
    updated_at: datetime
    #: Why parts of the stored record carry no authority, as the backend or the core found them
    #: (edited by someone else, an unverified answer). Never stored: set on every read.
    _problems: tuple[str, ...] = PrivateAttr(default=())

    @property
    def problems(self) -> tuple[str, ...]:
        return self._problems

    def with_problems(self, problems: tuple[str, ...] | list[str]) -> Decision:
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
    def from_json(cls, text: str | bytes) -> Decision:
        return cls.model_validate_json(text)
