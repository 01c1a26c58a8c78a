"""The configuration's JSON Schema: one truth with the models ``config check`` validates with.

* ``schema/parkbot-config.schema.json`` is what ``parkbot config schema`` prints (CI catches a stale file);
* every setting of the models is in the schema with its default and choices, and nothing else is;
* every configuration the docs show validates against the schema and the models;
* property tests: what the schema accepts, the models accept (or refuse only for a rule the schema's
  description lists as beyond JSON Schema); what the schema rejects, the models reject.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, get_args

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic_core import ValidationError

from parkbot.cli import cli
from parkbot.core.config import (
    CONFIG_RULES_BEYOND_THE_SCHEMA,
    CONFIG_SCHEMA_FILE,
    CONFIG_SCHEMA_ID,
    Config,
    config_json_schema,
    parse_config,
)
from parkbot.core.modeling import Model

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = config_json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_file_is_what_parkbot_config_schema_prints() -> None:
    result = CliRunner().invoke(cli, ["config", "schema"])
    assert result.exit_code == 0, result.output
    assert (ROOT / CONFIG_SCHEMA_FILE).read_text(encoding="utf-8") == result.stdout, (
        "run: parkbot config schema > " + CONFIG_SCHEMA_FILE
    )
    assert json.loads(result.stdout)["$id"] == CONFIG_SCHEMA_ID
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for rule in CONFIG_RULES_BEYOND_THE_SCHEMA:
        assert rule in SCHEMA["description"]


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        return SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]  # type: ignore[no-any-return]
    return node


def _parity(model: type[Model], node: dict[str, Any], where: str) -> None:
    node = _resolve(node)
    assert node["additionalProperties"] is False, f"{where}: unknown keys must be errors in the schema too"
    assert set(node["properties"]) == set(model.model_fields), where
    for name, field in model.model_fields.items():
        prop = _resolve(node["properties"][name])
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, Model):
            _parity(annotation, prop, f"{where}.{name}")
            continue
        assert prop.get("description") or node["properties"][name].get("description"), f"{where}.{name}: no help"
        default = field.get_default(call_default_factory=True)
        assert node["properties"][name].get("default", prop.get("default")) == default, f"{where}.{name}"
        choices = get_args(annotation)
        if choices and all(isinstance(c, str) for c in choices):
            assert prop["enum"] == list(choices), f"{where}.{name}"


def test_every_setting_of_the_models_is_in_the_schema_with_its_default_and_choices() -> None:
    _parity(Config, SCHEMA, "(top level)")


def _documented() -> list[tuple[str, Any]]:
    """(where, configuration) for every YAML block in the docs that is a parkbot configuration."""
    found: list[tuple[str, Any]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for n, block in enumerate(re.findall(r"```ya?ml\n(.*?)```", text, flags=re.DOTALL)):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and set(data) & set(Config.model_fields) and "jobs" not in data:
                found.append((f"{path.relative_to(ROOT)} yaml block {n + 1}", block))
    return found


DOCUMENTED = _documented()


def test_the_docs_show_configurations() -> None:
    assert any(where.startswith("docs/configuration.md") for where, _ in DOCUMENTED)


@pytest.mark.parametrize(("where", "text"), DOCUMENTED, ids=[w for w, _ in DOCUMENTED])
def test_every_documented_configuration_validates(where: str, text: str) -> None:
    config = parse_config(text, where)
    errors = [e.message for e in VALIDATOR.iter_errors(yaml.safe_load(text))]
    assert not errors, f"{where}: {errors}"
    assert isinstance(config, Config)


# --- properties over generated configurations ----------------------------------------------------

GENERATED = from_schema({k: v for k, v in SCHEMA.items() if k != "$id"})
#: The words in a refusal that name each rule beyond the schema.
BEYOND = (
    "hierarchy",
    "backlog_ref",
    "answers.require_signed",
    "(top level)",
    "github.rate_limit_wait",
    "planner.window",
    "planner.review",
)


def _refusal(document: Any) -> str | None:
    try:
        Config.model_validate(document)
    except ValidationError as exc:
        return str(exc)
    return None


def _only_rules_beyond_the_schema(document: Any) -> bool:
    try:
        Config.model_validate(document)
    except ValidationError as exc:
        located = [".".join(str(p) for p in e["loc"]) or "(top level)" for e in exc.errors()]
        return all(any(where.startswith(rule) for rule in BEYOND) for where in located)
    return True


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@SETTINGS
@given(GENERATED)
def test_what_the_schema_accepts_the_models_accept(document: Any) -> None:
    assert VALIDATOR.is_valid(document)
    assert _only_rules_beyond_the_schema(document), _refusal(document)


#: Wrong values. Not true/false/0/1 or yes/no: the models read a switch written that way (docs/configuration.md),
#: and a number setting given true as 1, where the schema, for editors, asks for the plain type.
WRONG_VALUES = st.one_of(
    st.none(), st.sampled_from([-1, 7, 2.5, "", "x", "maybe", "refs/x"]), st.lists(st.none(), min_size=1)
)


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid configuration with one key misspelt or one value replaced."""
    document = copy.deepcopy(draw(GENERATED))
    mappings = [(document, ())]
    for key, value in document.items():
        if isinstance(value, dict) and key in Config.model_fields and key not in ("hierarchy",):
            mappings.append((value, (key,)))
    parent, _ = draw(st.sampled_from(mappings))
    if parent and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(parent)))
        parent[key] = draw(WRONG_VALUES)
    else:
        parent[draw(st.sampled_from(["ownres", "limit", "Precedents", "publsh", "x"]))] = draw(WRONG_VALUES)
    return document


@SETTINGS
@given(mutated())
def test_what_the_schema_rejects_the_models_reject(document: Any) -> None:
    if not VALIDATOR.is_valid(document):
        assert _refusal(document) is not None, [e.message for e in VALIDATOR.iter_errors(document)]


# --- parkbot config check, as a user runs it ---------------------------------------------------------


def test_config_check_without_a_file_says_the_defaults_are_valid_and_exits_0(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    result = CliRunner().invoke(cli, ["config", "check", "--repo", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "no configuration file" in result.stdout
    assert "defaults, which are valid" in result.stdout
    data = json.loads(CliRunner().invoke(cli, ["config", "check", "--repo", str(tmp_path), "--json"]).stdout)
    assert (data["file"], data["valid"]) == (None, True)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("owners:\n  defualt: alice\n", "did you mean owners.default?"),
        ("precedent: apply\n", "did you mean precedents?"),
        ("gate:\n  publsh: status\n", "did you mean gate.publish?"),
    ],
)
def test_config_check_suggests_the_closest_setting_for_a_mistyped_key(
    tmp_path: Path, text: str, suggestion: str
) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["config", "check", str(path)])
    assert result.exit_code == 2
    assert suggestion in result.stderr
    assert "Traceback" not in result.output


def test_a_key_like_nothing_gets_no_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_text("zzzz: 1\n")
    result = CliRunner().invoke(cli, ["config", "check", str(path)])
    assert result.exit_code == 2
    assert "zzzz: unknown setting (see docs/configuration.md)" in result.stderr
