"""The reason codes and next steps of parkbot's failures: one typed list each, in ``parkbot.core.errors``.

mypy refuses a code that is not in :data:`~parkbot.core.errors.Reason` (or :data:`~parkbot.core.errors.Step`); these
tests read every raise site of the source, as written, so a code is never listed and never raised (or raised
and never listed, where mypy does not look), and check each surface has words for every step it can meet.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import get_args

import pytest

from parkbot.cli.messages import cli_message, error_object, next_step
from parkbot.core.errors import (
    BackendFailure,
    ConcurrentChange,
    ContentChanged,
    InvalidInput,
    NotFound,
    ParkbotError,
    Reason,
    Refused,
    Step,
)
from parkbot.core.models.records import DecisionState
from parkbot.events.replies import github_step
from parkbot.mcp_server import mcp_message

BOT = Path(__file__).resolve().parents[2] / "bot" / "parkbot"
REASONS = set(get_args(Reason))
STEPS = set(get_args(Step))
#: What carries a reason code besides the errors: a problem with a pushed commit's files (``parkbot.core.filing``).
CARRIERS = {"Problem"}
#: The reason codes passed on rather than written: the error caught, or the decision's state (a ``DecisionState``).
PASSED_ON = {"exc.reason", "decision.state"}
#: Modules of the owners' acts (answer, escalate, review, by hand, the planner's answers): no MCP tool runs them.
OWNER_ACTS = {
    "core/lifecycle/resolving.py",
    "core/lifecycle/escalation.py",
    "core/lifecycle/review.py",
    "core/lifecycle/by_hand.py",
    "core/planner.py",
    "api/acting.py",
}


@cache
def modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the package, parsed (once)."""
    return tuple(
        (path.relative_to(BOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(BOT.rglob("*.py"))
    )


@cache
def error_classes() -> frozenset[str]:
    """Every class of the source that is a ``ParkbotError`` (by its bases, as written)."""
    bases = {
        node.name: {b.id for b in node.bases if isinstance(b, ast.Name)}
        for _, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found = {"ParkbotError"}
    while grown := {name for name, of in bases.items() if of & found and name not in found}:
        found |= grown
    return frozenset(found)


def callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def codes(value: ast.expr) -> list[str]:
    """The codes an argument can be: its string constants (either branch of ``a if c else b``), or the expression."""
    constants = [n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return constants or [ast.unparse(value)]


def raised(keyword: str) -> dict[str, set[str]]:
    """Every ``reason=`` (or ``step=``) given to an error or a filing problem, and the class defaults: code -> where."""
    carriers = error_classes() | CARRIERS
    found: dict[str, set[str]] = {}
    for where, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and callee(node) in carriers:
                for kw in node.keywords:
                    if kw.arg == keyword:
                        for code in codes(kw.value):
                            found.setdefault(code, set()).add(where)
            if isinstance(node, ast.ClassDef) and node.name in carriers:
                for stmt in node.body:
                    target = stmt.target if isinstance(stmt, ast.AnnAssign) else None
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                        target = stmt.targets[0]
                    value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
                    if isinstance(target, ast.Name) and target.id == keyword and value is not None:
                        for code in codes(value):
                            found.setdefault(code, set()).add(where)
    return found


def test_the_scan_sees_the_raise_sites() -> None:
    """The scan itself: it finds the refusals written in the core and in the adapters, and the class defaults."""
    reasons = raised("reason")
    assert {"cap_reached", "not_upward", "source_missing", "no_inventory"} <= set(reasons)
    assert "trackers/github/access.py" in reasons["not_authorized"]
    assert "core/errors.py" in reasons["backend_failure"]
    assert {"GitFailed", "CommitUnavailable", "ContentChanged"} <= error_classes()
    assert "core/lifecycle/reading.py" in raised("step")["check_id"]


def test_every_reason_code_raised_is_in_the_one_list_and_every_listed_one_is_raised() -> None:
    reasons = raised("reason")
    unknown = {code: where for code, where in reasons.items() if code not in REASONS | PASSED_ON}
    assert not unknown, "raised but not in Reason (or computed some other way)"
    # A decision's state is passed on as the reason of a rule that wants another state.
    assert set(get_args(DecisionState)) <= REASONS
    assert not REASONS - set(reasons) - set(get_args(DecisionState)), "listed in Reason but raised nowhere"


def test_every_step_raised_is_in_the_one_list_and_every_listed_one_is_raised() -> None:
    steps = raised("step")
    assert set(steps) - {"None"} == STEPS


@pytest.mark.parametrize("step", sorted(STEPS))
def test_the_command_line_words_every_next_step_in_its_own_commands(step: Step) -> None:
    worded = next_step(Refused("no", step=step, decision="billing-42-decision-refund"))
    assert worded is not None
    assert "parkbot " in worded or "--" in worded or "`" in worded


def test_a_reply_on_github_words_every_step_a_comment_command_can_meet() -> None:
    """A comment command runs the core's rules only, on the decision of its issue: it never names an id, so it
    never meets ``check_id``; every other step the core raises has comment commands to say it."""
    in_the_core = {
        code for code, where in raised("step").items() if any(w.startswith("core/") for w in where) and code != "None"
    }
    assert "check_id" in in_the_core
    worded = {step: github_step(Refused("no", step=step)) for step in in_the_core - {"check_id"}}
    assert not {step for step, words in worded.items() if words is None or "`/" not in words}, worded


def test_an_mcp_tool_error_words_every_step_its_tools_can_meet() -> None:
    """The tools are the agent's verbs; the owners' acts are not tools, so their steps are not worded there."""
    tools_meet = {
        code for code, where in raised("step").items() if code != "None" and any(w not in OWNER_ACTS for w in where)
    }
    assert tools_meet == {"check_id", "gate_target", "pr_on_github", "other_backend"}
    for step in tools_meet:
        error = InvalidInput("no", step=step)
        assert mcp_message(error) != "no", step


@pytest.mark.parametrize(
    ("error", "reason", "exit_code"),
    [
        (ParkbotError("x"), "error", 2),
        (InvalidInput("x"), "invalid", 2),
        (NotFound("x"), "not_found", 2),
        (Refused("x"), "refused", 3),
        (BackendFailure("x"), "backend_failure", 4),
        (ConcurrentChange("x"), "concurrent_change", 4),
        (ContentChanged("x"), "options_changed", 4),
        (Refused("x", reason="not_upward"), "not_upward", 3),
    ],
)
def test_the_code_is_what_every_surface_prints_unchanged(error: ParkbotError, reason: str, exit_code: int) -> None:
    """The typed code is the string ``--json`` and MCP print: the codes are a contract, never renamed."""
    assert error.reason == reason
    assert error_object(error) == {"error": reason, "message": cli_message(error), "exit_code": exit_code}
