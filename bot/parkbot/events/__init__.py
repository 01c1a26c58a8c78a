"""GitHub Actions events -> lifecycle calls: one module per event family, composed here.

| event | actions | module | what happens |
| --- | --- | --- | --- |
| ``issue_comment`` | created, edited | :mod:`~parkbot.events.comments` | the comment's command, on decision issues |
| ``pull_request`` | opened, edited, synchronize, reopened | :mod:`~parkbot.events.pulls` | the gate on the PR |
| ``push`` | (none) | :mod:`~parkbot.events.push` | result files on the pushed commit are parked |
| ``issues`` | closed, reopened, unlabeled, transferred, deleted | :mod:`~parkbot.events.issues` | the record is kept |
| ``merge_group`` | checks_requested | :mod:`~parkbot.events.merge_group` | the gate on the merge-queue commit |
| ``check_run`` | rerequested | :mod:`~parkbot.events.checks` | the PRs of parkbot's check, gated again |
| ``status`` | (none) | :mod:`~parkbot.events.checks` | a hand-set ``parkbot/decisions`` evaluated again |
| ``workflow_dispatch``, ``schedule`` | (none) | :mod:`~parkbot.events.reconcile` | a full reconcile |
| ``workflow_run`` | completed | :mod:`~parkbot.events.workflow_run` | the gate on a fork's PR, from the base repo |

Each module keeps its own :class:`~parkbot.events.router.Router` (as bedevere does); :data:`ROUTER`
joins them. :func:`handle_event` is the one entry point: unknown events and actions come back as an
outcome with a one-line notice (exit 0), malformed payloads raise :class:`~parkbot.core.errors.InvalidInput`
(exit 2), and the backend is opened only when a handler needs it, so an event the payload shows to
be irrelevant makes no API call at all. Reading the environment is the CLI's job
(:mod:`parkbot.cli.events`), not this package's.

After an event that changed a decision (parked, resolved, escalated, reopened, closed ...: what each
outcome of the lifecycle said it changed, a :class:`parkbot.core.dashboard_index.Changed` carried on the
event's items) the decision dashboard issue is patched with just those decisions
(:meth:`~parkbot.events.base.Context.patch_dashboard`), and every reconcile recounts it from every decision;
the outcome reports what that did in ``dashboard``. It is not an item: it changes no decision and never fails
the event.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from parkbot.core import dashboard_index
from parkbot.core.errors import InvalidInput
from parkbot.events import checks, comments, issues, merge_group, pulls, push, reconcile, workflow_run
from parkbot.events.base import CommitReader, Context, DashboardSummary, Event, Item, TrackerFactory
from parkbot.events.router import Router

ROUTER = Router(
    comments.router,
    pulls.router,
    push.router,
    issues.router,
    merge_group.router,
    checks.router,
    reconcile.router,
    workflow_run.router,
)

OutcomeStatus = Literal["handled", "ignored", "unknown"]
#: Largest event payload read (GitHub caps webhook payloads at 25 MB; what parkbot reads is far smaller).
MAX_PAYLOAD_BYTES = 25 * 1024 * 1024


@dataclass
class EventOutcome:
    """What one event led to: the items, a one-line notice, and the exit code they add up to."""

    event: str
    action: str | None
    status: OutcomeStatus
    notice: str
    items: list[Item] = field(default_factory=list)
    api_used: bool = False
    #: What refreshing the dashboard issue did (a ``parkbot.dashboard_refresh.DashboardOutcome``, or
    #: ``parkbot.events.base.DashboardFailed``), or None when it was not refreshed.
    dashboard: DashboardSummary | None = None

    @property
    def label(self) -> str:
        return f"{self.event}.{self.action}" if self.action else self.event

    @property
    def exit_code(self) -> int:
        """0 unless an item failed: 1 (a failing gate on an agent branch), 2, 3 or 4 (the CLI contract)."""
        return max((item.exit_code for item in self.items), default=0)

    @property
    def acted(self) -> list[Item]:
        return [item for item in self.items if item.kind != "ignored"]

    @property
    def decision_ids(self) -> list[str]:
        return list(dict.fromkeys(i.decision_id for i in self.acted if i.decision_id))

    @property
    def decision_id(self) -> str | None:
        ids = self.decision_ids
        return ids[0] if ids else None

    @property
    def issue_number(self) -> int | None:
        """The decision issue this event was about (else the first number an item names)."""
        for item in self.acted:
            if item.number is not None and item.kind != "gate":
                return item.number
        return next((i.number for i in self.acted if i.number is not None), None)

    @property
    def gate_state(self) -> str | None:
        """``failure`` if any gate failed, else ``blocked`` if any is blocked, else ``open``; None: no gate."""
        states = {i.gate_state for i in self.items if i.kind == "gate" and i.gate_state}
        for state in ("failure", "blocked", "open"):
            if state in states:
                return state
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "action": self.action,
            "status": self.status,
            "notice": self.notice,
            "exit_code": self.exit_code,
            "decision_id": self.decision_id,
            "decision_ids": self.decision_ids,
            "issue_number": self.issue_number,
            "gate_state": self.gate_state,
            "api_used": self.api_used,
            "items": [item.as_dict() for item in self.items],
            "dashboard": self.dashboard.as_dict() if self.dashboard is not None else None,
        }


def parse_payload(data: str | bytes) -> dict[str, Any]:
    """The JSON at ``GITHUB_EVENT_PATH``: an object, or :class:`InvalidInput`."""
    if len(data) > MAX_PAYLOAD_BYTES:
        raise InvalidInput(f"the event payload is larger than {MAX_PAYLOAD_BYTES} bytes")
    try:
        payload = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"the event payload is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise InvalidInput(f"the event payload must be a JSON object, not {type(payload).__name__}")
    return payload


def handle_event(
    event_name: str,
    payload: Mapping[str, Any] | str | bytes,
    *,
    tracker_factory: TrackerFactory,
    repo_path: str | Path = ".",
    now: datetime | None = None,
    commit_reader: CommitReader | None = None,
) -> EventOutcome:
    """Route one event. ``tracker_factory()`` gives a ``Backend`` (tracker + config) or a tracker.

    ``commit_reader`` reads pushed commits where there is no checkout (the App reads them through the API).
    """
    name = (event_name or "").strip()
    if not name:
        raise InvalidInput("no event name: set GITHUB_EVENT_NAME or pass --event-name")
    if isinstance(payload, str | bytes):
        payload = parse_payload(payload)
    if not isinstance(payload, Mapping):
        raise InvalidInput(f"the event payload must be a JSON object, not {type(payload).__name__}")
    event = Event(name, payload)
    if "action" in payload and not isinstance(payload["action"], str):
        raise InvalidInput(f"malformed {name} payload: action should be str, not {type(payload['action']).__name__}")
    if not ROUTER.knows(name):
        return EventOutcome(
            name, event.action, "unknown", f"parkbot: ignoring the {name} event: parkbot does not handle it"
        )
    if event.action is None and None not in ROUTER.routes()[name]:
        raise InvalidInput(f"malformed {name} payload: action is missing")
    if not ROUTER.handlers(name, event.action):
        handled = ", ".join(a for a in ROUTER.routes()[name] if a)
        return EventOutcome(
            name,
            event.action,
            "unknown",
            f"parkbot: ignoring {event.label}: parkbot handles {name} only when {handled}",
        )
    ctx = Context(tracker_factory, repo_path, now=now, commit_reader=commit_reader)
    items: list[Item] = []
    for result in ROUTER.dispatch(name, event.action, event, ctx):
        items.extend(result)
    changes = dashboard_index.merged(item.change for item in items)
    if ctx.opened and ctx.dashboard is None and changes:
        ctx.patch_dashboard(changes)
    status: OutcomeStatus = "handled" if any(i.kind != "ignored" for i in items) else "ignored"
    notice = _notice(event, status, items)
    return EventOutcome(name, event.action, status, notice, items, api_used=ctx.opened, dashboard=ctx.dashboard)


def _notice(event: Event, status: OutcomeStatus, items: list[Item]) -> str:
    if status == "ignored":
        reason = items[0].message if items else "nothing to do"
        return f"parkbot: {event.label}: nothing to do ({reason})"
    counts: dict[str, int] = {}
    for item in items:
        if item.kind == "ignored":
            continue
        key = f"gate {item.gate_state}" if item.kind == "gate" else item.kind
        counts[key] = counts.get(key, 0) + 1
    return f"parkbot: {event.label}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())


__all__ = ["ROUTER", "EventOutcome", "Item", "handle_event", "parse_payload"]
