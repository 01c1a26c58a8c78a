"""pydantic-core's engine without its package's typing descriptions (parkbot.core.engine), in fresh processes.

The package's ``__init__`` runs only when something asks it for a name it lacks; reading, writing and
refusing records never does, and once it has run, everything is as after a plain ``import pydantic_core``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

READ_WRITE_REFUSE = """\
import json, sys
from parkbot.core.engine import ValidationError
from parkbot.core.models import Decision
text = sys.argv[1]
seen = {}
decision = Decision.model_validate_json(text)
seen["written"] = decision.model_dump_json()
try:
    Decision.model_validate_json(text.replace('"title"', '"titel"'))
except ValidationError as exc:
    seen["errors"] = exc.errors(include_url=False)
seen["package ran"] = "pydantic_core.core_schema" in sys.modules or "pydantic" in sys.modules
"""

COMPLETED = """\
from parkbot.core.engine import ValidationError
import pydantic_core
from pydantic import BaseModel
from pydantic_core import MISSING, core_schema
class Probe(BaseModel):
    a: int = 1
    b: int | MISSING = MISSING
seen["after"] = [
    pydantic_core.ValidationError is ValidationError,
    Probe().model_dump(),
    core_schema.str_schema()["type"],
    pydantic_core.__version__,
]
try:
    Decision.model_validate_json(text.replace('"title"', '"titel"'))
except ValidationError as exc:
    seen["message"] = str(exc)
print(json.dumps(seen, default=str))
"""

PLAIN = (
    """\
import json, sys
import pydantic_core
"""
    + READ_WRITE_REFUSE.removeprefix("import json, sys\n")
    + COMPLETED
)


def _run(code: str, record: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code, record], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def _record() -> str:
    from tests.support.report import history

    return history()[0].model_dump_json()


def test_records_are_read_written_and_refused_without_running_the_package() -> None:
    seen = _run(READ_WRITE_REFUSE + "print(json.dumps(seen, default=str))\n", _record())
    assert seen["package ran"] is False
    assert seen["errors"], "the damaged record was not refused"


def test_once_the_package_runs_everything_is_as_after_a_plain_import() -> None:
    record = _record()
    entered = _run(READ_WRITE_REFUSE + COMPLETED, record)
    plain = _run(PLAIN, record)
    assert entered["package ran"] is False
    # pydantic sees the engine's own MISSING: a field left MISSING is not written.
    assert entered["after"] == [True, {"a": 1}, "str", plain["after"][3]]  # type: ignore[index]
    assert entered == plain | {"package ran": False}


SENTINEL = """\
import copy, json, pickle, sys, typing
seen = {}
if sys.argv[1] == "entered":
    from parkbot.core.models import Decision
    Decision.model_validate_json(sys.argv[2]).model_dump_json()  # the engine asks for MISSING: parkbot makes it
    seen["made before pydantic"] = [
        type(sys.modules["pydantic_core"].__dict__["MISSING"]).__module__,
        "typing_extensions" in sys.modules,
    ]
import pydantic, pydantic_core
from pydantic import MISSING, BaseModel
class Probe(BaseModel):
    a: int | MISSING = MISSING
    b: typing.Union[int, MISSING] = MISSING
    c: int | None | MISSING = MISSING
seen["model"] = [
    Probe().model_dump(),
    Probe(a=1).model_dump_json(),
    Probe.model_validate({"b": 2, "c": None}).model_dump(),
    Probe.model_validate_json('{"a": 3}').model_dump(mode="json"),
    repr(Probe()),
    Probe.model_json_schema(),
]
seen["same"] = [pydantic_core.MISSING is pydantic.MISSING, pydantic_core.MISSING is MISSING]
seen["sentinel"] = [
    repr(MISSING),
    str(MISSING),
    MISSING.__name__,
    MISSING.__module__,
    callable(MISSING),
    hash(MISSING) == hash(pydantic_core.MISSING),
    {MISSING: 1}[pydantic_core.MISSING],
    MISSING == MISSING,
    MISSING != None,
    repr(int | MISSING),
    repr(MISSING | None),
    repr(typing.Union[int, MISSING]),
    (int | MISSING) == typing.Union[int, MISSING],
    copy.copy(MISSING) is MISSING,
    copy.deepcopy(MISSING) is MISSING,
    [pickle.dumps(MISSING, protocol).hex() for protocol in range(pickle.HIGHEST_PROTOCOL + 1)],
    [pickle.loads(pickle.dumps(MISSING, protocol)) is MISSING for protocol in range(pickle.HIGHEST_PROTOCOL + 1)],
]
print(json.dumps(seen, default=str))
"""


def test_the_missing_sentinel_parkbot_makes_is_the_one_pydantic_and_its_users_see() -> None:
    """Made by the engine's first write without ``typing_extensions``, the sentinel is pydantic's ``MISSING``
    and behaves as the one a plain import of pydantic-core makes with ``typing_extensions.sentinel``."""
    entered = _run_with(SENTINEL, "entered", _record())
    plain = _run_with(SENTINEL, "plain", "")
    assert entered.pop("made before pydantic") == ["parkbot.core.engine", False]
    assert entered["same"] == [True, True]
    assert entered["model"][:4] == [{}, '{"a":1}', {"b": 2, "c": None}, {"a": 3}]  # type: ignore[index]
    assert entered == plain


def _run_with(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found
