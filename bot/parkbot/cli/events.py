"""``parkbot handle-event``: route the GitHub Actions event that started this run.

The only place that reads the event from the environment (``GITHUB_EVENT_NAME`` and the JSON file
at ``GITHUB_EVENT_PATH``, or ``--event-name``/``--event-path``); the routing itself is
:func:`parkbot.events.handle_event`. Always the GitHub backend, opened only if a handler needs it.

In Actions (``GITHUB_ACTIONS=true``) every run also writes step outputs (``decision-id``,
``decision-ids``, ``issue-number``, ``gate-state``, ``event-status``, ``exit-code``, ``result``), a job
summary, and annotations for problems, all through :mod:`parkbot.actions_output`, which escapes
everything it did not write itself. Exit codes: 0 done (a blocked gate is a result, published as a
check run, not a failure) · 1 an agent branch left a failing gate (no inventory) · 2 invalid
input (a malformed payload, a broken result file) · 3 refused by a rule · 4 backend failure (safe to
re-run).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

import click

from parkbot.actions_output import Actions, append_summary, md, md_code, table, write_outputs
from parkbot.api.failure import failure_of
from parkbot.backends import open_backend
from parkbot.core.errors import InvalidInput, ParkbotError
from parkbot.events import EventOutcome, parse_payload
from parkbot.events import handle_event as route_event
from parkbot.events.base import DashboardFailed, Item

#: Cap on the ``result`` step output (GitHub allows 1 MB of outputs per job).
MAX_RESULT_OUTPUT = 64 * 1024

#: Summary sections: what was parked, resolved, blocked, refused, and everything else.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("parked", "Parked"),
    ("resolved", "Resolved"),
    ("blocked", "Blocked"),
    ("refused", "Refused or failed"),
    ("other", "Also"),
)


def _section(item: Item) -> str:
    if item.kind == "parked":
        return "parked"
    if item.kind == "resolved":
        return "resolved"
    if item.kind == "gate":
        return "blocked" if item.gate_state in ("blocked", "failure") else "other"
    if item.kind in ("refused", "error"):
        return "refused"
    return "other"


def render_summary(outcome: EventOutcome) -> str:
    """The job summary of one event: a heading, the notice, and a table per non-empty section."""
    lines = [f"### parkbot: {md_code(outcome.label)}", "", md(outcome.notice.removeprefix("parkbot: ")), ""]
    by_section: dict[str, list[Item]] = {}
    for item in outcome.items:
        if item.kind == "ignored" and outcome.status == "handled":
            continue
        by_section.setdefault(_section(item), []).append(item)
    for key, title in SECTIONS:
        items = by_section.get(key)
        if not items:
            continue
        rows = [
            [
                md(item.action or item.gate_state or item.kind),
                md_code(item.decision_id) if item.decision_id else "",
                _where(item),
                md(item.message),
            ]
            for item in items
        ]
        lines += [f"#### {title}", "", table(["", "decision", "where", "details"], rows), ""]
    dashboard = dashboard_line(outcome, markdown=True)
    if dashboard:
        lines += [dashboard, ""]
    return "\n".join(lines) + "\n"


def dashboard_line(outcome: EventOutcome, *, markdown: bool = False) -> str | None:
    """One line on what refreshing the dashboard issue did, if it was refreshed (Markdown for the summary)."""
    data = outcome.dashboard
    if data is None:
        return None
    if isinstance(data, DashboardFailed):
        message = f"{data.message} (the next event or reconcile retries)"
        return "Dashboard not refreshed: " + (md(message) if markdown else message)
    if data.action == "absent":
        return "Dashboard: none yet (no decision to show)"
    where = f"#{data.number}"
    if markdown:
        where = _where(Item("ignored", "", number=data.number, url=data.url))
    return f"Dashboard {where}: {md(str(data.action)) if markdown else data.action} ({data.open} open)"


def _where(item: Item) -> str:
    if item.number is not None:
        url = item.url or ""
        # URLs come from GitHub's API (the issue's html_url); anything odd is shown without a link.
        if re.fullmatch(r"https?://[A-Za-z0-9._~:/?#@!$&*+,;=%-]+", url) and "(" not in url and ")" not in url:
            return f"[#{item.number}]({url})"
        return f"#{item.number}"
    if item.target:
        return md_code(item.target)
    return ""


def outputs_of(outcome: EventOutcome) -> dict[str, Any]:
    """The step outputs of one event (empty strings rather than missing keys, for ``if:`` tests)."""
    result = json.dumps(outcome.as_dict(), separators=(",", ":"), default=str)
    if len(result) > MAX_RESULT_OUTPUT:
        result = json.dumps({**outcome.as_dict(), "items": [], "truncated": True}, default=str)
    return {
        "decision-id": outcome.decision_id or "",
        "decision-ids": " ".join(outcome.decision_ids),
        "issue-number": "" if outcome.issue_number is None else str(outcome.issue_number),
        "gate-state": outcome.gate_state or "",
        "event-status": outcome.status,
        "exit-code": str(outcome.exit_code),
        "result": result,
    }


def render_text(outcome: EventOutcome) -> str:
    lines = [outcome.notice]
    for item in outcome.items:
        if item.kind == "ignored" and outcome.status == "handled":
            continue
        lines.append(f"  {item.kind}: {item.message}")
    dashboard = dashboard_line(outcome)
    if dashboard:
        lines.append(f"  {dashboard}")
    return "\n".join(lines)


def _read_payload(path: str | None) -> dict[str, Any]:
    if not path:
        raise InvalidInput("no event payload: set GITHUB_EVENT_PATH or pass --event-path")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read the event payload {path}: {exc.strerror}") from None
    return parse_payload(data)


def report(outcome: EventOutcome, env: Mapping[str, str], *, as_json: bool, summary: bool = True) -> int:
    """Print, annotate and write outputs for one outcome; the exit code."""
    actions = Actions(env)
    out, err = sys.stdout, sys.stderr
    text = json.dumps(outcome.as_dict(), indent=2, default=str) if as_json else render_text(outcome)
    actions.show(text, out)
    if outcome.status == "unknown":
        actions.annotate("notice", outcome.notice, err)
    for item in outcome.items:
        if item.level in ("notice", "warning", "error"):
            actions.annotate(item.level, item.message, err)
    dashboard = outcome.dashboard
    if isinstance(dashboard, DashboardFailed):
        actions.annotate("warning", dashboard_line(outcome) or "", err)
    elif dashboard is not None and dashboard.notice:
        actions.annotate("notice", f"parkbot dashboard: {dashboard.notice}", err)
    write_outputs(actions.output_path, outputs_of(outcome))
    if summary:
        append_summary(actions.summary_path, render_summary(outcome))
    return outcome.exit_code


def fail(error: ParkbotError, env: Mapping[str, str], *, as_json: bool, label: str, summary: bool = True) -> int:
    """An understood failure: one annotation (escaped), the JSON error object, outputs and a summary line."""
    actions = Actions(env)
    if as_json:
        actions.show(json.dumps(failure_of(error), indent=2), sys.stdout)
    actions.annotate("error", f"parkbot handle-event: {error.message}", sys.stderr)
    write_outputs(actions.output_path, {"event-status": "failed", "exit-code": str(int(error.exit_code))})
    if summary:
        append_summary(
            actions.summary_path,
            f"### parkbot: {md_code(label)}\n\nFailed (exit {int(error.exit_code)}): {md(error.message)}\n",
        )
    return int(error.exit_code)


@click.command("handle-event")
@click.option(
    "--event-name",
    envvar="GITHUB_EVENT_NAME",
    default=None,
    help="The event that started the run (default: GITHUB_EVENT_NAME).",
)
@click.option(
    "--event-path",
    envvar="GITHUB_EVENT_PATH",
    type=click.Path(dir_okay=False),
    default=None,
    help="The event's JSON payload (default: GITHUB_EVENT_PATH).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Configuration file (default: .github/parkbot.yml on the repository's default branch).",
)
@click.option(
    "--repo",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The checkout that push events read the pushed commit from.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, for machines.")
@click.option("--no-summary", "no_summary", is_flag=True, help="Do not write the job summary.")
def handle_event(
    event_name: str | None,
    event_path: str | None,
    config_path: str | None,
    repo: str,
    as_json: bool,
    no_summary: bool,
) -> None:
    """Route the GitHub Actions event that started this run to parkbot (always the GitHub backend).

    \b
    issue_comment created/edited     a /decide, /answer, /default ... command on a decision issue
    pull_request opened/edited/...   the gate (check run parkbot/decisions) on the pull request
    push                             decisions committed under .parkbot/decisions/ are parked
    issues closed/reopened           a decision closed without an answer is reopened (or abandoned)
    merge_group checks_requested     the gate on the merge-queue commit
    check_run rerequested, status    parkbot's gate evaluated again
    workflow_dispatch, schedule      a full reconcile of every open decision
    workflow_run completed           the gate on a pull request from a fork (from the base repository)

    Other events and actions exit 0 with a one-line notice. In GitHub Actions it also writes step
    outputs, a job summary and annotations.

    \b
    Example (what the parkbot action runs):
      parkbot handle-event                       # GITHUB_EVENT_NAME / GITHUB_EVENT_PATH
      parkbot handle-event --event-name push --event-path event.json --json
    """
    env = os.environ
    label = event_name or "event"
    try:
        payload = _read_payload(event_path)
        outcome = route_event(
            event_name or "",
            payload,
            tracker_factory=lambda: open_backend("github", repo_path=repo, config_path=config_path, env=env),
            repo_path=repo,
        )
    except ParkbotError as exc:
        sys.exit(fail(exc, env, as_json=as_json, label=label, summary=not no_summary))
    code = report(outcome, env, as_json=as_json, summary=not no_summary)
    if code:
        sys.exit(code)


EVENT_COMMANDS = [handle_event]

if __name__ == "__main__":  # pragma: no cover - ``python -m parkbot.cli.events``, as the action runs it
    handle_event(prog_name="parkbot handle-event")

__all__ = ["EVENT_COMMANDS", "handle_event", "render_summary"]
