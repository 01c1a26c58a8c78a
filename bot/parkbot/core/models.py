"""Agent results and decision records (pydantic v2).

Everything an agent sends is untrusted, and validated in pydantic's *strict* mode: nothing is
coerced (``"no"``, ``1`` or ``"true"`` are not booleans), unknown fields are errors, and every
rejection names the field. The published JSON Schema (``parkbot schema``, and the file
``schema/agent-result.schema.json``) is generated from these very models, and each rule is stated
once: the patterns and lengths the schema shows are the ones the validators use. The few rules
plain JSON Schema cannot state are listed in :data:`RULES_BEYOND_THE_SCHEMA`, and the schema's own
description lists them too.
"""

import json
import re
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import core_schema as cs

from parkbot.core.errors import InvalidInput
from parkbot.core.identity import (
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    SEPARATOR,
    check_decision_id,
    decision_id,
    normalize_name,
)
from parkbot.core.suggest import closest, did_you_mean

# Size limits: generous for real use, small enough that one result cannot exhaust a backend.
MAX_QUESTION = 4_000
MAX_TITLE = 200
MAX_LABEL = 500
MAX_OPTIONS = 20
MAX_WORK_SO_FAR_BYTES = 256 * 1024
#: How deeply ``work_so_far`` may nest: generous for real work, far below what would exhaust a reader's stack.
MAX_WORK_DEPTH = 64
MAX_DEPENDENTS = 50
MAX_ASSUMPTIONS = 50
MAX_INVENTORY = 200
MAX_TEXT = 4_000
MAX_SHORT = 200
#: The longest decision id: two names of the longest length around the separator.
MAX_ID_LENGTH = 2 * MAX_NAME_LENGTH + len(SEPARATOR)

#: The published schema's identifier: stable across releases that accept the same documents.
SCHEMA_ID = "urn:parkbot:schema:agent-result:1"
SCHEMA_FILE = "schema/agent-result.schema.json"

#: The rules a JSON Schema validator cannot check; ``park`` checks them and names the field.
RULES_BEYOND_THE_SCHEMA = (
    "option ids are unique within a question (compared after upper case is folded to lower case)",
    "guess, when options are given, is one of their ids",
    f"work_so_far is at most {MAX_WORK_SO_FAR_BYTES} bytes as UTF-8 JSON, nested at most {MAX_WORK_DEPTH} levels deep",
    "no object in the document gives the same key twice",
)


def _bare(pattern: str) -> str:
    """A ``^...$`` pattern without its anchors, to embed in a larger one."""
    if not (pattern.startswith("^") and pattern.endswith("$")):
        raise ValueError(f"expected an anchored pattern, got {pattern!r}")  # pragma: no cover - import-time guard
    bare = pattern[1:-1]
    if re.compile(bare).groups:
        raise ValueError(f"{pattern!r} has capturing groups")  # pragma: no cover - import-time guard
    return bare


#: An origin, a key or an option id as written (the alphabet is :mod:`parkbot.core.identity`'s).
NAME_REGEX = NAME_PATTERN.pattern
_NAME = _bare(NAME_REGEX)
#: A full decision id as written: ``<origin>-decision-<key>``.
DECISION_ID_REGEX = f"^{_NAME}{SEPARATOR}{_NAME}$"
#: ``"id"`` or ``"id: label"``: an option written as one string.
OPTION_TEXT_REGEX = rf"^(?=[^:]{{1,{MAX_NAME_LENGTH}}}(?::|$))({_NAME})(?::[ ]*(\S.{{0,{MAX_LABEL - 1}}}))?$"
#: A pull request: ``#12``, ``12``, ``pr:12`` or ``pull/12``.
PULL_REQUEST_REGEX = r"^(?:#|[Pp][Rr]:|[Pp][Uu][Ll][Ll]/)?([0-9]{1,9})$"
#: A branch: ``branch:<name>``, ``refs/heads/<name>`` or ``<name>``, with git's main rules for names ...
BRANCH_REGEX = r"^(?:branch:)?(?:refs/heads/)?([^\s~^:?*\[\\\x00-\x1f\x7f]+)$"
#: ... and what a branch name may not contain, start or end with.
BAD_BRANCH_REGEX = r"\.\.|//|@\{|^(?:branch:)?(?:refs/heads/)?[-/]|[/.]$|\.lock$"
#: Text with something in it.
NOT_BLANK_REGEX = r"\S"

# Plain groups only (no Python-style named groups): the patterns are published for any JSON Schema validator.
_OPTION_TEXT = re.compile(OPTION_TEXT_REGEX)
_PULL_REQUEST = re.compile(PULL_REQUEST_REGEX)
_BRANCH = re.compile(BRANCH_REGEX)
_BAD_BRANCH = re.compile(BAD_BRANCH_REGEX)
_DECISION_ID = re.compile(DECISION_ID_REGEX)


class _Schema:
    """Adds keywords to the JSON Schema of the annotated type (the rule itself is checked next to it)."""

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {**handler(schema), **self.keywords}


class _OrString:
    """The JSON Schema of a model that may also be written as one string (``"id: label"``)."""

    def __init__(self, string_schema: dict[str, Any]) -> None:
        self.string_schema = string_schema

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", **self.string_schema}, handler(schema)]}


def _name_rule(what: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if len(value) > MAX_NAME_LENGTH:
            raise ValueError(f"{what} is {len(value)} characters long; at most {MAX_NAME_LENGTH} allowed")
        if not NAME_PATTERN.search(value):
            raise ValueError(_name_problem(value, what))
        return normalize_name(value, what=what)

    return check


def _name_problem(value: str, what: str) -> str:
    """Why ``value`` is not a name, in :func:`normalize_name`'s words where it has them."""
    if not value:
        return f"{what} must not be empty"
    try:
        normalize_name(value, what=what)
    except ValueError as exc:
        return str(exc)
    if value.strip() == value and value.lower() != value:
        return f"{what} {value!r}: write it in lower case ({value.lower()!r})"
    return (
        f"{what} {value!r}: must match {NAME_REGEX} exactly as written "
        "(letters, digits, '.', '_' and '-', starting and ending with a letter or digit; no surrounding spaces)"
    )


_NOT_BLANK_SCHEMA = _Schema(pattern=NOT_BLANK_REGEX)
_NAME_SCHEMA = _Schema(pattern=NAME_REGEX, maxLength=MAX_NAME_LENGTH)


def _not_blank(value: str) -> str:
    if not re.search(NOT_BLANK_REGEX, value):
        raise ValueError("must contain non-whitespace text")
    return value


_NOT_BLANK = AfterValidator(_not_blank)

Origin = Annotated[
    str,
    AfterValidator(_name_rule("origin")),
    _NAME_SCHEMA,
    Field(description="Stable id of the task that raised the question."),
]
Key = Annotated[
    str,
    AfterValidator(_name_rule("key")),
    _NAME_SCHEMA,
    Field(description="Names the question within its origin task."),
]
OptionId = Annotated[str, AfterValidator(_name_rule("option id")), _NAME_SCHEMA]
# Free text: at least one non-whitespace character, kept exactly as written.
Question = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Label = Annotated[str, Field(min_length=1, max_length=MAX_LABEL), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT), _NOT_BLANK, _NOT_BLANK_SCHEMA]
ShortText = Annotated[str, Field(min_length=1, max_length=MAX_SHORT), _NOT_BLANK, _NOT_BLANK_SCHEMA]


def utcnow() -> datetime:
    """The clock; tests pass their own ``now`` instead of patching this."""
    return datetime.now(UTC).replace(microsecond=0)


class Strict(BaseModel):
    """Stored records: unknown fields are errors, so a typo must not silently drop information."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True, defer_build=True)


class _Input(BaseModel):
    """What agents send: strict (no coercion), nothing unknown, text kept exactly as written.

    ``regex_engine="python-re"`` makes every pattern behave as a JSON Schema validator's ``pattern``
    (a search with Python's ``re``), so the schema and the validators cannot disagree about one.
    """

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, regex_engine="python-re", defer_build=True, validate_default=False
    )


class Option(_Input):
    """One answer the owner can pick; the id is what ``/decide <id>`` names."""

    id: OptionId
    label: Label


def _option_from_text(value: Any) -> Any:
    """``"id"`` or ``"id: label"``, as the docs write options, becomes ``{"id", "label"}``."""
    if not isinstance(value, str):
        return value
    match = _OPTION_TEXT.search(value)
    if match is None:
        ident = value.partition(":")[0]
        if ident and (len(ident) > MAX_NAME_LENGTH or not NAME_PATTERN.search(ident)):
            raise ValueError(f"{value!r} is not an option: {_name_problem(ident, 'its id')}")
        raise ValueError(
            f"{value!r} is not an option: write \"id: label\" (an id of letters, digits, '.', '_' or '-', "
            f"at most {MAX_NAME_LENGTH} characters, then a label of at most {MAX_LABEL} characters on one line), "
            'or an object {"id": ..., "label": ...}'
        )
    ident = match.group(1)
    return {"id": ident, "label": match.group(2) or ident}


OptionInput = Annotated[
    Option,
    BeforeValidator(_option_from_text),
    _OrString({"pattern": OPTION_TEXT_REGEX, "description": '"id" or "id: label"'}),
]


def parse_dependent(value: str) -> str:
    """Normalize a dependent to ``#N`` (a pull request) or ``branch:<name>``; the schema uses the same patterns."""
    pull = _PULL_REQUEST.search(value)
    if pull is not None:
        return f"#{int(pull.group(1))}"
    branch = _BRANCH.search(value)
    if branch is None or _BAD_BRANCH.search(value):
        raise ValueError(f"{value!r} is neither a pull request ('#12') nor a valid branch name ('branch:agent/x')")
    return f"branch:{branch.group(1)}"


Dependent = Annotated[
    str,
    Field(min_length=1, max_length=MAX_SHORT),
    AfterValidator(parse_dependent),
    _Schema(
        anyOf=[
            {"pattern": PULL_REQUEST_REGEX},
            {"pattern": BRANCH_REGEX, "not": {"pattern": BAD_BRANCH_REGEX}},
        ]
    ),
]


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (an array or object is one level), counted without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_WORK_DEPTH:
                return deepest
            pending.extend((child, depth) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _work_so_far(value: Any) -> Any:
    if _depth(value) > MAX_WORK_DEPTH:
        raise ValueError(f"is nested more than {MAX_WORK_DEPTH} levels deep; flatten it (it is returned verbatim)")
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError):
        raise ValueError("must be JSON: objects, arrays, strings, finite numbers, booleans and null") from None
    if size > MAX_WORK_SO_FAR_BYTES:
        raise ValueError(f"is {size} bytes as JSON; at most {MAX_WORK_SO_FAR_BYTES} allowed")
    return value


WorkSoFar = Annotated[
    Any,
    AfterValidator(_work_so_far),
    Field(description=f"Preserved work, any JSON up to {MAX_WORK_SO_FAR_BYTES} bytes; returned verbatim on resume."),
]


class NeedsInput(_Input):
    """The agent stops and asks: the question, concrete options, and the work already done."""

    status: Literal["needs_input"]
    origin: Origin
    key: Key
    question: Question
    title: Title | None = Field(default=None, description="Defaults to the question's first line.")
    options: list[OptionInput] = Field(default_factory=list, max_length=MAX_OPTIONS)
    allow_free_text: bool = Field(default=False, description="Accept `/answer <text>` even though options are given.")
    work_so_far: WorkSoFar = None
    blocking: bool = Field(default=True, description="Dependents may not merge until the question is answered.")
    guess: OptionId | None = Field(default=None, description="The option the agent would have picked.")
    run: ShortText | None = None
    dependents: list[Dependent] = Field(
        default_factory=list,
        max_length=MAX_DEPENDENTS,
        description="What waits for the answer: '#12' (a pull request) or 'branch:<name>'.",
    )
    requester: ShortText | None = Field(
        default=None,
        description="Who started an interactive run; `/return` hands the question back to them.",
    )

    @model_validator(mode="after")
    def _options_agree(self) -> Self:
        seen: set[str] = set()
        for option in self.options:
            if option.id in seen:
                raise _field_error("options", f"duplicate option id {option.id!r}")
            seen.add(option.id)
        if self.guess is not None and self.options and self.guess not in seen:
            raise _field_error("guess", f"{self.guess!r} is not one of the option ids {[o.id for o in self.options]}")
        return self

    @property
    def decision_id(self) -> str:
        return decision_id(self.origin, self.key)

    @property
    def effective_title(self) -> str:
        return self.title or default_title(self.question)


def _field_error(field: str, message: str) -> ValueError:
    """A cross-field rule's error, prefixed so the message still names the field."""
    return ValueError(f"{field}: {message}")


class Assumption(_Input):
    """One stated assumption the agent proceeded under."""

    text: Text
    option: OptionId | None = None


AssumptionInput = Annotated[
    Assumption,
    BeforeValidator(lambda value: {"text": value} if isinstance(value, str) else value),
    _OrString({"minLength": 1, "maxLength": MAX_TEXT, "pattern": NOT_BLANK_REGEX}),
]


class DoneWithAssumptions(_Input):
    """The agent finished under stated assumptions, for the owner to review rather than pre-authorize."""

    status: Literal["done_with_assumptions"]
    origin: Origin
    run: ShortText | None = None
    title: Title | None = None
    assumptions: list[AssumptionInput] = Field(min_length=1, max_length=MAX_ASSUMPTIONS)
    work_so_far: WorkSoFar = None
    dependents: list[Dependent] = Field(default_factory=list, max_length=MAX_DEPENDENTS)


def _inventory_entry(value: str) -> str:
    """A key of this origin, or a full decision id; folded."""
    if len(value) <= MAX_NAME_LENGTH and NAME_PATTERN.search(value):
        folded = normalize_name(value, what="decision key")
        return check_decision_id(folded) if SEPARATOR in folded else folded
    if len(value) <= MAX_ID_LENGTH and _DECISION_ID.search(value):
        return check_decision_id(value)
    raise ValueError(
        f"{value!r} is neither a decision key (like 'refund', at most {MAX_NAME_LENGTH} characters) "
        f"nor a decision id (like 'billing-42-decision-refund')"
    )


InventoryEntry = Annotated[
    str,
    AfterValidator(_inventory_entry),
    _Schema(
        anyOf=[
            {"pattern": NAME_REGEX, "maxLength": MAX_NAME_LENGTH},
            {"pattern": DECISION_ID_REGEX, "maxLength": MAX_ID_LENGTH},
        ]
    ),
]

#: "decisions" or ``"none": true``, never both and never neither: silence is not an answer.
_INVENTORY_SHAPES: dict[str, Any] = {
    "oneOf": [
        {"required": ["decisions"], "properties": {"decisions": {"minItems": 1}, "none": {"const": False}}},
        {"required": ["none"], "properties": {"none": {"const": True}, "decisions": {"maxItems": 0}}},
    ]
}


class _Inventory(_Input):
    """A finished run says which decisions it surfaced; silence is not an answer."""

    model_config = ConfigDict(json_schema_extra=_INVENTORY_SHAPES)

    origin: Origin
    run: ShortText | None = None
    decisions: list[InventoryEntry] = Field(
        default_factory=list,
        max_length=MAX_INVENTORY,
        description="Decision ids (or keys within this origin) the run surfaced.",
    )
    none: bool = Field(default=False, description="The positive claim that the run looked and found nothing.")

    @model_validator(mode="after")
    def _explicit_none(self) -> Self:
        if not self.decisions and not self.none:
            raise _field_error(
                "decisions",
                "an empty inventory is not accepted as 'nothing found'; list the decisions, or say none: true",
            )
        if self.decisions and self.none:
            raise _field_error("none", "none: true contradicts a non-empty decisions list")
        return self

    def decision_ids(self) -> list[str]:
        return [d if SEPARATOR in d else decision_id(self.origin, d) for d in self.decisions]


class Done(_Inventory):
    status: Literal["done"]


class Failed(_Inventory):
    status: Literal["failed"]
    error: Text


Result = NeedsInput | DoneWithAssumptions | Done | Failed
AgentResult = Annotated[Result, Field(discriminator="status")]
_STATUSES = ("needs_input", "done_with_assumptions", "done", "failed")


def _result_fields(status: Any) -> list[str]:
    """The fields a result of ``status`` takes."""
    models: dict[str, type[BaseModel]] = {
        "needs_input": NeedsInput,
        "done_with_assumptions": DoneWithAssumptions,
        "done": Done,
        "failed": Failed,
    }
    return list(models[status].model_fields)


@cache
def _result_adapter() -> TypeAdapter[Result]:
    """Built on first use, so commands that read no result do not pay for it."""
    return TypeAdapter(AgentResult)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise InvalidInput(f"result is not valid: the key {key!r} is given twice in one object; keep one")
        data[key] = value
    return data


def _no_constant(name: str) -> Any:
    raise InvalidInput(f"result is not valid JSON: {name} is not a JSON number")


def load_json(data: str | bytes, what: str = "result") -> Any:
    """Strict JSON: UTF-8, no ``NaN``/``Infinity``, no key given twice in one object."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{what} is not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(data, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidInput(f"{what} is nested too deeply") from None


def parse_result(data: Result | Mapping[str, Any] | str | bytes) -> Result:
    """Validate an agent result (a model, a mapping or JSON text); :class:`InvalidInput` names every bad field."""
    if isinstance(data, NeedsInput | DoneWithAssumptions | Done | Failed):
        return data
    if isinstance(data, str | bytes):
        data = load_json(data)
    try:
        return _result_adapter().validate_python(data)
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "result")) from None


def result_json_schema() -> dict[str, Any]:
    """The published JSON Schema of every result an agent may return (``schema/agent-result.schema.json``)."""
    schema = _result_adapter().json_schema()
    rules = "".join(f"\n- {rule}" for rule in RULES_BEYOND_THE_SCHEMA)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "parkbot agent result",
        "description": (
            "What an agent returns to parkbot: needs_input (a question), done_with_assumptions (finished, "
            "for review), done or failed (with the run's inventory of questions). Strict: no field is "
            "coerced, unknown fields are errors. `parkbot park` also checks these rules, which JSON Schema "
            f"cannot state:{rules}"
        ),
        "type": "object",
        **schema,
    }


def describe_validation_error(exc: ValidationError, what: str, fields: Collection[str] = ()) -> str:
    """One line per problem, each naming the field path, e.g. ``options[1].id: duplicate ...``.

    An unknown top-level field gets the closest known one (``fields``, or a result's own fields).
    """
    lines = []
    for error in exc.errors(include_url=False):
        loc = error.get("loc", ())
        known = _result_fields(loc[0]) if loc and loc[0] in _STATUSES else fields
        # Discriminated unions put the tag first (``needs_input.question``); function validators add
        # their own step (``function-after[...]``): drop both.
        parts = [
            p
            for i, p in enumerate(loc)
            if not (isinstance(p, str) and ((i == 0 and p in _STATUSES) or p.startswith("function-")))
        ]
        path = ""
        for part in parts:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        kind = error.get("type")
        if kind == "extra_forbidden":
            near = closest(path, known, n=1) if path and "." not in path and "[" not in path else []
            message = f"unknown field; {did_you_mean(near)}" if near else "unknown field (check the spelling)"
        elif kind == "union_tag_invalid":
            # The tag is the field ``status``: name it, not the whole result.
            near = closest(str((error.get("ctx") or {}).get("tag", "")), _STATUSES, n=1)
            mean = f"; {did_you_mean(near)}" if near else ""
            path, message = path or "status", f"must be one of {sorted(_STATUSES)}{mean}"
        elif kind == "union_tag_not_found":
            path, message = path or "status", f"missing: say which result this is, one of {sorted(_STATUSES)}"
        elif kind == "value_error" and not path:
            # A cross-field rule of a whole result names its field first ("guess: ...").
            field, sep, rest = message.partition(": ")
            if sep and field.isidentifier():
                path, message = field, rest
        lines.append(f"{path or what}: {message}")
    return f"invalid {what}:\n  " + "\n  ".join(lines)


def default_title(question: str) -> str:
    """The question's first line, cut to fit a title."""
    first = next((line.strip() for line in question.splitlines() if line.strip()), question.strip())
    return first if len(first) <= 120 else first[:119].rstrip() + "…"


# --- records kept by the backends -------------------------------------------------------------

AnswerKind = Literal["option", "free_text", "default", "precedent", "accepted", "planner"]
#: Answer kinds that are a person's own answer, which a planner may cite.
PERSON_ANSWER_KINDS = ("option", "free_text")
#: How many lines a planner may quote from one cited range.
MAX_CITED_LINES = 20


class Proof(BaseModel):
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


class LogEntry(BaseModel):
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


class Decision(BaseModel):
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
