"""Agent results and decision records (pydantic v2): :mod:`.fields` (the field types), :mod:`.results`
(what an agent returns) and :mod:`.records` (what the backends keep), every name importable from here.

Everything an agent sends is untrusted, and validated in pydantic's *strict* mode: nothing is
coerced (``"no"``, ``1`` or ``"true"`` are not booleans), unknown fields are errors, and every
rejection names the field. The published JSON Schema (``parkbot schema``, and the file
``schema/agent-result.schema.json``) is generated from these very models, and each rule is stated
once: the patterns and lengths the schema shows are the ones the validators use. The few rules
plain JSON Schema cannot state are listed in :data:`RULES_BEYOND_THE_SCHEMA`, and the schema's own
description lists them too.
"""

from typing import TYPE_CHECKING

# The identity names the models are built on, importable from here as they always were.
from parkbot.core.identity import (
    MAX_NAME_LENGTH,
    NAME_REGEX,
    SEPARATOR,
    check_decision_id,
    decision_id,
    normalize_name,
)
from parkbot.core.models.fields import (
    BAD_BRANCH_REGEX,
    BRANCH_REGEX,
    DECISION_ID_REGEX,
    MAX_ASSUMPTIONS,
    MAX_DEPENDENTS,
    MAX_ID_LENGTH,
    MAX_INVENTORY,
    MAX_LABEL,
    MAX_OPTIONS,
    MAX_QUESTION,
    MAX_SHORT,
    MAX_TEXT,
    MAX_TITLE,
    MAX_WORK_DEPTH,
    MAX_WORK_SO_FAR_BYTES,
    NOT_BLANK_REGEX,
    OPTION_TEXT_REGEX,
    PULL_REQUEST_REGEX,
    RULES_BEYOND_THE_SCHEMA,
    SCHEMA_FILE,
    SCHEMA_ID,
    AgentInput,
    Assumption,
    AssumptionInput,
    Dependent,
    InventoryEntry,
    Key,
    Label,
    Option,
    OptionId,
    OptionInput,
    Origin,
    Question,
    ShortText,
    Strict,
    Text,
    Title,
    WorkSoFar,
    parse_dependent,
    utcnow,
)
from parkbot.core.models.records import (
    MAX_CITED_LINES,
    PERSON_ANSWER_KINDS,
    Answer,
    AnswerKind,
    Citation,
    CitedSource,
    Correction,
    Decision,
    DecisionKind,
    DecisionState,
    Escalation,
    LogEntry,
    LogEvent,
    Override,
    PlannerStep,
    Proof,
    Verbatim,
)

if TYPE_CHECKING:
    from parkbot.core.identity import NAME_PATTERN
    from parkbot.core.models.results import (
        AgentResult,
        Done,
        DoneWithAssumptions,
        Failed,
        NeedsInput,
        Result,
        default_title,
        describe_validation_error,
        load_json,
        parse_result,
        result_json_schema,
    )

#: Agent results load on first use: a command that reads no result (``gate``, ``show``, ``list``) never defines them.
_RESULTS = (
    "AgentResult Done DoneWithAssumptions Failed NeedsInput "
    "Result default_title describe_validation_error load_json parse_result result_json_schema"
)

__all__ = [
    "BAD_BRANCH_REGEX",
    "BRANCH_REGEX",
    "DECISION_ID_REGEX",
    "MAX_ASSUMPTIONS",
    "MAX_CITED_LINES",
    "MAX_DEPENDENTS",
    "MAX_ID_LENGTH",
    "MAX_INVENTORY",
    "MAX_LABEL",
    "MAX_NAME_LENGTH",
    "MAX_OPTIONS",
    "MAX_QUESTION",
    "MAX_SHORT",
    "MAX_TEXT",
    "MAX_TITLE",
    "MAX_WORK_DEPTH",
    "MAX_WORK_SO_FAR_BYTES",
    "NAME_PATTERN",
    "NAME_REGEX",
    "NOT_BLANK_REGEX",
    "OPTION_TEXT_REGEX",
    "PERSON_ANSWER_KINDS",
    "PULL_REQUEST_REGEX",
    "RULES_BEYOND_THE_SCHEMA",
    "SCHEMA_FILE",
    "SCHEMA_ID",
    "SEPARATOR",
    "AgentInput",
    "AgentResult",
    "Answer",
    "AnswerKind",
    "Assumption",
    "AssumptionInput",
    "Citation",
    "CitedSource",
    "Correction",
    "Decision",
    "DecisionKind",
    "DecisionState",
    "Dependent",
    "Done",
    "DoneWithAssumptions",
    "Escalation",
    "Failed",
    "InventoryEntry",
    "Key",
    "Label",
    "LogEntry",
    "LogEvent",
    "NeedsInput",
    "Option",
    "OptionId",
    "OptionInput",
    "Origin",
    "Override",
    "PlannerStep",
    "Proof",
    "Question",
    "Result",
    "ShortText",
    "Strict",
    "Text",
    "Title",
    "Verbatim",
    "WorkSoFar",
    "check_decision_id",
    "decision_id",
    "default_title",
    "describe_validation_error",
    "load_json",
    "normalize_name",
    "parse_dependent",
    "parse_result",
    "result_json_schema",
    "utcnow",
]

# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.core.models import prebuilt_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)

from parkbot.core.lazy import exports  # noqa: E402

__getattr__, __dir__ = exports(
    __name__,
    {**dict.fromkeys(_RESULTS.split(), "parkbot.core.models.results"), "NAME_PATTERN": "parkbot.core.identity"},
)
