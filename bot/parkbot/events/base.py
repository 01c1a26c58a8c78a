"""What every event handler shares: the event, its context, and the items a handler reports.

* :class:`Event` wraps the webhook payload and reads it strictly: :meth:`Event.get` names the
  missing or mistyped key (``comment.user.login``) in an :class:`~parkbot.core.errors.InvalidInput`, so a
  malformed payload exits 2 with a message instead of a stack trace.
* :class:`Context` opens the backend only when a handler first asks for it: an event that the
  payload alone shows to be irrelevant costs no API call at all.
* :class:`Item` is one line of what happened (parked, resolved, blocked, refused ...). The CLI turns
  items into text, JSON, step outputs, a job summary and annotations. An item also carries what its
  outcome changed on the decision dashboard (``change``, as the core said it), which is never printed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from parkbot.core.config import Config
from parkbot.core.dashboard_index import Changed
from parkbot.core.errors import InvalidInput, ParkbotError, Reason
from parkbot.core.filing import FiledFiles
from parkbot.core.lifecycle import HandOutcome, ParkAction, ResolveAction
from parkbot.core.tracker import GateResult, Tracker
from parkbot.dashboard_refresh import DashboardOutcome, patch_dashboard, recount_dashboard, supports_dashboard
from parkbot.events.commands import Action as CommandAction
from parkbot.events.commands import CommandReason

ItemKind = Literal[
    "parked",  # a result became (or updated) a decision; ``action`` says created/updated/unchanged
    "resolved",  # an answer was recorded and the resolution finished
    "gate",  # a dependent's gate was evaluated and published; ``gate_state`` says open/blocked/failure
    "refused",  # a lifecycle rule said no, visibly
    "reopened",  # a decision issue closed without an answer was reopened
    "closed",  # a resolved decision that someone reopened was closed again
    "abandoned",  # closed without an answer, and the config says to abandon
    "replied",  # a comment command was answered
    "error",  # something could not be done (bad result file, missing inventory ...)
    "ignored",  # nothing to do, and why
]
Level = Literal["info", "notice", "warning", "error"]
GateStateName = Literal["open", "blocked", "failure"]
#: What a handler did about a decision besides the lifecycle's own words: a result already answered
#: (``parked``), a resolved decision reopened and closed again (``closed``), labels put back (``reopened``),
#: a decision issue that left the repository (``abandoned``).
HandlerAction = Literal["already_resolved", "refused_reopen", "restored", "transferred", "deleted"]
#: An item's ``action``: what the outcome or the command behind it said (a refusal's reason code included).
ItemAction = ParkAction | ResolveAction | CommandAction | CommandReason | Reason | HandlerAction


@dataclass(frozen=True)
class Item:
    """One thing a handler did or decided not to do."""

    kind: ItemKind
    message: str
    decision_id: str | None = None
    number: int | None = None
    url: str | None = None
    target: str | None = None
    gate_state: GateStateName | None = None
    action: ItemAction | None = None
    level: Level = "info"
    exit_code: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    #: What the outcome behind this line changed on the dashboard (never printed: it feeds the patch).
    change: Changed | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        for key in ("decision_id", "number", "url", "target", "gate_state", "action"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.level != "info":
            out["level"] = self.level
        if self.exit_code:
            out["exit_code"] = self.exit_code
        if self.data:
            out["data"] = self.data
        return out


@dataclass(frozen=True)
class DashboardFailed:
    """Refreshing the dashboard failed after the event's own work was done: what the backend said.

    Reported, never raised (the event's items stand); the next event or reconcile tries again.
    """

    message: str
    reason: Reason
    action: Literal["failed"] = "failed"

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.action, "message": self.message, "reason": self.reason}


#: What refreshing the dashboard issue did during an event: written (or found unchanged, or nothing to show
#: yet), or failed; printed by ``parkbot handle-event --json`` as its ``as_dict()``.
DashboardSummary = DashboardOutcome | DashboardFailed


def ignored(message: str) -> list[Item]:
    return [Item("ignored", message)]


def gate_item(result: GateResult, *, message: str | None = None) -> Item:
    """An item for a published gate (``blocked`` while any linked decision is open)."""
    blocking = [d.id for d in result.blocking]
    if message is None:
        message = (
            f"{result.target}: blocked by {', '.join(blocking)}"
            if blocking
            else f"{result.target}: open (no open decision blocks it)"
        )
    number = int(result.target[1:]) if result.target.startswith("#") and result.target[1:].isdigit() else None
    return Item(
        "gate",
        message,
        target=result.target,
        number=number,
        gate_state=result.state,
        decision_id=blocking[0] if blocking else None,
        data={"blocking": blocking, "resolved": [d.id for d in result.resolved], **result.details},
    )


def restored_items(outcome: HandOutcome, decision_id: str, number: int | None, text: str) -> list[Item]:
    """What putting back a decision's removed index did: a warning, and the gates it re-published."""
    item = Item(
        "reopened",
        text,
        decision_id=decision_id,
        number=number,
        level="warning",
        action="restored",
        change=outcome.changed,
    )
    return [item, *(gate_item(g) for g in outcome.gates)]


_MISSING = object()


@dataclass(frozen=True)
class Event:
    """A GitHub Actions event: its name and its JSON payload."""

    name: str
    payload: Mapping[str, Any]

    @property
    def action(self) -> str | None:
        action = self.payload.get("action")
        return action if isinstance(action, str) else None

    @property
    def label(self) -> str:
        return f"{self.name}.{self.action}" if self.action else self.name

    def get(self, path: str, kind: type | tuple[type, ...] | None = None, default: Any = _MISSING) -> Any:
        """The value at a dotted ``path``; a missing key or a wrong type is :class:`InvalidInput`.

        With ``default``, a missing (or null) value returns the default instead; a present value of
        the wrong type is still an error.
        """
        node: Any = self.payload
        walked: list[str] = []
        for part in path.split("."):
            walked.append(part)
            if not isinstance(node, Mapping):
                raise InvalidInput(
                    f"malformed {self.name} payload: {'.'.join(walked[:-1])} is not an object (parkbot needs {path})"
                )
            node = node.get(part, _MISSING)
            if node is _MISSING or node is None:
                if default is not _MISSING:
                    return default
                raise InvalidInput(f"malformed {self.name} payload: {'.'.join(walked)} is missing")
        if kind is not None and (not isinstance(node, kind) or (isinstance(node, bool) and kind is int)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise InvalidInput(f"malformed {self.name} payload: {path} should be {names}, not {type(node).__name__}")
        return node

    def labels(self, path: str) -> list[str]:
        """Label names of the object at ``path`` (``issue``, ``pull_request``), as the payload shows them."""
        raw = self.get(f"{path}.labels", list, default=[])
        names = []
        for label in raw:
            if isinstance(label, Mapping) and isinstance(label.get("name"), str):
                names.append(label["name"])
            elif isinstance(label, str):
                names.append(label)
            else:
                raise InvalidInput(f"malformed {self.name} payload: {path}.labels holds a {type(label).__name__}")
        return names

    def has_label(self, path: str, name: str) -> bool:
        return any(label.casefold() == name.casefold() for label in self.labels(path))


def is_bot(user: Mapping[str, Any] | None) -> bool:
    """A GitHub App or the Actions bot: ``type == "Bot"`` or a login ending in ``[bot]``."""
    if not isinstance(user, Mapping):
        return False
    login = user.get("login")
    return user.get("type") == "Bot" or (isinstance(login, str) and login.casefold().endswith("[bot]"))


class Opened(Protocol):
    """What the tracker factory gives (a :class:`parkbot.backends.Backend`): a tracker and its configuration."""

    @property
    def tracker(self) -> Tracker: ...

    @property
    def config(self) -> Config: ...


TrackerFactory = Callable[[], Opened]


class CommitReader(Protocol):
    """Reads what a commit filed (result files and inventory, as bytes) where there is no checkout.

    The GitHub App (``parkbot serve``) passes the API reader of the GitHub adapter; without one, the
    pushed commit is read from the local checkout through the git adapter.
    """

    def __call__(self, sha: str, *, results_folder: str, inventory_path: str) -> FiledFiles: ...


class Context:
    """What handlers get besides the event: the (lazily opened) backend, the checkout and the clock."""

    def __init__(
        self,
        tracker_factory: TrackerFactory,
        repo_path: str | Path = ".",
        *,
        now: datetime | None = None,
        commit_reader: CommitReader | None = None,
    ) -> None:
        self._factory = tracker_factory
        self.repo_path = Path(repo_path)
        self.now = now
        #: How pushed commits are read when there is no checkout (None: from ``repo_path`` through git).
        self.commit_reader = commit_reader
        self._opened: Opened | None = None
        #: What refreshing the dashboard issue did during this event (None: not refreshed).
        self.dashboard: DashboardSummary | None = None

    @property
    def opened(self) -> bool:
        """Whether a handler has asked for the backend (and so may have made API calls)."""
        return self._opened is not None

    def _open(self) -> Opened:
        if self._opened is None:
            self._opened = self._factory()
        return self._opened

    @property
    def tracker(self) -> Tracker:
        return self._open().tracker

    @property
    def config(self) -> Config:
        return self._open().config

    def recount_dashboard(self) -> DashboardSummary | None:
        """Recount the decision dashboard issue from every decision, once per event (the reconcile).

        None when the backend keeps no dashboard. A failure is reported in the result, not raised:
        the event's own work is done by now, and the next reconcile tries again.
        """
        return self._dashboard(lambda: recount_dashboard(self.tracker, self.config, now=self.now))

    def patch_dashboard(self, changes: Sequence[Changed]) -> DashboardSummary | None:
        """Patch the dashboard with the decisions this event changed (``parkbot.dashboard_refresh``), once per event.

        Costs the same however many decisions the repository holds; failures are reported like
        :meth:`recount_dashboard`'s.
        """
        return self._dashboard(lambda: patch_dashboard(self.tracker, changes, now=self.now))

    def _dashboard(self, refresh: Callable[[], DashboardOutcome | None]) -> DashboardSummary | None:
        if self.dashboard is not None:
            return self.dashboard
        if not supports_dashboard(self.tracker):
            return None
        try:
            outcome = refresh()
        except ParkbotError as exc:
            self.dashboard = DashboardFailed(exc.message, exc.reason)
            return self.dashboard
        self.dashboard = outcome
        return self.dashboard
