"""One truth: the published schema, the models ``park`` validates with, and every documented example agree.

* ``schema/agent-result.schema.json`` is what ``parkbot schema`` prints (so CI catches a stale file);
* every JSON example in README.md, docs/*.md, examples/*.json and the commands' ``--help`` validates;
* property tests over generated documents: what the schema accepts, ``park`` accepts (or refuses by a
  lifecycle rule, exit 3, or rejects only for a rule the schema lists as beyond JSON Schema); what the
  schema rejects, ``park`` rejects with exit 2 and names the field.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import git
import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from parkbot.cli import cli
from parkbot.core.errors import InvalidInput
from parkbot.core.filing import parse_inventory
from parkbot.core.models import RULES_BEYOND_THE_SCHEMA, SCHEMA_FILE, SCHEMA_ID, parse_result, result_json_schema

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = result_json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
#: What ``park`` says for each rule the schema lists as beyond JSON Schema.
BEYOND = {
    RULES_BEYOND_THE_SCHEMA[0]: "duplicate option id",
    RULES_BEYOND_THE_SCHEMA[1]: "is not one of the option ids",
    RULES_BEYOND_THE_SCHEMA[2]: "bytes as JSON",
    RULES_BEYOND_THE_SCHEMA[3]: "given twice",
}


def test_the_schema_file_is_what_parkbot_schema_prints() -> None:
    printed = CliRunner().invoke(cli, ["schema"]).stdout
    assert (ROOT / SCHEMA_FILE).read_text(encoding="utf-8") == printed, "run: parkbot schema > " + SCHEMA_FILE
    assert json.loads(printed)["$id"] == SCHEMA_ID
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_rule_beyond_the_schema_has_a_message_the_tests_know() -> None:
    assert set(BEYOND) == set(RULES_BEYOND_THE_SCHEMA)


# --- every documented example ---------------------------------------------------------------


def _documented() -> list[tuple[str, Any]]:
    """(where, document) for every JSON example agents are shown."""
    found: list[tuple[str, Any]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for n, block in enumerate(re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)):
            found.append((f"{path.name} json block {n + 1}", json.loads(block)))
        # Shell examples that pipe or write JSON: echo '{...}' | parkbot park -  (the --help texts are in cli.md)
        for n, raw in enumerate(re.findall(r"echo '(\{.*?\})'", text, flags=re.DOTALL)):
            found.append((f"{path.name} echo example {n + 1}", json.loads(raw)))
    for path in sorted((ROOT / "examples").glob("*.json")):
        found.append((path.name, json.loads(path.read_text(encoding="utf-8"))))
    from parkbot.cli.guide import EXAMPLES

    found += [(f"guide example {name}", example) for name, example in EXAMPLES.items()]
    return found


DOCUMENTED = _documented()


def test_the_documents_have_examples_of_every_kind() -> None:
    statuses = {doc.get("status") for _, doc in DOCUMENTED}
    assert {"needs_input", "done_with_assumptions", "done", "failed", None} <= statuses
    assert any(where.startswith("README") for where, _ in DOCUMENTED)
    assert any(where.startswith("cli.md echo") for where, _ in DOCUMENTED)  # parkbot park --help


INVENTORY_KEYS = {"origin", "run", "decisions", "none"}


@pytest.mark.parametrize(("where", "document"), DOCUMENTED, ids=[w for w, _ in DOCUMENTED])
def test_every_documented_example_validates(where: str, document: Any) -> None:
    if "mcpServers" in document:
        # An MCP client's configuration: it must start this server.
        server = document["mcpServers"]["parkbot"]
        assert (server["command"], server["args"][0]) == ("parkbot", "mcp"), where
        return
    if "default_permissions" in document:
        # parkbot serve's GitHub App manifest (docs/serve.md): it subscribes only to events parkbot handles,
        # and sends them to the server's webhook endpoint.
        from parkbot.events import ROUTER

        assert all(ROUTER.knows(event) for event in document["default_events"]), where
        assert document["hook_attributes"]["url"].endswith("/api/github/webhooks"), where
        return
    if "status" not in document:
        assert set(document) <= INVENTORY_KEYS, f"{where}: neither a result nor an inventory: {document}"
        # An inventory file (.parkbot/inventory.json): a done result whose status and origin may be left out.
        inventory = parse_inventory(document, default_origin="billing-42")
        document = {"status": "done", "origin": "billing-42", **document}
        assert inventory.status == "done"
    errors = [e.message for e in VALIDATOR.iter_errors(document)]
    assert not errors, f"{where}: {errors}"
    parse_result(document)


# --- properties over generated documents -------------------------------------------------------

#: hypothesis-jsonschema resolves ``$ref`` against ``$id``; the definitions are local either way.
GENERATED = from_schema({k: v for k, v in SCHEMA.items() if k != "$id"})

TRICKY_STRINGS = [
    "",
    " ",
    "x",
    "Billing-42",
    " billing-42",
    "billing-42\n",
    "no",
    "true",
    "1",
    "a..b",
    "-x",
    "x/",
    "#12",
    "pr:7",
    "branch:agent/x",
    "a: label",
    "a:",
    "A: b",
    "task\u212a",
    "\ufb01le",
    "x" * 101,
    "x" * 4001,
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(TRICKY_STRINGS),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["id", "label", "x"]), children),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid document with one thing changed: a value replaced, a key removed, or an unknown key added."""
    document = copy.deepcopy(draw(GENERATED))
    path = draw(st.sampled_from(_paths(document)))
    how = draw(st.sampled_from(["replace", "remove", "add"]))
    if not path:
        return draw(JSON_VALUES) if how == "replace" else document
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "replace":
        parent[last] = draw(JSON_VALUES)
    elif how == "remove":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["surprise", "Status", "blocking", "none", "decisions"]))] = draw(JSON_VALUES)
    return document


def _only_rules_beyond_the_schema(message: str) -> bool:
    problems = message.splitlines()[1:]
    return bool(problems) and all(any(text in line for text in BEYOND.values()) for line in problems)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _refusal(document: Any) -> str | None:
    """What ``park`` says about ``document`` read as JSON text (as the command reads it); None if accepted."""
    try:
        parse_result(json.dumps(document))
    except InvalidInput as exc:
        return exc.message
    return None


@SETTINGS
@given(GENERATED)
def test_what_the_schema_accepts_park_accepts(document: Any) -> None:
    assert VALIDATOR.is_valid(document)
    refusal = _refusal(document)
    assert refusal is None or _only_rules_beyond_the_schema(refusal), refusal


@SETTINGS
@given(mutated())
def test_what_the_schema_rejects_park_rejects_naming_the_field(document: Any) -> None:
    errors = [e.message for e in VALIDATOR.iter_errors(document)]
    refusal = _refusal(document)
    if refusal is None:
        assert not errors, f"park accepted what the schema rejects: {errors}"
        return
    assert errors or _only_rules_beyond_the_schema(refusal), refusal
    assert re.search(r"^  \S+: ", refusal, flags=re.MULTILINE), refusal  # names the field (or "result")


@pytest.fixture(scope="module")
def backlog_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("schema-park")
    repository = git.Repo.init(root, initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "name", "Alice")
        writer.set_value("user", "email", "alice@example.com")
    repository.index.commit("initial")
    (root / ".github").mkdir()
    # Budgets out of the way: this is about validation, not about how many questions one origin may ask.
    (root / ".github" / "parkbot.yml").write_text("limits:\n  open_per_origin: 1000\n  open_per_run: 100000\n")
    return root


CLI_SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@CLI_SETTINGS
@given(st.one_of(GENERATED, mutated()))
def test_park_itself_agrees_with_the_schema(backlog_repo: Path, document: Any) -> None:
    """Through the command: schema-valid is exit 0 or 3 (or 2 for a listed rule), schema-invalid is exit 2."""
    valid = VALIDATOR.is_valid(document)
    result = CliRunner().invoke(cli, ["park", "-", "--json", "--repo", str(backlog_repo)], input=json.dumps(document))
    data = json.loads(result.stdout)
    if not valid:
        assert (result.exit_code, data["error"]) == (2, "invalid"), result.output
    elif result.exit_code == 2:
        assert data["error"] == "not_found" or _only_rules_beyond_the_schema(data["message"]), data
    else:
        assert result.exit_code in (0, 3), result.output
