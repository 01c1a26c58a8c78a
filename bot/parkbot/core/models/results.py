"""What an agent returns (``needs_input``, ``done_with_assumptions``, ``done``, ``failed``), how it is
parsed and how a rejection is worded, and the published JSON Schema of it (``parkbot schema``).

Everything an agent sends is untrusted, and validated in pydantic's *strict* mode (see :mod:`.fields`).
"""

import json
from collections.abc import Collection, Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from parkbot.core.errors import InvalidInput
from parkbot.core.identity import (
    SEPARATOR,
    decision_id,
)
from parkbot.core.modeling import ConfigDict, Field, Model, ValidationError, model_validator
from parkbot.core.models.fields import (
    MAX_ASSUMPTIONS,
    MAX_DEPENDENTS,
    MAX_INVENTORY,
    MAX_OPTIONS,
    RULES_BEYOND_THE_SCHEMA,
    SCHEMA_ID,
    AgentInput,
    AssumptionInput,
    Dependent,
    InventoryEntry,
    Key,
    OptionId,
    OptionInput,
    Origin,
    Question,
    ShortText,
    Text,
    Title,
    WorkSoFar,
)
from parkbot.core.suggest import closest, did_you_mean

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from parkbot.core.prebuilt import Validates


class NeedsInput(AgentInput):
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


class DoneWithAssumptions(AgentInput):
    """The agent finished under stated assumptions, for the owner to review rather than pre-authorize."""

    status: Literal["done_with_assumptions"]
    origin: Origin
    run: ShortText | None = None
    title: Title | None = None
    assumptions: list[AssumptionInput] = Field(min_length=1, max_length=MAX_ASSUMPTIONS)
    work_so_far: WorkSoFar = None
    dependents: list[Dependent] = Field(default_factory=list, max_length=MAX_DEPENDENTS)


#: "decisions" or ``"none": true``, never both and never neither: silence is not an answer.
_INVENTORY_SHAPES: dict[str, Any] = {
    "oneOf": [
        {"required": ["decisions"], "properties": {"decisions": {"minItems": 1}, "none": {"const": False}}},
        {"required": ["none"], "properties": {"none": {"const": True}, "decisions": {"maxItems": 0}}},
    ]
}


class _Inventory(AgentInput):
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
    models: dict[str, type[Model]] = {
        "needs_input": NeedsInput,
        "done_with_assumptions": DoneWithAssumptions,
        "done": Done,
        "failed": Failed,
    }
    return list(models[status].model_fields)


@cache
def _result_adapter() -> "TypeAdapter[Result]":
    """pydantic's adapter of a result (its JSON Schema), built on first use: pydantic's own model layer only."""
    from pydantic import TypeAdapter

    return TypeAdapter(AgentResult)


@cache
def _result_validator() -> "Validates[Any]":
    """The validator of :func:`_result_adapter`, from its prebuilt schema."""
    from parkbot.core import prebuilt
    from parkbot.core.models import prebuilt_results_schemas

    return prebuilt.adapter(prebuilt_results_schemas, "agent_result", lambda: AgentResult)


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
        return _result_validator().validate_python(data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "result")) from None


def result_json_schema() -> dict[str, Any]:
    """The published JSON Schema of every result an agent may return (``schema/agent-result.schema.json``)."""
    from parkbot.core.modeling import LIGHT

    if LIGHT:
        from parkbot.core.prebuilt import json_schema

        schema = json_schema("agent_result")
    else:
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


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.core.models import prebuilt_results_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
