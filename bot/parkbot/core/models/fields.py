"""The field types agent results are made of: size limits, the published patterns, names, free text,
options, dependents, work so far, assumptions and inventory entries.

Each rule is stated once: the patterns and lengths the JSON Schema shows are the ones the validators use.
(No ``from __future__ import annotations``: pydantic reads these annotations as written.)
"""

import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from parkbot.core.identity import (
    MAX_NAME_LENGTH,
    NAME_REGEX,
    SEPARATOR,
    check_decision_id,
    is_name,
    normalize_name,
)
from parkbot.core.modeling import AfterValidator, BeforeValidator, ConfigDict, Field, GetJsonSchemaHandler, Model

if TYPE_CHECKING:
    from pydantic_core import core_schema as cs

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
    return pattern[1:-1]  # without capturing groups: tests/core/models/test_fields.py checks


# An origin, a key or an option id as written: NAME_REGEX (the alphabet is :mod:`parkbot.core.identity`'s).
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
# Compiled on first use (``re`` keeps them), not at import: a command that reads no agent result needs none.


class _Schema:
    """Adds keywords to the JSON Schema of the annotated type (the rule itself is checked next to it)."""

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords

    def __get_pydantic_json_schema__(self, schema: "cs.CoreSchema", handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {**handler(schema), **self.keywords}


class _OrString:
    """The JSON Schema of a model that may also be written as one string (``"id: label"``)."""

    def __init__(self, string_schema: dict[str, Any]) -> None:
        self.string_schema = string_schema

    def __get_pydantic_json_schema__(self, schema: "cs.CoreSchema", handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", **self.string_schema}, handler(schema)]}


class _NameRule(NamedTuple):
    """A name field's rule, saying which field it checks (a class, not a closure: the prebuilt schemas name it)."""

    what: str

    def __call__(self, value: str) -> str:
        if len(value) > MAX_NAME_LENGTH:
            raise ValueError(f"{self.what} is {len(value)} characters long; at most {MAX_NAME_LENGTH} allowed")
        if not is_name(value):
            raise ValueError(_name_problem(value, self.what))
        return normalize_name(value, what=self.what)


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
    # What ``re.search(NOT_BLANK_REGEX, value)`` finds (``\S``: not ``str.isspace``), without compiling it.
    if not value.strip():
        raise ValueError("must contain non-whitespace text")
    return value


_NOT_BLANK = AfterValidator(_not_blank)

Origin = Annotated[
    str,
    AfterValidator(_NameRule("origin")),
    _NAME_SCHEMA,
    Field(description="Stable id of the task that raised the question."),
]
Key = Annotated[
    str,
    AfterValidator(_NameRule("key")),
    _NAME_SCHEMA,
    Field(description="Names the question within its origin task."),
]
OptionId = Annotated[str, AfterValidator(_NameRule("option id")), _NAME_SCHEMA]
# Free text: at least one non-whitespace character, kept exactly as written.
Question = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Label = Annotated[str, Field(min_length=1, max_length=MAX_LABEL), _NOT_BLANK, _NOT_BLANK_SCHEMA]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT), _NOT_BLANK, _NOT_BLANK_SCHEMA]
ShortText = Annotated[str, Field(min_length=1, max_length=MAX_SHORT), _NOT_BLANK, _NOT_BLANK_SCHEMA]


def utcnow() -> datetime:
    """The clock; tests pass their own ``now`` instead of patching this."""
    return datetime.now(UTC).replace(microsecond=0)


class Strict(Model):
    """Stored records: unknown fields are errors, so a typo must not silently drop information."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True, defer_build=True)


class AgentInput(Model):
    """What agents send: strict (no coercion), nothing unknown, text kept exactly as written.

    ``regex_engine="python-re"`` makes every pattern behave as a JSON Schema validator's ``pattern``
    (a search with Python's ``re``), so the schema and the validators cannot disagree about one.
    """

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, regex_engine="python-re", defer_build=True, validate_default=False
    )


class Option(AgentInput):
    """One answer the owner can pick; the id is what ``/decide <id>`` names."""

    id: OptionId
    label: Label


def _option_from_text(value: Any) -> Any:
    """``"id"`` or ``"id: label"``, as the docs write options, becomes ``{"id", "label"}``."""
    if not isinstance(value, str):
        return value
    match = re.search(OPTION_TEXT_REGEX, value)
    if match is None:
        ident = value.partition(":")[0]
        if ident and (len(ident) > MAX_NAME_LENGTH or not is_name(ident)):
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
    pull = re.search(PULL_REQUEST_REGEX, value)
    if pull is not None:
        return f"#{int(pull.group(1))}"
    branch = re.search(BRANCH_REGEX, value)
    if branch is None or re.search(BAD_BRANCH_REGEX, value):
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


class Assumption(AgentInput):
    """One stated assumption the agent proceeded under."""

    text: Text
    option: OptionId | None = None


def _assumption_from_text(value: Any) -> Any:
    """An assumption may be written as its text alone."""
    return {"text": value} if isinstance(value, str) else value


AssumptionInput = Annotated[
    Assumption,
    BeforeValidator(_assumption_from_text),
    _OrString({"minLength": 1, "maxLength": MAX_TEXT, "pattern": NOT_BLANK_REGEX}),
]


def _inventory_entry(value: str) -> str:
    """A key of this origin, or a full decision id; folded."""
    if len(value) <= MAX_NAME_LENGTH and is_name(value):
        folded = normalize_name(value, what="decision key")
        return check_decision_id(folded) if SEPARATOR in folded else folded
    if len(value) <= MAX_ID_LENGTH and re.search(DECISION_ID_REGEX, value):
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
