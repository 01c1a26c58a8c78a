"""The planner's commands, cite and pass, and correct (each a call into :mod:`parkbot.api`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click

from parkbot.cli.common import State, backend_options, by_option, show
from parkbot.core.errors import ExitCode


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option("--answer", "-a", "answer", required=True, help="The option the cited sources give.")
@click.option(
    "--source",
    "-s",
    "sources",
    multiple=True,
    help="A file with its lines at the default branch (docs/refunds.md#L10-L14), or a decision answered by a "
    "person (its id). Repeat for several.",
)
@by_option("cites (the configured planner)")
@backend_options
def cite(state: State, decision_id: str, answer: str, sources: tuple[str, ...], by: str | None) -> None:
    """Answer a question as the planner, from cited sources that parkbot checks.

    Only the planner configured on the default branch (planner.by) may cite, and only while the question
    waits for it. Every source is checked before anything is recorded: a file matching planner.sources at
    the default branch's current commit with the cited lines present, or a decision a person answered.
    The answer keeps the commit and the cited lines, and is a review item for the owner. A source that
    does not hold is refused (exit 3), naming the source.

    \b
    Example:
      parkbot cite billing-42-decision-refund --answer full_original --source docs/refunds.md#L10-L14
    """
    show(state, state.backlog.cite(decision_id, answer, list(sources), by=by, source="cli"))


@click.command(name="pass")
@click.argument("decision_id", metavar="ID")
@click.option("--reason", default=None, help="Why the sources do not answer it (shown to the owner).")
@by_option("passes (the configured planner)")
@backend_options
def pass_(state: State, decision_id: str, reason: str | None, by: str | None) -> None:
    """As the planner, hand a question to its owner now: the sources do not answer it.

    \b
    Example:
      parkbot pass billing-42-decision-refund --reason "no policy for partial refunds yet"
    """
    show(state, state.backlog.pass_question(decision_id, by=by, reason=reason))


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option("--answer", "-a", "answer", required=True, help="The right option id (or free text where allowed).")
@click.option("--reason", required=True, help="Why the first answer was wrong (kept in the history).")
@by_option("corrects (whoever answered, or an owner above them)")
@backend_options
def correct(state: State, decision_id: str, answer: str, reason: str, by: str | None) -> None:
    """Correct a resolved decision's answer: recorded next to the first, which the history keeps.

    Only whoever answered, or an owner above them, may correct. Dependents not merged yet are re-gated on
    the new answer; dependents already merged are told to rework. The same answer again is `unchanged`.

    \b
    Example:
      parkbot correct billing-42-decision-refund --answer remaining_three --reason "typed the wrong option"
    """
    show(state, state.backlog.correct(decision_id, answer, reason=reason, by=by, source="cli"))


@dataclass(frozen=True)
class HandedOver:
    """What ``hand-over`` did: the questions given to their owners (``--json``: ``handed_over``, ``count``)."""

    handed: list[Any]  # parkbot.api.Filed, imported lazily with the backlog

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    def model_dump(self, *, mode: str) -> dict[str, Any]:
        return {"handed_over": [f.model_dump(mode=mode) for f in self.handed], "count": len(self.handed)}

    def text(self) -> str:
        if not self.handed:
            return "no question's planner window has ended: nothing to hand over"
        lines = [f"handed {len(self.handed)} question(s) to their owners (the planner's window ended):"]
        lines += [f"  {f.id} -> {f.owner}" for f in self.handed]
        return "\n".join(lines)


@click.command(name="hand-over")
@backend_options
def hand_over(state: State) -> None:
    """Hand every question whose planner window ended to its owner, as the scheduled run does.

    A question waits for the planner during planner.window; when the window ends, its owner is assigned
    and notified. On GitHub the scheduled reconcile does this; elsewhere (the git backlog, a repository
    without a schedule) run this command from cron or by hand. Running it again changes nothing.

    \b
    Example:
      parkbot hand-over --json
    """
    show(state, HandedOver(list(state.backlog.hand_over())))
