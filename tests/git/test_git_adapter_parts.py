"""The git adapter is a facade over parts: every method it offers is one part's method, and no part grows
into a hub again (at most 25 methods a class, every module under 500 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

import git

from parkbot.core.tracker import Tracker
from parkbot.trackers.git import GitTracker
from parkbot.trackers.git.forward import Forward

ADAPTER = Path(__file__).resolve().parents[2] / "bot" / "parkbot" / "trackers" / "git"


def test_every_method_the_facade_forwards_is_its_parts_own(made_repo: git.Repo) -> None:
    tracker = GitTracker(made_repo)
    try:
        forwards = {name: f for name, f in vars(GitTracker).items() if isinstance(f, Forward)}
        assert len(forwards) > 20
        for name, forward in forwards.items():
            part = getattr(tracker, forward.part)
            assert getattr(tracker, name) == getattr(part, forward.name), name
            assert forward.__doc__ == getattr(type(part), forward.name).__doc__
        assert isinstance(tracker, Tracker)
    finally:
        tracker.release()


def test_a_part_made_on_first_use_is_named_and_documented_before_it_is_loaded() -> None:
    """The writing side is imported when first used, yet the table names and documents its methods as before."""
    from parkbot.trackers.git.writes import DecisionWrites

    assert GitTracker.create.name == "create"
    assert GitTracker.create.__doc__ == DecisionWrites.create.__doc__
    assert (Forward.__doc__ or "").startswith("``find = Forward(")
    assert repr(GitTracker.create) == "<forward to .writing.create>"


def test_no_class_of_the_adapter_has_more_than_25_methods_and_no_module_500_lines() -> None:
    too_big = []
    for path in sorted(ADAPTER.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) >= 500:
            too_big.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                methods = [f for f in node.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
                if len(methods) > 25:
                    too_big.append(f"{path.name}: {node.name} has {len(methods)} methods")
    assert too_big == []
