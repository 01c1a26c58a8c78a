"""Hubs stay split: no module of the GitHub adapter over 500 lines, no class over 25 methods.

A class over 25 methods is several jobs under one name, and a newcomer cannot tell which caches or
which protocol a method belongs to. Measured on the syntax tree (methods defined in the class body,
properties included); inherited methods count too, through every base defined in the adapter.
"""

from __future__ import annotations

import ast
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "bot" / "parkbot" / "trackers" / "github"
MAX_LINES = 500
MAX_METHODS = 25


def classes() -> dict[str, tuple[Path, ast.ClassDef]]:
    found = {}
    for path in sorted(ADAPTER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found[node.name] = (path, node)
    return found


def methods(name: str, known: dict[str, tuple[Path, ast.ClassDef]]) -> set[str]:
    """The methods of class ``name``, with those it inherits from the adapter's own classes."""
    _, node = known[name]
    own = {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in known and base.id != name:
            own |= methods(base.id, known)
    return own


def test_no_module_of_the_github_adapter_is_over_500_lines() -> None:
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in ADAPTER.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_no_class_of_the_github_adapter_has_over_25_methods() -> None:
    known = classes()
    counts = {name: len(methods(name, known)) for name in known if name != "GitHubTracker"}
    assert {name: n for name, n in counts.items() if n > MAX_METHODS} == {}


def test_the_facade_is_a_sum_of_capability_parts_each_under_25_methods() -> None:
    """``GitHubTracker`` defines only its construction and configuration; every capability is a part."""
    known = classes()
    _, facade = known["GitHubTracker"]
    own = [item.name for item in facade.body if isinstance(item, ast.FunctionDef)]
    assert len(own) <= 10
    parts = [base.id for base in facade.bases if isinstance(base, ast.Name)]
    assert parts
    assert {part: len(methods(part, known)) for part in parts if len(methods(part, known)) > MAX_METHODS} == {}


def test_the_counter_sees_a_big_class(tmp_path: Path) -> None:
    source = "class Big:\n" + "".join(f"    def m{i}(self) -> None: ...\n" for i in range(30))
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ClassDef)
    assert len(methods("Big", {"Big": (tmp_path, node)})) == 30
