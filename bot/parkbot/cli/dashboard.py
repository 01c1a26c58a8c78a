"""``parkbot dashboard``: recount the decision dashboard issue (see :mod:`parkbot.dashboard_refresh`)."""

from __future__ import annotations

import click

from parkbot.cli.common import State, backend_options, emit
from parkbot.dashboard_refresh import recount_dashboard, render_current


@click.command()
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the dashboard's text instead of writing the issue (any backend, nothing written).",
)
@backend_options
def dashboard(state: State, print_only: bool) -> None:
    """Keep the decision dashboard issue up to date (GitHub): open decisions by owner, and the numbers.

    There is exactly one dashboard: the open issue labeled parkbot:dashboard. It is created (and
    pinned, best effort) the first time, edited in place only when its text changed, and a duplicate
    left by two runs at once is closed. handle-event patches it after every event that changed a
    decision (only those entries), and each scheduled reconcile recounts it from every decision;
    this command recounts it on demand.

    \b
    Example:
      parkbot dashboard --backend github --json
      parkbot dashboard --print                 # its text, from the embedded backlog
    """
    tracker = state.backend.tracker
    if print_only:
        body, index = render_current(tracker, state.backend.config)
        data = {"open": index.open_count, "body": body}
        emit(state, data, body)
        return
    outcome = recount_dashboard(tracker, state.backend.config)
    if outcome.action == "absent":
        text = "no decision yet: no dashboard issue was created"
    else:
        text = f"dashboard #{outcome.number} {outcome.action} ({outcome.open} open): {outcome.url}"
    if outcome.notice:
        click.echo(f"parkbot: {outcome.notice}", err=True)
    emit(state, outcome.as_dict(), text)


DASHBOARD_COMMANDS = [dashboard]
