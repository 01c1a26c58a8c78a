"""A package entered without running its ``__init__`` (parkbot.core.packages), with PyYAML, in fresh processes.

The configuration is read with PyYAML's loading side only; whatever asks the package for a name runs
its ``__init__`` in place, and from then on it is what a plain ``import yaml`` makes: the same
configurations read the same, and the same mistakes are refused in the same words.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CONFIGS = [
    "owners:\n  default: ana@example.com\n",
    "owners:\n  default: ana@example.com\nprecedents: off\n",
    "owners:\n  default: a\n  default: b\n",
    "a: &x 1\nb: *x\n",
    "owners: [unclosed\n",
    "owners:\n  default: \x07\n",
    "- a list\n",
]

READ = """\
import json, sys
{before}
from parkbot.core.config import check_config
from parkbot.core.errors import InvalidInput
seen = []
for text in json.loads(sys.argv[1]):
    try:
        config, warnings = check_config(text, ".github/parkbot.yml")
        seen.append(["ok", config.model_dump(mode="json"), [list(w) for w in warnings]])
    except InvalidInput as exc:
        seen.append(["refused", str(exc)])
package = sys.modules["yaml"]
seen.append({{"ran": "__getattr__" not in package.__dict__, "dumper": "yaml.dumper" in sys.modules}})
import yaml
same = yaml.SafeLoader is yaml.loader.SafeLoader
seen.append([yaml.safe_dump({{"a": [1]}}), same, "__getattr__" in package.__dict__])
print(json.dumps(seen))
"""


def _read(before: str) -> list[object]:
    code = READ.format(before=before)
    done = subprocess.run([sys.executable, "-c", code, json.dumps(CONFIGS)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found: list[object] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def both() -> tuple[list[object], list[object]]:
    return _read(""), _read("import yaml")


def test_configurations_are_read_with_the_loading_side_only(both: tuple[list[object], list[object]]) -> None:
    entered, _ = both
    assert entered[len(CONFIGS)] == {"ran": False, "dumper": False}


def test_once_asked_for_a_name_the_package_is_what_a_plain_import_makes(
    both: tuple[list[object], list[object]],
) -> None:
    entered, plain = both
    assert entered[len(CONFIGS) + 1] == ["a:\n- 1\n", True, False]
    assert plain[len(CONFIGS)] == {"ran": True, "dumper": True}  # imported first: left as it was


@pytest.mark.parametrize("index", range(len(CONFIGS)))
def test_each_configuration_reads_or_is_refused_the_same(both: tuple[list[object], list[object]], index: int) -> None:
    entered, plain = both
    assert entered[index] == plain[index]


def test_a_package_imported_already_or_not_found_is_left_alone() -> None:
    from parkbot.core.packages import enter

    assert enter("json") is False  # imported already
    assert enter("no_such_package_anywhere") is False
    assert "no_such_package_anywhere" not in sys.modules
