"""The prebuilt schemas (parkbot.core.prebuilt) are the models' own: current, and the same verdicts on every record.

Commands validate records with schemas generated ahead of time instead of generating them at start.
That is only safe while the generated modules are exactly what pydantic makes of the models now, and
while every record, real or damaged, reads the same both ways: the same value and bytes when valid,
the same errors (every field, message and input) when not. Both sides run in fresh processes, so
neither can borrow the other's validators.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from parkbot.core import prebuilt
from parkbot.core.models import (
    Answer,
    Assumption,
    Citation,
    CitedSource,
    Correction,
    Escalation,
    Override,
    PlannerStep,
)
from tests.support.prebuilt import PATHS, verdicts
from tests.support.report import history
from tests.support.results import result_data

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)


def _full_decision() -> dict[str, Any]:
    """One decision with every part a record can have: citations, sources, escalations, planner, corrections."""
    base = history()[3]
    answer = Answer(
        value="remaining",
        by="bob",
        at=AT,
        source="comment:1",
        citation=Citation(decision="billing-1-decision-refund", answer="remaining", answered_by="bob", answered_at=AT),
        sources=[
            CitedSource(source="docs/refunds.md#L10-L12", path="docs/refunds.md", commit="a" * 40, start=10, end=12),
            CitedSource(source="billing-1-decision-refund", decision="billing-1-decision-refund", answer="remaining"),
        ],
        digest="sha256:" + "0" * 64,
    )
    full = base.model_copy(
        update={
            "answer": answer,
            "escalations": [
                Escalation(from_owner="carol", to_owner="alice", by="carol", at=AT),
                Escalation(kind="return", from_owner="alice", to_owner="dave", by="alice", at=AT),
            ],
            "assumptions": [Assumption(text="refunds are in EUR", option="remaining")],
            "precedent": answer.citation,
            "overrides": [Override(assumption=1, text="they are in USD", by="alice", at=AT)],
            "planner": PlannerStep(
                state="answered",
                until=AT + timedelta(hours=4),
                by="planner[bot]",
                at=AT,
                answer=answer,
                review="pending",
            ),
            "corrections": [
                Correction(previous=answer, answer=answer.model_copy(update={"value": "full"}), by="alice", at=AT)
            ],
            "work_so_far": {"files": ["a.py"], "notes": "half done", "depth": [1, [2, [3]]]},
            "requester": "erin",
            "filed_by": "agent[bot]",
            "content_changed_at": AT,
        }
    )
    data: dict[str, Any] = json.loads(full.model_dump_json())
    return data


BAD_VALUES: tuple[Any, ...] = (
    None,
    1,
    1.5,
    True,
    "",
    "   ",
    "x" * 5000,
    "NOT A NAME!",
    [],
    {},
    ["x"],
    "2026-13-45T00:00:00Z",
)


def _damaged(record: dict[str, Any]) -> list[str]:
    """The record as it is, and with each field (at every depth) removed, given each wrong value, or grown a key."""
    texts = [json.dumps(record)]

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            for key in list(node):
                variant = copy.deepcopy(record)
                del _at(variant, path)[key]
                texts.append(json.dumps(variant))
                for bad in BAD_VALUES:
                    variant = copy.deepcopy(record)
                    _at(variant, path)[key] = bad
                    texts.append(json.dumps(variant))
                walk(node[key], (*path, key))
            variant = copy.deepcopy(record)
            _at(variant, path)["unexpected"] = "x"
            texts.append(json.dumps(variant))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, (*path, index))

    walk(record, ())
    texts += [texts[0][: len(texts[0]) // 2], "", "null", "[]", '{"id": "x"}']
    return texts


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _same_both_ways(kind: str, texts: list[str]) -> list[str]:
    ours = verdicts(kind, texts, prebuilt=True)
    theirs = verdicts(kind, texts, prebuilt=False)
    differing = [(t, o, p) for t, o, p in zip(texts, ours, theirs, strict=True) if o != p]
    assert not differing, f"{len(differing)} of {len(texts)} differ; first: {differing[0]}"
    return ours


def test_the_generated_schemas_are_what_pydantic_makes_of_the_models_now() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.prebuilt", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_every_record_real_or_damaged_reads_the_same_with_the_prebuilt_schemas() -> None:
    records = [json.loads(d.model_dump_json()) for d in history()] + [_full_decision()]
    texts = [json.dumps(r) for r in records[:-1]] + _damaged(records[-1])
    found = _same_both_ways("decision", texts)
    assert sum(v.startswith("ok: ") for v in found) >= len(records)
    assert sum(v.startswith("invalid: ") for v in found) > 300, "the damaged records must be refused"


def test_log_lines_answers_and_index_buckets_read_the_same() -> None:
    entry = {"at": AT.isoformat(), "event": "parked", "origin": "billing-42", "decision": "d", "options": ["a", "b"]}
    answers = [json.loads(Answer(value="a", by="bob", at=AT).model_dump_json())]
    found = _same_both_ways("log_lines", [f"[{text}]" for text in _damaged(entry)[:-5]] + ["[{}]", "{}"])
    assert found[0].startswith("ok: ")
    _same_both_ways("answers", [json.dumps(answers), "[{}]", '[{"value": "", "by": "b", "at": "x"}]', "{}"])
    _same_both_ways("bucket", ['{"a": ["b"]}', '{"a": "b"}', "[]", '{"a": [1]}'])


def test_agent_results_read_the_same_and_are_refused_in_the_same_words() -> None:
    texts = _damaged(result_data())
    found = _same_both_ways("result", texts)
    assert any(v.startswith("refused: ") for v in found)


def test_configurations_read_the_same_and_are_refused_in_the_same_words() -> None:
    texts = [
        "",
        "owners:\n  default: alice\n  origins:\n    'billing-*': bob\n",
        "limits:\n  max_open_per_origin: 3\n",
        "limits:\n  max_open_per_origin: -1\n",
        "gate:\n  context: x\n",
        "owners: 3\n",
        "answers:\n  require_signed: true\n",
        "planner:\n  login: planner[bot]\n  window: 4h\n",
        "planner:\n  login: planner[bot]\n  window: forever\n",
        "identity:\n  previous: [github-actions[bot]]\n",
        "unknown: 1\n",
        "agent_branches: agent/**\n",
    ]
    found = _same_both_ways("config", texts)
    assert any(v.startswith("ok: ") for v in found)
    assert any(v.startswith("refused: ") for v in found)


def test_dashboard_indexes_read_the_same_with_their_figures() -> None:
    from parkbot.core.dashboard_index import recount
    from parkbot.core.figures import DashboardFigures, Share, TimeToAnswer

    share = Share.of(1, 4)
    figures = DashboardFigures(
        computed_at=AT,
        since=AT - timedelta(days=30),
        asked=12,
        resolved=9,
        abandoned=1,
        time_to_answer=TimeToAnswer(n=9, median_seconds=3600.0, p90_seconds=7200.0),
        guess_vs_answer=share,
        answered_by_precedent=share,
        answered_by_default=share,
        escalated=share,
        refused_by_cap=share,
        recurring=(3, "Refund the remaining items?"),
    )
    index = json.loads(json.dumps(recount(history(), now=AT, figures=figures).to_data()))
    found = _same_both_ways("dashboard_index", _damaged(index))
    assert found[0].startswith("ok: ")
    assert sum(v.startswith("invalid: ") for v in found) > 50


class _Generated:
    def __init__(self, version: str) -> None:
        self.PYDANTIC_VERSION = version
        self.MODELS: tuple[prebuilt.Prebuilt, ...] = ()
        self.ADAPTERS = {"bucket": (lambda: {"type": "str"}, {})}


def test_under_another_pydantic_the_schemas_are_left_to_pydantic() -> None:
    from pydantic import TypeAdapter

    class Probe:
        pass

    stale = _Generated("0.0.1")
    stale.MODELS = ((Probe, lambda: {"type": "str"}, {}),)
    prebuilt.install_from(stale)
    assert not hasattr(Probe, "__pydantic_validator__")
    assert isinstance(prebuilt.adapter(stale, "bucket", lambda: dict[str, list[str]]), TypeAdapter)


def test_under_another_pydantic_core_the_models_are_pydantics_own() -> None:
    """The light model layer runs the prebuilt schemas on the pydantic-core they were generated for, and only there."""
    code = (
        "import sys, types\n"
        "stub = types.ModuleType('parkbot.core.prebuilt_version')\n"
        "stub.PYDANTIC_VERSION, stub.PYDANTIC_CORE_VERSION = '2.0.0', '0.0.1'\n"
        "sys.modules[stub.__name__] = stub\n"
        "from pydantic import BaseModel\n"
        "from parkbot.core.modeling import LIGHT\n"
        "from parkbot.core.models import Decision\n"
        "print(LIGHT, issubclass(Decision, BaseModel), type(Decision.__pydantic_validator__).__name__)\n"
    )
    assert _printed(code) == ["False", "True", "MockValSer"]


def test_on_the_pydantic_core_they_were_made_for_the_models_need_no_pydantic() -> None:
    code = (
        "import sys\n"
        "from parkbot.core.modeling import LIGHT\n"
        "from parkbot.core.models import Decision\n"
        "print(LIGHT, 'pydantic' in sys.modules, Decision.__mro__[-2].__module__)\n"
    )
    assert _printed(code) == ["True", "False", "parkbot.core.light_models"]


def _printed(code: str) -> list[str]:
    """What ``code`` prints in a fresh process, word by word."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return done.stdout.split()


@pytest.mark.parametrize("path", PATHS)
def test_the_generated_modules_say_they_are_generated_and_from_what(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert text.startswith('"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.')


def test_the_schemas_are_generated_under_the_pydantic_the_action_and_the_tests_install() -> None:
    """Under another pydantic they are left unused (correct, but every command generates its schemas again)."""
    from parkbot.core.models import prebuilt_schemas

    pinned = f"pydantic=={prebuilt_schemas.PYDANTIC_VERSION}"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"{pinned}"' in pyproject, "the test extra pins another pydantic"
    assert f"\n{pinned} " in (ROOT / "actions/parkbot/requirements.lock").read_text(encoding="utf-8")
