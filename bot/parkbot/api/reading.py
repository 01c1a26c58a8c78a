"""Reading the backlog (``show``, ``resume``, ``gate``) and sharing it (``sync``).

Each loads the model of its own result only (``gate`` defines no decision view).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.tracker import Syncing, Tracker

if TYPE_CHECKING:
    from parkbot.api.results import DecisionView, GateReport, ResumeContext, Synced

__all__ = ["gate", "resume", "show", "sync"]


def show(tracker: Tracker, config: Config, id: str) -> DecisionView:
    """One decision: question, options, state, owner, answer (even one recorded by an unfinished
    resolution), dependents, where it lives."""
    from parkbot.api.results.base import location_fields
    from parkbot.api.results.decisions import DecisionView

    decision = lifecycle.answer_of(tracker, config, id)
    answer = decision.answer or (
        lifecycle.recorded_answer(tracker, config, decision) if decision.state == "open" else None
    )
    view: DecisionView = DecisionView.of(decision, answer=answer, **location_fields(tracker.location(decision)))
    return view


def resume(tracker: Tracker, config: Config, id: str) -> ResumeContext:
    """What a fresh session needs to continue; ``exit_code`` 1 while the question is still open."""
    from parkbot.api.results.resume import ResumeContext

    return ResumeContext.of(lifecycle.answer_of(tracker, config, id))


def gate(tracker: Tracker, config: Config, backend: str, ref: str | None, pr: int | str | None) -> GateReport:
    """Whether a branch (``ref``) or pull request (``pr``, GitHub only) may merge."""
    from parkbot.api.results.gate import GateReport

    if (pr is None) == (ref is None):
        raise InvalidInput("name exactly one thing to gate: a pull request, or a branch", step="gate_target")
    if pr is not None:
        number = str(pr).strip().lstrip("#")
        if not number.isascii() or not number.isdigit():
            raise InvalidInput(f"{pr!r} is not a pull request number")
        if backend != "github":
            raise InvalidInput(
                "pull requests live on GitHub, and this is the embedded git backlog", step="pr_on_github"
            )
        target = f"#{int(number)}"
    else:
        target = f"branch:{ref}"
    return GateReport.of(lifecycle.gate(tracker, config, target))


def sync(tracker: Tracker, config: Config, remote: str) -> Synced:
    """Share the embedded backlog with a remote: fetch, merge, push (git backend only)."""
    from parkbot.api.results.acts import Synced

    if not isinstance(tracker, Syncing):
        raise InvalidInput("sync shares the embedded git backlog; on GitHub the issues are already shared")
    result = tracker.sync(remote)
    synced = Synced(
        remote=remote,
        action=result.action,
        ignored=list(result.ignored),
        conflicts=[c.as_dict() for c in result.conflicts],
    )
    return synced._told(f"{config.backlog_ref} <-> {remote}: {result.summary()}", {"remote": None})
