"""``parkbot dashboard``: bring the decision dashboard issue up to date (see :mod:`bot.dashboard`)."""

from __future__ import annotations

import click

from bot.cli.common import State, backend_options, emit
from bot.dashboard import render_current, update_dashboard


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
    left by two runs at once is closed. handle-event refreshes it after every event that changed a
    decision, and on each scheduled reconcile; this command does the same on demand.

    \b
    Example:
      parkbot dashboard --backend github --json
      parkbot dashboard --print                 # its text, from the embedded backlog
    """
    tracker = state.backend.tracker
    if print_only:
        body, decisions = render_current(tracker)
        data = {"open": sum(1 for d in decisions if d.state == "open"), "body": body}
        emit(state, data, body)
        return
    outcome = update_dashboard(tracker)
    if outcome.action == "absent":
        text = "no decision yet: no dashboard issue was created"
    else:
        text = f"dashboard #{outcome.number} {outcome.action} ({outcome.open} open): {outcome.url}"
    if outcome.notice:
        click.echo(f"parkbot: {outcome.notice}", err=True)
    emit(state, outcome.as_dict(), text)


DASHBOARD_COMMANDS = [dashboard]
