"""The light model layer behaves as pydantic's: the same operations on the same models, once on each layer.

Each layer runs in a fresh process (the layer is chosen once per process, see parkbot.core.modeling);
both print what they saw, and the two must agree: values, copies, equality, hashing, frozen and
private attributes, ``repr``, ``model_construct``, ``model_fields`` and JSON Schemas.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PYDANTIC_LAYER = """\
import sys, types
stub = types.ModuleType("parkbot.core.prebuilt_version")
stub.PYDANTIC_VERSION = stub.PYDANTIC_CORE_VERSION = ""
sys.modules[stub.__name__] = stub
"""

PROBE = """\
import copy, json, pickle, sys
from datetime import UTC, datetime

from parkbot.api.results import DecisionView
from parkbot.core.config import Config
from parkbot.core.modeling import LIGHT, ValidationError
from parkbot.core.models import Answer, Decision, Option, Proof

seen = {"light": LIGHT, "pydantic loaded": "pydantic" in sys.modules}
at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
answer = Answer(value="  full ", by="ana", at=at)
same = Answer(value="full", by="ana", at=at)
other = Answer(value="part", by="ana", at=at)
proved = answer.with_proof(Proof(good=True, signer="ana"))
seen["repr"] = repr(answer)
seen["str"] = str(answer)
seen["equal"] = [answer == same, answer == other, answer == proved, answer == "full"]
seen["equal"].append(proved.proof == Proof(good=True, signer="ana"))
seen["hash"] = [hash(Option(id="x", label="X")) == hash(Option(id="x", label=" X "))]
seen["hash"].append(hash(Proof(good=True)) == hash(Proof(good=True)))
seen["fields set"] = sorted(answer.model_fields_set)
seen["dict"] = sorted(dict(answer))
try:
    answer.value = "changed"
except ValidationError as exc:
    seen["frozen"] = [str(exc).splitlines()[:2], exc.errors(include_url=False)[0]["type"]]
try:
    answer.nothing
except AttributeError as exc:
    seen["unknown"] = str(exc)
try:
    proved.missing_private
except AttributeError as exc:
    seen["unknown private"] = str(exc)
updated = answer.model_copy(update={"value": "other"})
seen["copy"] = [updated.value, sorted(updated.model_fields_set), answer.value, updated.proof is None]
seen["copy keeps proof"] = [proved.model_copy().proof == proved.proof, copy.deepcopy(proved) == proved]
seen["pickle"] = pickle.loads(pickle.dumps(proved)) == proved
decision = Decision(
    id="a-decision-b", origin="a", key="b", title="T", question="Q?",
    options=[Option(id="x", label="X")], owner="o@example.com", created_at=at, updated_at=at,
)
for unhashable in (decision, answer):
    try:
        hash(unhashable)
    except TypeError as exc:
        seen.setdefault("unhashable", []).append(str(exc))
seen["validate instance"] = Decision.model_validate(decision) is decision
seen["dump"] = decision.model_dump(mode="json", exclude_none=True)
seen["dump json"] = decision.model_dump_json(indent=2, by_alias=True)
view = DecisionView.of(decision)
seen["constructed"] = [sorted(view.model_fields_set), view.model_dump_json()]
seen["model fields"] = {name: [str(f.annotation), f.alias, f.is_required()] for name, f in Config.model_fields.items()}
seen["decision fields"] = list(Decision.model_fields)
seen["json schemas"] = [Decision.model_json_schema(), Config.model_json_schema(), DecisionView.model_json_schema()]
# A record cannot vouch for itself: what stored data says of a proof, problems or a blocking proof is
# refused (unknown fields), never read into the private attributes only an adapter that checked sets.
forged = []
good = {"good": True, "signer": "ana"}
for model, data in (
    (Answer, {**json.loads(answer.model_dump_json()), "_proof": good}),
    (Answer, {**json.loads(answer.model_dump_json()), "proof": good}),
    (Decision, {**json.loads(decision.model_dump_json()), "_blocking_proof": good}),
    (Decision, {**json.loads(decision.model_dump_json()), "_problems": []}),
):
    try:
        read = model.model_validate_json(json.dumps(data))
        forged.append(["read", repr(getattr(read, "proof", None)), repr(getattr(read, "blocking_proof", None))])
    except ValidationError as exc:
        forged.append(["refused", [e["type"] for e in exc.errors(include_url=False)]])
seen["forged"] = forged
seen["plain read carries no proof"] = [Answer.model_validate_json(answer.model_dump_json()).proof is None]
from pydantic import BaseModel  # last: the light layer's process must not have loaded it before


class Holder(BaseModel):  # a user's own pydantic model holding one of parkbot's
    decision: Decision


held = Holder(decision=decision)
seen["held"] = [held.model_dump_json(), Holder.model_validate_json(held.model_dump_json()).decision == decision]
print(json.dumps(seen, sort_keys=True, default=str))
"""


def _seen(layer: str) -> dict[str, object]:
    code = (PYDANTIC_LAYER if layer == "pydantic" else "") + PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, object], dict[str, object]]:
    return _seen("light"), _seen("pydantic")


def test_each_process_is_on_the_layer_asked_for(both: tuple[dict[str, object], dict[str, object]]) -> None:
    light, pydantic = both
    assert (light["light"], light["pydantic loaded"]) == (True, False)
    assert pydantic["light"] is False


KEYS = (
    "repr",
    "str",
    "equal",
    "hash",
    "fields set",
    "dict",
    "frozen",
    "unknown",
    "unknown private",
    "copy",
    "copy keeps proof",
    "pickle",
    "unhashable",
    "validate instance",
    "dump",
    "dump json",
    "constructed",
    "model fields",
    "decision fields",
    "json schemas",
    "held",
    "forged",
    "plain read carries no proof",
)


def test_stored_data_cannot_set_a_proof_on_the_light_layer(both: tuple[dict[str, object], dict[str, object]]) -> None:
    light, _ = both
    assert light["forged"] == [["refused", ["extra_forbidden"]]] * 4
    assert light["plain read carries no proof"] == [True]


@pytest.mark.parametrize("key", KEYS)
def test_the_light_layer_does_what_pydantics_does(both: tuple[dict[str, object], dict[str, object]], key: str) -> None:
    light, pydantic = both
    assert key in pydantic, f"the probe saw no {key!r}"
    assert light.get(key) == pydantic[key]


def test_a_model_with_no_prebuilt_schema_says_how_to_get_one() -> None:
    code = (
        "from parkbot.core.modeling import Model\n"
        "class Stray(Model):\n    name: str\n"
        "try:\n    Stray(name='x')\nexcept TypeError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "Stray has no prebuilt schema" in done.stdout
    assert "python -m tests.support.prebuilt --write" in done.stdout
