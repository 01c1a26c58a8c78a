"""The configuration file ``.github/parkbot.yml``, validated strictly.

Errors name the field and the line: the person fixing them is looking at the file. With no file, the
owner is the backend's "me" (the repository owner on GitHub, the git user locally: ``fallback_owner``).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any, Literal, NamedTuple

from parkbot.core.errors import InvalidInput
from parkbot.core.modeling import ConfigDict, Field, Model, ValidationError, field_validator, model_validator
from parkbot.core.prebuilt import install_from

CONFIG_PATH = ".github/parkbot.yml"
#: The configuration's JSON Schema in parkbot's repository (what ``parkbot config schema`` prints).
CONFIG_SCHEMA_FILE = "schema/parkbot-config.schema.json"
CONFIG_SCHEMA_ID = "urn:parkbot:schema:config:1"
#: What the configuration's models check beyond what JSON Schema states (listed in the schema's description).
CONFIG_RULES_BEYOND_THE_SCHEMA = (
    "hierarchy has no cycle (questions only move up)",
    "backlog_ref is a full ref name (refs/...) outside refs/heads/, refs/tags/ and refs/remotes/",
    "answers.require_signed: true needs owners.default",
    "github.rate_limit_wait, as text, is a duration such as 90s, 5m or 1h",
)
#: Where the configuration may be, in the order read; both at once is an error.
CONFIG_PATHS = (CONFIG_PATH, ".github/parkbot.yaml")
#: Refs the backlog must not live under: git moves them for other reasons.
BRANCH_LIKE_REFS = ("refs/heads/", "refs/tags/", "refs/remotes/")


class _Section(Model):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Owners(_Section):
    """Who answers: the first matching origin glob wins, else ``default``."""

    default: str | None = Field(
        default=None,
        description="Who answers when no origin pattern matches (default: the repository owner on GitHub, your "
        "git user.email locally).",
    )
    origins: dict[str, str] = Field(
        default_factory=dict,
        description="Glob on the origin id (*, ?, [...]) -> owner; the first match wins.",
    )


class Limits(_Section):
    """Question budgets (see docs/policy.md for why each exists)."""

    open_per_origin: int = Field(default=3, ge=1, le=1000, description="Open questions per origin task.")
    open_per_run: int = Field(default=20, ge=1, le=100_000, description="Open questions per run (the result's run).")
    one_blocking_question_per_origin: bool = Field(
        default=False, description="At most one open blocking question per origin task."
    )


class Paths(_Section):
    """Where agents leave results on their branches."""

    decisions: str = Field(default=".parkbot/decisions", description="The folder of needs_input results.")
    inventory: str = Field(default=".parkbot/inventory.json", description="The run's inventory of questions.")


class Answers(_Section):
    """How answers recorded in the embedded git backlog prove who gave them (see docs/git-backlog.md)."""

    require_signed: bool = Field(
        default=False,
        description="Count an answer or escalation only when its commit's signature verifies and the "
        "signer is an owner of the decision.",
    )
    allowed_signers: str = Field(
        default=".github/allowed_signers",
        description="git's allowed-signers file (principals are owner e-mails), read from the checked-out "
        "default branch, never from the backlog ref.",
    )


class Gate(_Section):
    """How the gate is published on GitHub."""

    publish: Literal["check", "status", "both"] = Field(
        default="check",
        description="check: the check run parkbot/decisions (only GitHub Apps can write one); status: the "
        "commit status of that name, for branch protection that requires a status; both.",
    )


def _wait_seconds(value: Any) -> Any:
    """A duration (``90s``, ``5m``, ``1h``; ``0`` never waits) or a number of seconds, as seconds.

    Read by the one duration type (:mod:`parkbot.core.durations`); anything else is left for pydantic to refuse.
    """
    if isinstance(value, bool):
        raise ValueError(f"{str(value).lower()} is not a duration: write one such as 5m, or 0 never to wait")
    if isinstance(value, str | int | float):
        from parkbot.core.durations import DurationOrZero

        try:
            return DurationOrZero.of(value, what="", allow_zero=True).seconds
        except InvalidInput as exc:
            raise ValueError(exc.message) from None
    return value


def _duration_schema(schema: dict[str, Any]) -> None:
    """In the JSON Schema, a duration is a number of seconds or text such as ``5m`` (as :func:`_wait_seconds` reads)."""
    schema.pop("type", None)
    minimum = schema.pop("minimum", 0)
    schema["anyOf"] = [
        {"type": "number", "minimum": minimum},
        {"type": "string", "examples": ["90s", "5m", "1h", "0"]},
    ]


class GitHubOptions(_Section):
    """How the GitHub backend behaves under GitHub's rate limits (see docs/github.md)."""

    rate_limit_wait: float = Field(
        default=300.0,
        ge=0,
        allow_inf_nan=False,
        description="How long one run may wait out GitHub's rate limits (90s, 5m, 1h or seconds) before it "
        "stops with exit 4; the environment variable PARKBOT_RATE_LIMIT_WAIT overrides it.",
        json_schema_extra=_duration_schema,
    )

    @field_validator("rate_limit_wait", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        return _wait_seconds(value)


def _duration_seconds(value: Any) -> Any:
    """A duration such as ``30m`` or ``72h`` (or a number of seconds), as seconds."""
    return _wait_seconds(value)


class Planner(_Section):
    """The planner: an agent that may answer a question from cited sources before a person is asked
    (see docs/planner.md). Read from the default branch only, like everything that grants authority."""

    by: str = Field(
        min_length=1,
        max_length=200,
        description="The planner's identity: a GitHub login (an App's name[bot] or a user) or, on the git "
        "backlog, an e-mail (its answers signed when answers.require_signed is on).",
    )
    sources: list[str] = Field(
        default_factory=list,
        description="Path globs of the files the planner may cite (e.g. docs/**, PLAN.md); decisions answered "
        "by people are always citable.",
    )
    window: float = Field(
        default=1800.0,
        ge=0,
        allow_inf_nan=False,
        description="How long a new question waits for the planner before its owner is assigned and notified "
        "(30m, 2h or seconds; 0 routes nothing to the planner).",
        json_schema_extra=_duration_schema,
    )
    review: float = Field(
        default=72 * 3600.0,
        ge=0,
        allow_inf_nan=False,
        description="After this long an unreviewed planner answer is flagged on the dashboard (72h, 3d or seconds).",
        json_schema_extra=_duration_schema,
    )
    opens_gate: bool = Field(
        default=True,
        description="A planner answer opens the dependents at once (true), or waits for the owner's /accept (false).",
    )
    never: list[str] = Field(
        default_factory=list,
        description="Origin globs whose questions always go straight to a person.",
    )

    @field_validator("window", "review", mode="before")
    @classmethod
    def _durations(cls, value: Any) -> Any:
        return _duration_seconds(value)


#: A GitHub login: a user, or an App's ``<slug>[bot]``.
LOGIN_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$"


class Identity(_Section):
    """Another login whose records count as parkbot's, while moving from the action to the App (docs/serve.md)."""

    previous: str | None = Field(
        default=None,
        description="The login parkbot wrote as before (github-actions[bot] for the action): its records stay "
        "valid during the move.",
        json_schema_extra={"pattern": LOGIN_PATTERN},
    )
    app: str | None = Field(
        default=None,
        description="The App's login (<app-slug>[bot]), so the action, while it still runs, counts the App's records.",
        json_schema_extra={"pattern": LOGIN_PATTERN},
    )

    @field_validator("previous", "app")
    @classmethod
    def _login(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(LOGIN_PATTERN, value):
            raise ValueError(f"{value!r} is not a GitHub login (such as github-actions[bot])")
        return value

    @property
    def logins(self) -> tuple[str, ...]:
        return tuple(login for login in (self.previous, self.app) if login)


def _default_agent_branches() -> list[str]:
    return ["agent/**"]


class Config(_Section):
    """The whole file. Every key is optional; unknown keys are errors."""

    owners: Owners = Field(default_factory=Owners)
    hierarchy: dict[str, str] = Field(
        default_factory=dict, description="Each owner -> the one directly above; questions only move up."
    )
    limits: Limits = Field(default_factory=Limits)
    precedents: Literal["off", "suggest", "apply"] = Field(
        default="suggest",
        description="Cite an earlier answer to the same question (suggest), resolve from it (apply), or never look.",
    )
    repository_permission_resolves: Literal["none", "write", "maintain", "admin"] = Field(
        default="none", description="Let collaborators with at least this permission resolve any decision."
    )
    closed_without_answer: Literal["reopen", "abandon"] = Field(
        default="reopen", description="What happens when a person closes a decision issue without an answer."
    )
    requesters: list[str] = Field(
        default_factory=list,
        description="Who may be the requester of an interactive run: /return hands a question to the requester "
        "the agent names only when it is one of these (none: /return is refused).",
    )
    agent_branches: list[str] = Field(
        default_factory=_default_agent_branches,
        description="Branches that must carry decisions or an explicit inventory; ** crosses /, * does not.",
    )
    paths: Paths = Field(default_factory=Paths)
    backlog_ref: str = Field(
        default="refs/parkbot/backlog",
        description="The ref of the embedded backlog: a ref of its own, never under refs/heads/, refs/tags/ or "
        "refs/remotes/.",
    )
    answers: Answers = Field(default_factory=Answers)
    gate: Gate = Field(default_factory=Gate)
    bot_login: str | None = Field(
        default=None,
        description="parkbot's own GitHub login when it cannot be found from its token (unusual setups); "
        "only records written by this login are trusted.",
    )
    github: GitHubOptions = Field(default_factory=GitHubOptions)
    planner: Planner | None = Field(
        default=None, description="An agent that answers from cited sources before a person is asked."
    )
    identity: Identity = Field(default_factory=Identity)

    def may_request(self, who: str | None) -> bool:
        """Whether ``who`` (what an agent stated as its run's requester) may be handed a question."""
        return who is not None and who.strip().casefold() in {r.strip().casefold() for r in self.requesters}

    @field_validator("hierarchy")
    @classmethod
    def _acyclic(cls, value: dict[str, str]) -> dict[str, str]:
        lowered = {k.casefold(): v.casefold() for k, v in value.items()}
        for start in lowered:
            seen = {start}
            node = start
            while node in lowered:
                node = lowered[node]
                if node in seen:
                    raise ValueError(f"the hierarchy has a cycle through {start!r}; questions must only go up")
                seen.add(node)
        return value

    @field_validator("backlog_ref")
    @classmethod
    def _ref(cls, value: str) -> str:
        if not value.startswith("refs/") or ".." in value or " " in value:
            raise ValueError("must be a full ref name such as refs/parkbot/backlog")
        if value.startswith(BRANCH_LIKE_REFS):
            raise ValueError(
                f"{value} is a branch, tag or remote-tracking ref; the backlog needs a ref of its own "
                "such as refs/parkbot/backlog (git would otherwise move it with your branches)"
            )
        return value

    @model_validator(mode="after")
    def _signed_answers_need_configured_owners(self) -> Config:
        if self.answers.require_signed and not self.owners.default:
            raise ValueError(
                "answers.require_signed needs owners.default: with signed answers, who owns a decision must "
                "come from this reviewed file, not from the backlog"
            )
        return self

    def owner_for(self, origin: str) -> str | None:
        """The direct owner of an origin task as configured, or None when the config names nobody."""
        for pattern, owner in self.owners.origins.items():
            if fnmatch.fnmatchcase(origin, pattern.lower()):
                return owner
        return self.owners.default

    def above(self, owner: str) -> str | None:
        """The owner directly above ``owner``, or None at the top."""
        for name, parent in self.hierarchy.items():
            if name.casefold() == owner.casefold():
                return parent
        return None

    def chain_above(self, owner: str) -> list[str]:
        """Everyone above ``owner``, nearest first (the hierarchy is acyclic, so this ends)."""
        chain: list[str] = []
        node = self.above(owner)
        while node is not None:
            chain.append(node)
            node = self.above(node)
        return chain

    def is_agent_branch(self, branch: str) -> bool:
        return any(_glob_branch(branch, pattern) for pattern in self.agent_branches)


def config_json_schema() -> dict[str, Any]:
    """The published JSON Schema of ``.github/parkbot.yml`` (``schema/parkbot-config.schema.json``), for editors."""
    schema = Config.model_json_schema()
    _fill_defaults(Config, schema, schema["$defs"])
    rules = "".join(f"\n- {rule}" for rule in CONFIG_RULES_BEYOND_THE_SCHEMA)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": CONFIG_SCHEMA_ID,
        **schema,
        "title": "parkbot configuration (.github/parkbot.yml)",
        "description": (
            "parkbot's configuration: every key is optional, unknown keys are errors (see docs/configuration.md). "
            f"`parkbot config check` also checks these rules, which JSON Schema cannot state:{rules}"
        ),
    }


def _fill_defaults(model: type[Model], node: dict[str, Any], definitions: dict[str, Any]) -> None:
    """Defaults made by a factory (``{}``, ``["agent/**"]``), which pydantic leaves out, for editors to show."""
    for name, field in model.model_fields.items():
        prop = node["properties"][name]
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, Model):
            _fill_defaults(annotation, definitions[prop["$ref"].rsplit("/", 1)[1]], definitions)
        elif "default" not in prop and field.default_factory is not None:
            prop["default"] = field.get_default(call_default_factory=True)


def known_keys(path: tuple[Any, ...]) -> list[str]:
    """The settings a mapping at ``path`` may hold (for "did you mean"); empty when it is free-form."""
    model: Any = Config
    for part in path:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        annotation = getattr(field, "annotation", None)
        if not (isinstance(annotation, type) and issubclass(annotation, Model)):
            return []
        model = annotation
    return list(model.model_fields)


def _unknown_setting(loc: tuple[Any, ...]) -> str:
    import difflib  # only for a configuration with a mistake: commands on a valid one never load it

    close = difflib.get_close_matches(str(loc[-1]), known_keys(loc[:-1]), n=1, cutoff=0.6)
    hint = f"; did you mean {'.'.join(str(p) for p in (*loc[:-1], close[0]))}?" if close else ""
    return f"unknown setting{hint} (see docs/configuration.md)"


def _glob_branch(branch: str, pattern: str) -> bool:
    """``**`` crosses slashes, ``*`` does not, as in GitHub's branch filters."""
    if pattern.endswith("/**"):
        return branch.startswith(pattern[:-2])
    return fnmatch.fnmatchcase(branch, pattern) and branch.count("/") == pattern.count("/")


#: Deepest nesting a configuration may have (the real one is three levels deep).
MAX_DEPTH = 16
#: Largest configuration file read (the real one is a few hundred bytes).
MAX_CONFIG_BYTES = 256 * 1024
#: Plain scalars YAML 1.1 tools read as booleans, which parkbot reads as the text they are (YAML 1.2).
YAML11_BOOLEANS = frozenset({"y", "yes", "n", "no", "on", "off"})


class ConfigWarning(NamedTuple):
    """Something valid but likely to surprise (YAML 1.1 tools would read it differently)."""

    line: int
    message: str


def _strip_lines(data: Any) -> tuple[Any, dict[tuple[Any, ...], int]]:
    """Split the loaded data from the key-path -> line table."""
    table: dict[tuple[Any, ...], int] = {}

    def walk(value: Any, path: tuple[Any, ...]) -> Any:
        if isinstance(value, dict):
            lines = value.pop("__lines__", {})
            for key, line in lines.items():
                table[(*path, key)] = line
            return {k: walk(v, (*path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, (*path, i)) for i, v in enumerate(value)]
        return value

    return walk(data, ()), table


def _load_yaml(text: str, source: str) -> tuple[Any, list[ConfigWarning]]:
    if len(text) > MAX_CONFIG_BYTES:
        raise InvalidInput(f"{source}: the configuration is larger than {MAX_CONFIG_BYTES} bytes")
    # PyYAML's loading side only when there is a file to read: a command in a repository without one never loads it.
    from parkbot.core.strict_yaml import ConstructorError, MarkedYAMLError, ReaderError, StrictLoader

    try:
        loader = StrictLoader(text)  # the reader checks every character first
        try:
            raw = loader.get_single_data()
        finally:
            loader.dispose()
    except ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise InvalidInput(
            f"{source}:{line}: not valid YAML: the character U+{exc.character:04X} cannot appear in YAML; remove it"
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = exc.problem or exc.context or "not valid YAML"
        if (
            not isinstance(exc, ConstructorError)
            and "anchors" not in problem
            and "nested" not in problem
            and "twice" not in problem
        ):
            problem = f"not valid YAML: {problem}"
        raise InvalidInput(f"{where}: {problem}") from None
    return raw, loader.warnings


def parse_config(text: str, source: str = CONFIG_PATH) -> Config:
    """Parse and validate; raise :class:`InvalidInput` naming the file, line and field."""
    return check_config(text, source)[0]


def check_config(text: str, source: str = CONFIG_PATH) -> tuple[Config, list[ConfigWarning]]:
    """Parse and validate, and the warnings a careful reader would want (``parkbot config check``)."""
    raw, warnings = _load_yaml(text, source)
    if raw is None:
        return Config(), warnings
    data, lines = _strip_lines(raw)
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: the top level must be a mapping of settings")
    try:
        return Config.model_validate(data), warnings
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
            where = f"{source}:{line}" if line else source
            field = ".".join(str(p) for p in loc) or "(top level)"
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                message = _unknown_setting(loc)
            problems.append(f"{where}: {field}: {message}")
        raise InvalidInput("invalid configuration:\n  " + "\n  ".join(problems)) from exc


def decode_config(data: bytes, source: str) -> str:
    """The text of a configuration file; anything but UTF-8 is an error naming the byte offset."""
    if len(data) > MAX_CONFIG_BYTES:
        raise InvalidInput(f"{source}: the configuration is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{source}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None


from parkbot.core import prebuilt_config_schemas as _generated  # noqa: E402  (last: it names the models)

install_from(_generated)
