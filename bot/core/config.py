"""The configuration file ``.github/parkbot.yml``, validated strictly.

Errors name the field and the line, because the person fixing them is looking at the file. With
no file, the owner defaults to the backend's notion of "me" (the repository owner on GitHub, the
git user locally), which the backends pass in as ``fallback_owner``.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.core.errors import InvalidInput

CONFIG_PATH = ".github/parkbot.yml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Owners(_Section):
    """Who answers: the first matching origin glob wins, else ``default``."""

    default: str | None = None
    origins: dict[str, str] = Field(default_factory=dict)


class Limits(_Section):
    """Question budgets (see docs/policy.md for why each exists)."""

    open_per_origin: int = Field(default=3, ge=1, le=1000)
    open_per_run: int = Field(default=20, ge=1, le=100_000)
    one_blocking_question_per_origin: bool = False


class Paths(_Section):
    """Where agents leave results on their branches."""

    decisions: str = ".parkbot/decisions"
    inventory: str = ".parkbot/inventory.json"


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
    """``90s``, ``5m``, ``1h`` or a number of seconds (a string of another shape is left for pydantic to refuse)."""
    if isinstance(value, str):
        text = value.strip().lower()
        units = {"s": 1.0, "m": 60.0, "h": 3600.0}
        try:
            return float(text[:-1]) * units[text[-1]] if text and text[-1] in units else float(text)
        except ValueError:
            raise ValueError("must be a duration such as 90s, 5m or 1h (0: never wait)") from None
    return value


class GitHubOptions(_Section):
    """How the GitHub backend behaves under GitHub's rate limits (see docs/github.md)."""

    rate_limit_wait: float = Field(
        default=300.0,
        ge=0,
        allow_inf_nan=False,
        description="How long one run may wait out GitHub's rate limits (90s, 5m, 1h or seconds) before it "
        "stops with exit 4; the environment variable PARKBOT_RATE_LIMIT_WAIT overrides it.",
    )

    @field_validator("rate_limit_wait", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        return _wait_seconds(value)


class Config(_Section):
    """The whole file. Every key is optional; unknown keys are errors."""

    owners: Owners = Field(default_factory=Owners)
    hierarchy: dict[str, str] = Field(
        default_factory=dict, description="Each owner -> the one directly above; questions only move up."
    )
    limits: Limits = Field(default_factory=Limits)
    precedents: Literal["off", "suggest", "apply"] = "suggest"
    repository_permission_resolves: Literal["none", "write", "maintain", "admin"] = Field(
        default="none", description="Let collaborators with at least this permission resolve any decision."
    )
    closed_without_answer: Literal["reopen", "abandon"] = "reopen"
    agent_branches: list[str] = Field(default_factory=lambda: ["agent/**"])
    paths: Paths = Field(default_factory=Paths)
    backlog_ref: str = "refs/parkbot/backlog"
    answers: Answers = Field(default_factory=Answers)
    gate: Gate = Field(default_factory=Gate)
    bot_login: str | None = Field(
        default=None,
        description="parkbot's own GitHub login when it cannot be found from its token (unusual setups); "
        "only records written by this login are trusted.",
    )
    github: GitHubOptions = Field(default_factory=GitHubOptions)

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
        return value

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


def _glob_branch(branch: str, pattern: str) -> bool:
    """``**`` crosses slashes, ``*`` does not, as in GitHub's branch filters."""
    if pattern.endswith("/**"):
        return branch.startswith(pattern[:-2])
    return fnmatch.fnmatchcase(branch, pattern) and branch.count("/") == pattern.count("/")


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every mapping key."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    lines = {key_node.value: key_node.start_mark.line + 1 for key_node, _ in node.value}
    mapping["__lines__"] = lines  # type: ignore[index]
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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


def parse_config(text: str, source: str = CONFIG_PATH) -> Config:
    """Parse and validate; raise :class:`InvalidInput` naming the file, line and field."""
    try:
        raw = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - _LineLoader is a SafeLoader
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{source}: not valid YAML: {exc}") from exc
    if raw is None:
        return Config()
    data, lines = _strip_lines(raw)
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: the top level must be a mapping of settings")
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
            where = f"{source}:{line}" if line else source
            field = ".".join(str(p) for p in loc) or "(top level)"
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                message = "unknown setting (see docs/configuration.md)"
            problems.append(f"{where}: {field}: {message}")
        raise InvalidInput("invalid configuration:\n  " + "\n  ".join(problems)) from exc


def load_config(path: str | Path | None) -> Config:
    """Read a config file from disk; a missing default file means defaults, a missing named file is an error."""
    if path is None:
        return Config()
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"configuration file {path} does not exist")
    return parse_config(path.read_text(encoding="utf-8"), str(path))
