"""The GitHub backend: decisions as labeled issues, dependents as pull requests, the gate as a status.

Every GitHub call goes through PyGithub (configured in :mod:`bot.trackers.github_client`) and runs as
a *unit* under the retry policy. The rules live in ``bot.lifecycle``; this adapter only stores.

Where things are
----------------
* A decision is an issue labeled ``decision:<id>`` (:func:`bot.identity.decision_label`),
  ``parkbot:decision`` and, while it blocks, ``parkbot:blocking``. Its body ends with a hidden block
  holding the whole decision (``bot.render``), which is what :meth:`GitHubTracker.find` reads back;
  the visible text is for people. Closed + ``parkbot:resolved`` means resolved (the block then holds
  the answer); closed otherwise means abandoned.
* Lookup is by label, ``state=all`` (listing by label is strongly consistent; search is not). The
  label is created first (:meth:`claim`): GitHub's 422 ``already_exists`` makes it a lock between
  two filers, and a label we just created cannot be on any issue yet, so filing a new decision
  needs no lookup at all.
* A pull request depends on a decision when the decision lists it, its body says ``Blocked by #N``
  / ``Depends on #N``, one of its commits has a ``Blocked-by: <decision-id>`` trailer, or GitHub's
  native issue dependencies say so. Every edge the bot sees is *recorded* three ways, so removing
  one trace (say, the ``Blocked by`` line) does not unblock the PR: in the decision's hidden block
  (``dependents``), as the ``decision:<id>`` label on the PR (which comes free with ``GET pull``),
  and natively (``add_blocked_by``) where the API allows it (404/403/410/422 mean "not here").
* A decision may also name a *branch* (``branch:<name>``) before any pull request exists for it.
  Parking it blocks an open PR from that branch at once (``GET /pulls?head=owner:branch``, one
  request); for a PR opened later, the decision carries the index label ``parkbot:branch:<hash of
  the branch>`` (:func:`branch_label`) while it is unresolved, and the *first* gate of a PR lists the
  label of its head branch (one request, ``state=all`` so that an abandoned decision keeps blocking; a
  resolved one drops the label). The gate records every edge it found as a ``decision:<id>`` label on
  the PR (abandoned decisions too) and, in that same label write, marks the PR ``parkbot:tracked``
  (which later gates see for free in ``GET pull``). Later gates skip the listing: from then on, a
  decision filed for the branch finds the open PR itself when it is parked (``GET /pulls?head=``) and
  labels it. Why this is safe:

  - *A decision parked at the same moment as the PR's first gate.* Parking creates the issue (with its
    branch label) before it lists the branch's open PRs; the gate reads the PR (so it is open) before
    it lists the branch label. Both listings are strongly consistent. If the issue existed when the
    gate listed the label, the gate finds it; if not, the issue was created after the gate's listing,
    hence after the PR was open, so park's PR listing (later still) finds the PR and labels it. Either
    way the edge lands as a label on the PR, which every later gate reads. (That the two status writes
    can land in either order, so a ``success`` may briefly overwrite park's ``pending``, is not new:
    the next gate of the PR, pushes included, sets it right, and the reconcile below does too.)
  - *A first gate that fails part-way* does not mark the PR: the mark goes in the last write, with the
    edges, so the next gate lists the branch again.
  - *A PR closed while a decision was parked for its branch* (park lists open PRs only): the
    ``reopened`` event calls :meth:`GitHubTracker.rescan_branch`, so that gate lists the branch again.
  - *Anything else that slipped* (a park that stopped before labelling the PR): gating a ``branch:``
    target always lists the branch index, and the nightly reconcile gates every open decision's
    ``branch:`` dependents that way, as does reviving an abandoned decision.

  A PR's head branch cannot change, so the mark never goes stale. Forks are never marked.
* The gate is the commit status ``parkbot/decisions`` on the PR head (:meth:`publish_status`, which
  also sets a status on any other exact commit: the merge-queue commit, a pushed agent commit).
* ``parkbot wait`` polls with :meth:`GitHubTracker.poll`: a conditional request (``If-None-Match``
  with the previous ETag), answered ``304`` without using rate limit while the decision is unchanged.
* The decision dashboard is the one open issue labeled ``parkbot:dashboard`` carrying the dashboard
  marker (:meth:`upsert_dashboard`): created and pinned once (pinning is GraphQL-only and best
  effort), edited only when its body changed, duplicates closed.

Request budget (benchmarks/github_requests.py prints the table): park new 3 (claim the label, the
per-origin budget lookup, create; +1 with a run id for the per-run budget), park unchanged 2, park
updated 3, park new with a dependent PR 7 (+ reading, linking, labelling and setting the status of the
PR), gate 4 when its decisions are natively linked (the pull, its commits, its native dependencies,
the status; +1 per decision reached only by label, body or trailer; the first sight of a new edge
also records it), +2 once per PR on its first gate (the branch index, and the ``parkbot:tracked``
mark, which shares the write of any edge the gate records), resolve 5 + 4 per dependent (6 + 4k from
a comment command), one ``wait`` poll 1 (rate limit: 0 while unchanged). Budgets read index labels
(``parkbot:origin:*``, ``parkbot:run:*``, ``parkbot:branch:*``), never a scan. The question log costs
nothing to write for events the decision issue records anyway (parked, escalated, returned,
overridden, resolved); reading all of it (:meth:`GitHubTracker.iter_log`, for the report) is a scan,
while the precedent lookup at filing (``about=``) reads two index labels. Refreshing the dashboard is
a scan too (every decision, 1 request per 100, plus the log issue's comments and the dashboard
lookup; a write only when its body changed).

Resolution (a)-(d) is idempotent: every bot comment carries a hidden marker and is edited, never
posted twice; close is a single PATCH that is skipped when already done. :meth:`clear_blocking`
re-evaluates each dependent from the PR's recorded edges (labels and body; one ``GET pull`` each)
instead of re-reading its commits and native dependencies: the gate records those as labels when it
first sees them, which keeps resolution within 4 requests per dependent.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from github import GithubException
from github.Issue import Issue as GhIssue
from github.PaginatedList import PaginatedList

from bot.errors import BackendFailure, ConcurrentChange, InvalidInput, Refused
from bot.identity import GITHUB_LABEL_MAX, LABEL_PREFIX, check_decision_id, decision_label, id_hash
from bot.lifecycle import PERMISSION_RANK, evaluate_gate
from bot.models import Answer, Decision, LogEntry
from bot.policy import normalize_question
from bot.render import (
    STATUS_CONTEXT,
    ParseError,
    decision_payload,
    gate_description,
    gate_state,
    marker,
    overflow_ref,
    parse_answer_comment,
    parse_decision,
    read_marker,
    render_answer_comment,
    render_decision,
    render_pointer_comment,
    render_reply,
    work_chunk_key,
)
from bot.report.dashboard import is_dashboard
from bot.text import STATUS_DESCRIPTION_LIMIT, escape_markdown, one_line
from bot.tracker import GateResult, Location, PollToken
from bot.trackers.github_client import PER_PAGE, GitHubClient, backend_failure

log = logging.getLogger("parkbot.github")
T = TypeVar("T")

DECISION_LABEL = "parkbot:decision"
BLOCKING_LABEL = "parkbot:blocking"
RESOLVED_LABEL = "parkbot:resolved"
ABANDONED_LABEL = "parkbot:abandoned"
LOG_LABEL = "parkbot:log"
DASHBOARD_LABEL = "parkbot:dashboard"
ORIGIN_PREFIX = "parkbot:origin:"
RUN_PREFIX = "parkbot:run:"
#: Precedent indexes on resolved decisions: same key and options / same normalized question and options.
KEY_PREFIX = "parkbot:pk:"
QUESTION_PREFIX = "parkbot:pq:"
#: Branch index on unresolved decisions: one label per ``branch:<name>`` dependent (see :func:`branch_label`).
BRANCH_PREFIX = "parkbot:branch:"
#: On a pull request whose head branch has been looked up in the branch index (see :meth:`GitHubTracker.rescan_branch`).
TRACKED_LABEL = "parkbot:tracked"
INDEX_PREFIXES = (ORIGIN_PREFIX, RUN_PREFIX, KEY_PREFIX, QUESTION_PREFIX, BRANCH_PREFIX)
STATE_LABELS = frozenset({BLOCKING_LABEL, RESOLVED_LABEL, ABANDONED_LABEL})
#: Question-log events that the decision issue itself records (see :meth:`GitHubTracker.iter_log`).
DERIVED_EVENTS = frozenset({"parked", "escalated", "returned", "overridden", "resolved"})
LABEL_COLOR = "d4c5f9"
#: What a commit status may say (GitHub refuses anything else).
STATUS_STATES = ("pending", "success", "failure", "error")
#: The title of the dashboard issue when the caller names none (``bot.dashboard`` does).
DASHBOARD_TITLE = "parkbot: open decisions"
#: Statuses on the native dependency endpoints that mean "not available here" (plan, GHES version, PRs).
NATIVE_UNAVAILABLE = frozenset({403, 404, 410, 422})

_PR_TARGET = re.compile(r"^#(\d+)$")
_BODY_LINK = re.compile(
    r"(?im)\b(?:blocked[ \t]*-?[ \t]*by|depends[ \t]*-?[ \t]*on)[ \t]*:?[ \t]*"
    r"(?P<refs>(?:(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/issues/\d+)"
    r"(?:[ \t]*(?:,|and|&)[ \t]*(?:(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/issues/\d+))*)"
)
_REF = re.compile(
    r"(?:(?P<repo>[\w.-]+/[\w.-]+)?#(?P<n>\d+))|(?:https?://\S+?/(?P<urlrepo>[\w.-]+/[\w.-]+)/issues/(?P<un>\d+))"
)
_TRAILER = re.compile(r"(?im)^[ \t]*blocked-by[ \t]*:[ \t]*(?P<value>\S+)[ \t]*$")


def _raw(obj: Any) -> dict[str, Any]:
    """The JSON GitHub sent for a PyGithub object, without triggering a lazy completion request.

    ``raw_data`` on an object that came from a list would fetch it again to "complete" it; the
    list response already holds everything parkbot reads.
    """
    data = getattr(obj, "_rawData", None)
    return data if isinstance(data, dict) else obj.raw_data


def _label_names(raw: dict[str, Any]) -> list[str]:
    return [lab["name"] if isinstance(lab, dict) else str(lab) for lab in raw.get("labels") or []]


def _has_label(raw: dict[str, Any], name: str) -> bool:
    return name.casefold() in {n.casefold() for n in _label_names(raw)}


def _login(raw: dict[str, Any] | None) -> str | None:
    return (raw or {}).get("login")


def index_label(prefix: str, value: str) -> str:
    """``<prefix><value>`` when that is a safe label name within 50 characters, else a readable
    prefix of it ending in ``~<hash of value>`` (deterministic, like :func:`decision_label`)."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", value.strip().lower()).strip("-") or "x"
    label = prefix + slug
    if slug == value and len(label) <= GITHUB_LABEL_MAX:
        return label
    keep = GITHUB_LABEL_MAX - len(prefix) - 1 - 10
    return f"{prefix}{slug[:keep].rstrip('._-')}~{id_hash(value)}"


def branch_label(branch: str) -> str:
    """The index label of the decisions that name ``branch:<branch>`` as a dependent.

    A hash, because branch names may be longer than a label or hold characters a label should not
    (and git branch names are case-sensitive while GitHub labels are not).
    """
    return f"{BRANCH_PREFIX}{id_hash(branch)}"


def branch_labels(decision: Decision) -> list[str]:
    """The branch index labels a decision carries while it is not resolved (one per branch dependent)."""
    if decision.state == "resolved":
        return []
    return [branch_label(t.removeprefix("branch:")) for t in decision.dependents if t.startswith("branch:")]


def precedent_labels(decision: Decision) -> list[str]:
    """The two precedent index labels of a decision (what ``bot.policy.find_precedent`` matches on)."""
    options = ",".join(sorted(decision.option_ids()))
    return [
        f"{KEY_PREFIX}{id_hash(decision.key + chr(10) + options)}",
        f"{QUESTION_PREFIX}{id_hash(normalize_question(decision.question) + chr(10) + options)}",
    ]


def _is_team(principal: str) -> bool:
    return principal.startswith("@") and "/" in principal


def assignable_login(owner: str) -> str | None:
    """The login to assign for an owner principal; None for ``@org/team`` and e-mail owners."""
    if _is_team(owner) or "@" in owner.lstrip("@"):
        return None
    login = owner.lstrip("@").strip()
    return login if re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?", login) else None


@dataclass
class _Found:
    """A decision issue as last read: the raw JSON and the PyGithub object (for writes)."""

    raw: dict[str, Any]
    obj: GhIssue | None = None
    #: Pull requests carrying the decision's label (known when it was found by listing that label).
    prs: tuple[int, ...] | None = None

    @property
    def number(self) -> int:
        return int(self.raw["number"])


class GitHubTracker:
    """Decisions stored as GitHub issues (see the module docstring)."""

    backend = "github"

    def __init__(
        self,
        client: GitHubClient,
        *,
        race_wait: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        bot_logins: Iterable[str] = (),
    ) -> None:
        self.client = client
        self._gh = client.github
        self._transport = client.transport
        self._repo = self._gh.get_repo(client.repository)  # lazy: no request
        self.race_wait = race_wait
        self._sleep = sleep
        self._bot_logins = {b.casefold() for b in bot_logins}
        # Short-lived caches, refreshed by every find(): what this run has just read or written.
        self._issues: dict[str, _Found] = {}  # decision id -> issue
        self._primed: dict[str, _Found] = {}  # decision id -> issue read by decision_at, used once by find
        self._comments: dict[int, list[dict[str, Any]]] = {}  # issue number -> comments
        self._pulls: dict[int, dict[str, Any]] = {}  # PR number -> raw pull
        self._claimed: set[str] = set()
        self._members: dict[tuple[str, str], bool] = {}
        self._rescan: set[int] = set()  # PRs whose next gate looks up the branch index even if tracked
        self._context: Decision | None = None
        #: Why the last pin attempt failed (pinning is best effort), None after a success.
        self.pin_notice: str | None = None

    def __repr__(self) -> str:
        return f"GitHubTracker({self.client.repository!r})"

    @property
    def bot_logins(self) -> frozenset[str]:
        """Logins whose comments are the bot's own (besides any Bot account and the issue author)."""
        return frozenset(self._bot_logins)

    # -- plumbing -----------------------------------------------------------------------------

    def _unit(self, what: str, fn: Callable[[int], T]) -> T:
        """Run one retried unit; GitHub errors it does not handle become BackendFailure (exit 4)."""
        try:
            return self._transport.run(what, fn)
        except GithubException as exc:
            raise backend_failure(exc, what, self._transport) from None

    @property
    def _requester(self) -> Any:
        return self._gh.requester

    @property
    def _repo_url(self) -> str:
        return self._repo.url

    @property
    def repository(self) -> str:
        return self.client.repository

    def _list(self, items: PaginatedList[Any]) -> list[dict[str, Any]]:
        return [_raw(item) for item in items]

    def _issue_obj(self, number: int) -> GhIssue:
        return self._repo.get_issue(number)  # lazy: no request

    def _read_or_none(self, what: str, fetch: Callable[[], Any]) -> dict[str, Any] | None:
        """One retried read of ``fetch().raw_data``; None when GitHub answers 404 or 410 (not there, or deleted)."""

        def get(_: int) -> dict[str, Any] | None:
            try:
                return fetch().raw_data
            except GithubException as exc:
                if exc.status in (404, 410):
                    return None
                raise

        return self._unit(what, get)

    def _read_issue(self, number: int) -> dict[str, Any] | None:
        """Issue (or pull request) ``number`` as GitHub sends it, or None when there is none (1 request)."""
        return self._read_or_none(f"read issue #{number}", lambda: self._issue_obj(number))

    def _html(self, path: str) -> str:
        api = self.client.settings.api_url
        web = "https://github.com" if "api.github.com" in api else api.split("/api/")[0]
        return f"{web}/{self.repository}/{path}"

    # -- identity -----------------------------------------------------------------------------

    def default_owner(self) -> str:
        """The repository owner (from ``GITHUB_REPOSITORY``)."""
        return self.client.settings.owner

    def claim(self, decision_id: str) -> bool:
        label = decision_label(decision_id)

        def create(_: int) -> bool:
            try:
                self._repo.create_label(label, LABEL_COLOR, one_line(f"parkbot decision {decision_id}", 100))
            except GithubException as exc:
                if exc.status == 422 and _already_exists(exc):
                    return False
                raise
            return True

        claimed = self._unit(f"create the label {label}", create)
        if claimed:
            self._claimed.add(decision_id)
        else:
            self._claimed.discard(decision_id)
        return claimed

    # -- reading decisions ----------------------------------------------------------------------

    def _list_by_label(self, label: str) -> list[dict[str, Any]]:
        return self._unit(
            f"list issues labeled {label}",
            lambda _: self._list(self._repo.get_issues(state="all", labels=[label], direction="asc")),
        )

    def _comments_of(self, number: int, *, refresh: bool = False) -> list[dict[str, Any]]:
        if refresh or number not in self._comments:
            self._comments[number] = self._unit(
                f"list the comments of #{number}", lambda _: self._list(self._issue_obj(number).get_comments())
            )
        return self._comments[number]

    def _decision_from(self, raw: dict[str, Any]) -> Decision:
        body = raw.get("body") or ""
        overflow: list[str] = []
        if overflow_ref(body) is not None:
            overflow = [c.get("body") or "" for c in self._comments_of(int(raw["number"]))]
        decision = parse_decision(body, overflow)
        closed = raw.get("state") == "closed"
        if not closed:
            return decision.model_copy(update={"state": "open", "answer": None})
        if _has_label(raw, RESOLVED_LABEL) and decision.answer is not None:
            return decision.model_copy(update={"state": "resolved"})
        return decision.model_copy(update={"state": "abandoned"})

    def _pick(self, decision_id: str, items: Iterable[dict[str, Any]]) -> _Found | None:
        """The issue holding ``decision_id`` among issues carrying its label (pull requests skipped)."""
        matches: list[dict[str, Any]] = []
        prs: list[int] = []
        for raw in items:
            if raw.get("pull_request"):
                prs.append(int(raw["number"]))
                continue
            try:
                payload = decision_payload(raw.get("body"))
            except ParseError as exc:
                if _has_label(raw, DECISION_LABEL):
                    raise Refused(
                        f"issue #{raw['number']} is labeled for decision {decision_id} but its hidden block is "
                        f"damaged ({exc}); restore the block or remove the label",
                        reason="collision",
                    ) from None
                continue
            if payload is None:
                continue
            if str(payload.get("id", "")).casefold() != decision_id:
                raise Refused(
                    f"identity collision: the label {decision_label(decision_id)} belongs to decision "
                    f"{payload.get('id')!r} (issue #{raw['number']}), not {decision_id}",
                    reason="collision",
                )
            matches.append(raw)
        if not matches:
            return None
        # Two issues for one id can only come from a filing race; the oldest one is canonical.
        matches.sort(key=lambda r: int(r["number"]))
        if len(matches) > 1:
            log.warning("decision %s has %d issues; using #%s", decision_id, len(matches), matches[0]["number"])
        return _Found(matches[0], prs=tuple(prs))

    def _remember(self, decision_id: str, found: _Found) -> None:
        """Keep ``found`` as the current copy of the decision's issue.

        A newer read or any write supersedes the copy :meth:`decision_at` left for the next
        :meth:`find`, so that copy is dropped here (else ``find`` would return the issue as it was
        before the write).
        """
        self._issues[decision_id] = found
        primed = self._primed.get(decision_id)
        if primed is not None and primed is not found:
            del self._primed[decision_id]

    def find(self, decision_id: str) -> Decision | None:
        did = check_decision_id(decision_id)
        primed = self._primed.pop(did, None)
        if primed is not None:
            found: _Found | None = primed
        else:
            found = self._pick(did, self._list_by_label(decision_label(did)))
        if found is None:
            self._issues.pop(did, None)
            return None
        return self._adopt(did, found)

    def _adopt(self, did: str, found: _Found) -> Decision:
        """The decision in a fresh read of its issue, which becomes the remembered copy and the context."""
        self._comments.pop(found.number, None)  # a fresh read of the issue: re-read its comments too
        self._remember(did, found)
        try:
            decision = self._decision_from(found.raw)
        except ParseError as exc:
            raise Refused(f"issue #{found.number} for {did} is damaged: {exc}", reason="collision") from None
        self._context = decision
        return decision

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        """The decision now, by a conditional request: free of rate limit while nothing changed.

        Lists the issues carrying both the decision's label and ``parkbot:decision`` (the decision
        issue, not the pull requests that carry its label too: one small page), sending
        ``If-None-Match`` with the ETag of ``previous``. GitHub answers ``304 Not Modified`` without
        counting it against the rate limit when the issue did not change (no edit, label, state or
        comment since), and the decision in ``previous`` is returned as is; otherwise the new
        response is read like :meth:`find` reads it. One request per poll either way.
        """
        did = check_decision_id(decision_id)
        if previous is not None and (previous.decision_id != did or previous.decision is None):
            previous = None
        url = f"{self._repo_url}/issues"
        params = {
            "labels": f"{decision_label(did)},{DECISION_LABEL}",
            "state": "all",
            "direction": "asc",
            "per_page": PER_PAGE,
        }

        def get(_: int) -> tuple[int, dict[str, Any], Any]:
            headers = {"If-None-Match": previous.validator} if previous is not None and previous.validator else {}
            status, response_headers, output = self._requester.requestJson(
                "GET", url, parameters=params, headers=headers
            )
            data = json.loads(output) if output else None
            if status >= 400:
                raise self._requester.createException(status, response_headers, data)
            return status, response_headers, data

        status, headers, data = self._unit(f"poll decision {did}", get)
        if status == 304 and previous is not None:
            return previous.decision, previous
        etag = _header_value(headers, "etag")
        if not isinstance(data, list) or 'rel="next"' in (_header_value(headers, "link") or ""):
            # Not the one small page this expects (a hand-applied label?): read it the ordinary way.
            return self.find(did), PollToken(did)
        found = self._pick(did, data)
        if found is None:
            self._issues.pop(did, None)
            return None, PollToken(did)
        decision = self._adopt(did, found)
        return decision, PollToken(did, validator=etag, decision=decision)

    def decision_at(self, number: int) -> Decision | None:
        """The decision stored in issue ``number``, or None if it is not a decision issue (1 request).

        The next :meth:`find` of that decision uses this read instead of listing again.
        """
        raw = self._read_issue(number)
        if raw is None or raw.get("pull_request"):
            return None
        try:
            payload = decision_payload(raw.get("body"))
        except ParseError:
            return None
        if payload is None or not _has_label(raw, DECISION_LABEL):
            return None
        try:
            did = check_decision_id(str(payload.get("id", "")))
        except ValueError:
            return None
        found = _Found(raw)
        self._remember(did, found)
        self._primed[did] = found  # after _remember: this read is the newest one
        try:
            decision = self._decision_from(raw)
        except ParseError:
            return None
        self._context = decision
        return decision

    def _found(self, decision: Decision) -> _Found:
        found = self._issues.get(decision.id)
        if found is None:
            if self.find(decision.id) is None:
                raise BackendFailure(f"decision {decision.id} has no issue on GitHub (was it deleted?)")
            found = self._issues[decision.id]
        return found

    def location(self, decision: Decision) -> Location:
        found = self._found(decision)
        return Location(backend="github", number=found.number, url=found.raw.get("html_url"))

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        api_state = {"open": "open", "resolved": "closed", "abandoned": "closed"}.get(state or "", "all")
        items = self._unit(
            "list decision issues",
            lambda _: self._list(self._repo.get_issues(state=api_state, labels=[DECISION_LABEL], direction="asc")),
        )
        for raw, decision in self._readable(sorted(items, key=lambda r: int(r["number"]))):
            if state is None or decision.state == state:
                self._remember(decision.id, _Found(raw))
                yield decision

    def _readable(self, items: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Decision]]:
        """The issues among ``items`` (not pull requests) with the decision each stores; damaged ones are skipped."""
        for raw in items:
            if raw.get("pull_request"):
                continue
            try:
                decision = self._decision_from(raw)
            except ParseError:
                continue
            yield raw, decision

    # -- writing decisions --------------------------------------------------------------------

    def _labels_for(self, decision: Decision, current: Iterable[str] = ()) -> list[str]:
        state = {s.casefold() for s in STATE_LABELS}
        keep = [n for n in current if n.casefold() not in state and not n.casefold().startswith(INDEX_PREFIXES)]
        wanted = [decision_label(decision.id), DECISION_LABEL, index_label(ORIGIN_PREFIX, decision.origin)]
        if decision.run:
            wanted.append(index_label(RUN_PREFIX, decision.run))
        wanted += branch_labels(decision)
        if decision.state == "open" and decision.blocking:
            wanted.append(BLOCKING_LABEL)
        if decision.state == "resolved":
            wanted.append(RESOLVED_LABEL)
            answer = decision.answer
            if decision.kind == "decision" and answer is not None and answer.kind in ("option", "free_text"):
                wanted += precedent_labels(decision)
        if decision.state == "abandoned":
            wanted.append(ABANDONED_LABEL)
        out = list(keep)
        for name in wanted:
            if name.casefold() not in {n.casefold() for n in out}:
                out.append(name)
        return out

    def create(self, decision: Decision) -> Location:
        label = decision_label(decision.id)
        claimed = decision.id in self._claimed
        self._claimed.discard(decision.id)  # a claim covers one creation
        if not claimed:
            # The label existed but no issue carried it: another filer may be between its label and
            # its issue. Give it a moment, then look again right before creating.
            self._sleep(self.race_wait)
            if self._pick(decision.id, self._list_by_label(label)) is not None:
                raise ConcurrentChange(f"decision {decision.id} was just filed by someone else; re-reading it")
        rendered = render_decision(decision)
        assignee = assignable_login(decision.owner)
        labels = self._labels_for(decision)
        attempts: list[int] = []

        def post(attempt: int) -> dict[str, Any]:
            attempts.append(attempt)
            if attempt > 1:  # the failed attempt may have created it after all
                again = self._pick(decision.id, self._list_by_label(label))
                if again is not None:
                    return again.raw
            kwargs: dict[str, Any] = {"title": rendered.title, "body": rendered.body, "labels": labels}
            if assignee:
                kwargs["assignees"] = [assignee]
            try:
                return _raw(self._repo.create_issue(**kwargs))
            except GithubException as exc:
                if exc.status == 422 and assignee and "assignee" in str(exc.data).lower():
                    kwargs.pop("assignees")  # GitHub refuses assignees without access: file it unassigned
                    log.warning("cannot assign %s on %s; filing the decision unassigned", assignee, self.repository)
                    return _raw(self._repo.create_issue(**kwargs))
                raise

        raw = self._unit(f"create the issue for {decision.id}", post)
        found = _Found(raw, prs=())
        if not claimed or len(attempts) > 1:
            # A filing race (or a retried create) could have made two issues: the oldest wins.
            winner = self._pick(decision.id, self._list_by_label(label))
            if winner is not None and winner.number != found.number:
                self._close_duplicate(found.number, winner)
                raise ConcurrentChange(f"decision {decision.id} was filed twice at once; keeping #{winner.number}")
        self._remember(decision.id, found)
        self._comments[found.number] = []
        if rendered.overflow:
            self._sync_overflow(found.number, rendered.overflow)
        return Location(backend="github", number=found.number, url=raw.get("html_url"))

    def _close_duplicate(self, number: int, winner: _Found) -> None:
        def close(_: int) -> None:
            issue = self._issue_obj(number)
            issue.create_comment(f"{marker('duplicate', str(winner.number))}\nDuplicate of #{winner.number}.")
            issue.edit(state="closed", state_reason="duplicate", labels=[])

        self._unit(f"close duplicate issue #{number}", close)

    def update(self, decision: Decision) -> Location:
        found = self._found(decision)
        raw = found.raw
        rendered = render_decision(decision)
        changes: dict[str, Any] = {}
        if raw.get("title") != rendered.title:
            changes["title"] = rendered.title
        if (raw.get("body") or "") != rendered.body:
            changes["body"] = rendered.body
        assignee = assignable_login(decision.owner)
        current_assignees = sorted(_login(a) or "" for a in raw.get("assignees") or [])
        wanted_assignees = [assignee] if assignee else []
        if [a.casefold() for a in current_assignees] != [a.casefold() for a in wanted_assignees]:
            changes["assignees"] = wanted_assignees
        current_labels = _label_names(raw)
        labels = self._labels_for(decision, current_labels)
        if {n.casefold() for n in labels} != {n.casefold() for n in current_labels}:
            changes["labels"] = labels
        if raw.get("state") != "open" and decision.state == "open":
            changes["state"] = "open"
        if changes:
            new_raw = self._unit(f"update issue #{found.number}", lambda _: self._edit(found.number, changes))
            found = _Found(new_raw, prs=found.prs)
            self._remember(decision.id, found)
        if rendered.overflow:
            self._sync_overflow(found.number, rendered.overflow)
        return Location(backend="github", number=found.number, url=found.raw.get("html_url"))

    def _edit(self, number: int, changes: dict[str, Any]) -> dict[str, Any]:
        """PATCH an issue and return GitHub's answer (``Issue.edit`` keeps the new JSON to itself)."""
        _, data = self._requester.requestJsonAndCheck("PATCH", self._issue_obj(number).url, input=changes)
        return data

    def _sync_overflow(self, number: int, bodies: tuple[str, ...]) -> None:
        """Make the overflow comments of an issue exactly ``bodies`` (matched by their marker keys)."""
        wanted = {work_chunk_key(b): b for b in bodies}
        existing: dict[str | None, dict[str, Any]] = {}
        for comment in self._comments_of(number, refresh=True):
            key = work_chunk_key(comment.get("body"))
            if key is not None and self._trusted(comment, None):
                existing[key] = comment
        for key, body in wanted.items():
            if key not in existing:
                self._post_comment(number, body)
        for key, comment in existing.items():
            if key not in wanted:  # the work of an earlier filing
                self._delete_comment(number, int(comment["id"]))

    def _delete_comment(self, number: int, comment_id: int) -> None:
        def delete(_: int) -> None:
            try:
                self._issue_obj(number).get_comment(comment_id).delete()
            except GithubException as exc:
                if exc.status != 404:  # 404: already gone (a retried delete)
                    raise

        self._unit(f"delete an outdated comment on #{number}", delete)

    # -- comments with markers ----------------------------------------------------------------

    def _trusted(self, comment: dict[str, Any], issue_author: str | None) -> bool:
        """Only the bot's own comments count (a marker typed by anyone else is ignored)."""
        user = comment.get("user") or {}
        login = (user.get("login") or "").casefold()
        if user.get("type") == "Bot" or login in self._bot_logins:
            return True
        return bool(issue_author) and login == (issue_author or "").casefold()

    def _post_comment(self, number: int, body: str) -> dict[str, Any]:
        raw = self._unit(f"comment on #{number}", lambda _: _raw(self._issue_obj(number).create_comment(body)))
        self._comments.setdefault(number, []).append(raw)
        return raw

    def _upsert_comment(
        self, number: int, kind: str, key: str, body: str, *, author: str | None = None, refresh: bool = True
    ) -> dict[str, Any]:
        """One bot comment per (kind, key) on an issue: edited when it differs, never posted twice."""

        def unit(attempt: int) -> dict[str, Any]:
            comments = self._comments_of(number, refresh=refresh or attempt > 1)
            for comment in comments:
                found = read_marker(comment.get("body"))
                if found and found.kind == kind and found.key == key and self._trusted(comment, author):
                    if comment.get("body") == body:
                        return comment
                    self._issue_obj(number).get_comment(int(comment["id"])).edit(body)  # lazy: one PATCH
                    comment["body"] = body
                    return comment
            raw = _raw(self._issue_obj(number).create_comment(body))
            self._comments.setdefault(number, []).append(raw)
            return raw

        return self._unit(f"write the {kind} comment on #{number}", unit)

    def reply(self, issue_number: int, key: str, text: str) -> dict[str, Any]:
        """Reply to a command comment (``key`` = its id): one reply per command, edited on re-runs."""
        found = next((f for f in self._issues.values() if f.number == issue_number), None)
        author = _login(found.raw.get("user")) if found else None
        return self._upsert_comment(issue_number, "reply", key, render_reply(key, text), author=author)

    def comment_url(self, issue_number: int, comment_id: int | str) -> str:
        found = next((f for f in self._issues.values() if f.number == issue_number), None)
        base = (found.raw.get("html_url") if found else None) or self._html(f"issues/{issue_number}")
        return f"{base}#issuecomment-{comment_id}"

    # -- resolution ---------------------------------------------------------------------------

    def _answer_comment(self, decision: Decision) -> tuple[dict[str, Any], Answer] | None:
        found = self._found(decision)
        author = _login(found.raw.get("user"))
        for comment in self._comments_of(found.number):
            answer = parse_answer_comment(comment.get("body"), decision.id)
            if answer is not None and self._trusted(comment, author):
                return comment, answer
        return None

    def recorded_answer(self, decision: Decision) -> Answer | None:
        if decision.answer is not None and decision.state == "resolved":
            return decision.answer
        hit = self._answer_comment(decision)
        return hit[1] if hit else None

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        hit = self._answer_comment(decision)
        if hit is not None:
            return  # (a) already done; the lifecycle refuses a different answer before we get here
        self._upsert_comment(
            found.number,
            "answer",
            decision.id,
            render_answer_comment(decision, answer),
            author=_login(found.raw.get("user")),
            refresh=False,
        )

    def _pr_numbers(self, decision: Decision) -> list[int]:
        """Every dependent PR: those the decision records, and those carrying its label.

        The label side covers an edge whose write to the decision's body was lost to a concurrent
        edit; it comes free with ``find`` (one listing when the decision was read another way).
        """
        numbers: list[int] = []
        for target in decision.dependents:
            numbers.extend(self._target_prs(target))
        found = self._found(decision)
        if found.prs is None:
            label = decision_label(decision.id)
            found.prs = tuple(int(r["number"]) for r in self._list_by_label(label) if r.get("pull_request"))
        numbers.extend(found.prs)
        return list(dict.fromkeys(numbers))

    def _target_prs(self, target: str) -> list[int]:
        match = _PR_TARGET.match(target)
        if match:
            return [int(match.group(1))]
        if target.startswith("branch:"):
            branch = target.removeprefix("branch:")
            head = f"{self.client.settings.owner}:{branch}"
            pulls = self._unit(
                f"find the pull request of {branch}",
                lambda _: self._list(self._repo.get_pulls(state="open", head=head)),
            )
            for pull in pulls:
                self._pulls[int(pull["number"])] = pull
            return [int(p["number"]) for p in pulls]
        return []

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        hit = self._answer_comment(decision)
        url = hit[0].get("html_url") if hit else found.raw.get("html_url")
        body = render_pointer_comment(decision, answer, issue_number=found.number, url=url)
        for number in self._pr_numbers(decision):
            self._upsert_comment(number, "pointer", decision.id, body)
            self._comments.pop(number, None)  # PR comments are re-read by every run

    def clear_blocking(self, decision: Decision) -> list[GateResult]:
        found = self._found(decision)
        resolved_self = decision.model_copy(update={"state": "resolved"})
        results: list[GateResult] = []
        for number in self._pr_numbers(decision):
            pull = self._get_pull(number, fresh=True)
            if pull is None:
                continue
            others = self._recorded_links(pull, exclude=decision.id, exclude_number=found.number)
            result = evaluate_gate(f"#{number}", [resolved_self, *others])
            self._publish(number, result)
            results.append(result)
        if _has_label(found.raw, BLOCKING_LABEL):

            def unblock(_: int) -> None:
                try:
                    self._issue_obj(found.number).remove_from_labels(BLOCKING_LABEL)
                except GithubException as exc:
                    if exc.status != 404:  # 404: already gone
                        raise

            self._unit(f"remove {BLOCKING_LABEL} from #{found.number}", unblock)
            found.raw["labels"] = [
                lab for lab in found.raw.get("labels") or [] if _label_name(lab).casefold() != BLOCKING_LABEL
            ]
        return results

    def close(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
        self._finish(found, resolved, "completed")

    def mark_abandoned(self, decision: Decision, reason: str) -> None:
        found = self._found(decision)
        self._upsert_comment(
            found.number,
            "abandoned",
            decision.id,
            f"{marker('abandoned', decision.id)}\nClosed without an answer: {escape_markdown(reason)}\n"
            "Dependents stay blocked; re-file the question to ask again.\n",
            author=_login(found.raw.get("user")),
        )
        abandoned = decision.model_copy(update={"state": "abandoned"})
        self._finish(found, abandoned, "not_planned")

    def _finish(self, found: _Found, decision: Decision, reason: str) -> None:
        raw = found.raw
        rendered = render_decision(decision)
        labels = self._labels_for(decision, _label_names(raw))
        done = (
            raw.get("state") == "closed"
            and (raw.get("body") or "") == rendered.body
            and {n.casefold() for n in labels} == {n.casefold() for n in _label_names(raw)}
        )
        if done:
            return
        changes: dict[str, Any] = {"body": rendered.body, "labels": labels}
        if raw.get("state") != "closed":
            changes.update(state="closed", state_reason=reason)
        new_raw = self._unit(f"close issue #{found.number}", lambda _: self._edit(found.number, changes))
        self._remember(decision.id, _Found(new_raw, prs=found.prs))

    # -- dependents and the gate --------------------------------------------------------------

    def _get_pull(self, number: int, *, fresh: bool = False) -> dict[str, Any] | None:
        if not fresh and number in self._pulls:
            return self._pulls[number]
        pull = self._read_or_none(f"read pull request #{number}", lambda: self._repo.get_pull(number))
        if pull is not None:
            self._pulls[number] = pull
        return pull

    def block_dependents(self, decision: Decision) -> list[GateResult]:
        found = self._found(decision)
        results: list[GateResult] = []
        for target in decision.dependents:
            numbers = self._target_prs(target)
            if not numbers:
                results.append(GateResult(target, blocking=(decision,), details={"note": "no open pull request"}))
                continue
            listed = target.startswith("branch:")  # the listing that found them was just read
            for number in numbers:
                pull = self._get_pull(number, fresh=not listed)
                if pull is None:
                    results.append(GateResult(target, blocking=(decision,), details={"note": "not a pull request"}))
                    continue
                if not _has_label(pull, decision_label(decision.id)):
                    self._link_natively(number, found)
                    self._add_pr_labels(number, pull, [decision_label(decision.id)])
                result = GateResult(f"#{number}", blocking=(decision,))
                self._publish(number, result)
                results.append(result)
        return results

    def _link_natively(self, number: int, found: _Found) -> bool:
        """Record "PR #number is blocked by this decision issue" natively; False where unavailable."""
        blocker = self._issue_object(found)

        def add(_: int) -> bool:
            try:
                self._issue_obj(number).add_blocked_by(blocker)
            except GithubException as exc:
                if exc.status == 422 and _already_exists(exc):
                    return True
                if exc.status in NATIVE_UNAVAILABLE:
                    log.info("native issue dependencies are not available here (%s); carrying on", exc.status)
                    return False
                raise
            return True

        return self._unit(f"link #{number} to #{found.number} natively", add)

    def _issue_object(self, found: _Found) -> GhIssue:
        if found.obj is None:
            found.obj = GhIssue(self._requester, {}, dict(found.raw), completed=True)
        return found.obj

    def _add_pr_labels(self, number: int, pull: dict[str, Any], labels: list[str]) -> None:
        missing = [lab for lab in labels if not _has_label(pull, lab)]
        if not missing:
            return
        self._unit(f"label pull request #{number}", lambda _: self._issue_obj(number).add_to_labels(*missing))
        pull.setdefault("labels", []).extend({"name": name} for name in missing)

    def _publish(self, number: int, result: GateResult) -> None:
        pull = self._pulls.get(number) or self._get_pull(number)
        if pull is None:
            return
        url = self._decision_url(result.blocking[0]) if result.blocking else None
        self.publish_status(pull["head"]["sha"], gate_state(result), gate_description(result), target_url=url)

    def publish_status(
        self,
        sha: str,
        state: str,
        description: str,
        target_url: str | None = None,
        *,
        context: str = STATUS_CONTEXT,
    ) -> None:
        """Set the commit status ``context`` (default ``parkbot/decisions``) on commit ``sha`` (1 request).

        For commits that are not a pull request's head too (the merge-queue commit, a pushed commit
        with no inventory). ``state`` is ``pending``, ``success``, ``failure`` or ``error``; the
        description is put on one line and cut to GitHub's 140 characters. Runs as one retried unit,
        like every other request of this tracker.
        """
        if state not in STATUS_STATES:
            raise InvalidInput(f"a commit status is one of {', '.join(STATUS_STATES)}, not {state!r}")
        if not re.fullmatch(r"[0-9a-fA-F]{7,64}", sha or ""):
            raise InvalidInput(f"{sha!r} is not a commit sha")
        data: dict[str, Any] = {
            "state": state,
            "context": context,
            "description": one_line(description, STATUS_DESCRIPTION_LIMIT),
        }
        if target_url:
            data["target_url"] = target_url
        self._unit(
            f"set the {context} status of {sha[:12]}",
            lambda _: self._requester.requestJsonAndCheck("POST", f"{self._repo_url}/statuses/{sha}", input=data),
        )

    def _decision_url(self, decision: Decision) -> str | None:
        found = self._issues.get(decision.id)
        return found.raw.get("html_url") if found else None

    def publish_gate(self, result: GateResult) -> None:
        for number in self._target_prs(result.target):
            self._publish(number, result)

    def _refs(self, text: str | None) -> list[int]:
        """Issue numbers named in ``Blocked by`` / ``Depends on`` lines of this repository."""
        numbers: list[int] = []
        for match in _BODY_LINK.finditer(text or ""):
            for ref in _REF.finditer(match.group("refs")):
                repo = ref.group("repo") or ref.group("urlrepo")
                if repo and repo.casefold() != self.repository.casefold():
                    continue
                numbers.append(int(ref.group("n") or ref.group("un")))
        return list(dict.fromkeys(numbers))

    def _lookup_label(self, label: str, *, decision_id: str | None = None) -> tuple[Decision, _Found] | None:
        items = self._list_by_label(label)
        prs = tuple(int(r["number"]) for r in items if r.get("pull_request"))
        for raw in items:
            if raw.get("pull_request"):
                continue
            try:
                payload = decision_payload(raw.get("body"))
            except ParseError:
                continue
            if not payload:
                continue
            did = str(payload.get("id", ""))
            if decision_label(did).casefold() != label.casefold():
                continue
            if decision_id is not None and did != decision_id:
                continue
            try:
                decision = self._decision_from(raw)
            except ParseError:
                continue
            found = _Found(raw, prs=prs)
            self._remember(decision.id, found)
            return decision, found
        return None

    def _lookup_number(self, number: int) -> tuple[Decision, _Found] | None:
        return self._as_decision(self._read_issue(number))

    def _as_decision(self, raw: dict[str, Any] | None) -> tuple[Decision, _Found] | None:
        if not raw or raw.get("pull_request") or not _has_label(raw, DECISION_LABEL):
            return None
        try:
            decision = self._decision_from(raw)
        except ParseError:
            return None
        found = _Found(raw)
        self._remember(decision.id, found)
        return decision, found

    def _recorded_links(
        self, pull: dict[str, Any], *, exclude: str | None = None, exclude_number: int | None = None
    ) -> list[Decision]:
        """Decisions a PR links through its labels and body (no commit or native lookups)."""
        out: dict[str, Decision] = {}
        for number in self._refs(pull.get("body")):
            if number == exclude_number or number == int(pull["number"]):
                continue
            hit = self._lookup_number(number)
            if hit and hit[0].id != exclude:
                out[hit[0].id] = hit[0]
        known = {decision_label(d).casefold() for d in out} | (
            {decision_label(exclude).casefold()} if exclude else set()
        )
        for label in _label_names(pull):
            if label.casefold().startswith(LABEL_PREFIX) and label.casefold() not in known:
                hit = self._lookup_label(label)
                if hit and hit[0].id != exclude:
                    out[hit[0].id] = hit[0]
                    known.add(label.casefold())
        return list(out.values())

    def linked_decisions(self, target: str) -> list[Decision]:
        numbers = self._target_prs(target)
        # Gating a branch asks for the decisions of that branch: always look it up in the branch index
        # (this is what the nightly reconcile and a revived decision rely on, tracked PR or not).
        by_branch = target.startswith("branch:")
        linked: dict[str, Decision] = {}
        for number in numbers:
            for decision in self._linked_for_pull(number, branch_lookup=by_branch):
                linked.setdefault(decision.id, decision)
        return list(linked.values())

    def rescan_branch(self, number: int) -> None:
        """Make the next gate of pull request ``number`` look up the branch index even if it is tracked.

        For a reopened pull request (the ``pull_request`` ``reopened`` event): a decision parked for
        its branch while it was closed did not find it (parking lists open pull requests only). No request.
        """
        self._rescan.add(number)

    def _linked_for_pull(self, number: int, *, branch_lookup: bool = False) -> list[Decision]:
        pull = self._get_pull(number, fresh=True)
        if pull is None:
            raise InvalidInput(f"#{number} is not a pull request in {self.repository}")
        commits = self._unit(
            f"list the commits of #{number}", lambda _: self._list(self._repo.get_pull(number).get_commits())
        )
        native_raw, native_ok = self._native_blockers(number)

        found: dict[str, tuple[Decision, _Found]] = {}
        for raw in native_raw:
            hit = self._as_decision(raw)
            if hit:
                found[hit[0].id] = hit
        # The branch index only on a PR's first gate (then the PR is marked tracked; see the module docstring).
        own_branch = self._head_branch(pull) is not None
        tracked = _has_label(pull, TRACKED_LABEL)
        if own_branch and (not tracked or branch_lookup or number in self._rescan):
            for hit in self._branch_dependents_of(pull):
                found.setdefault(hit[0].id, hit)
        mark = own_branch and not tracked
        numbers_known = {f.number for _, f in found.values()}
        for ref in self._refs(pull.get("body")):
            if ref in numbers_known or ref == number:
                continue
            hit = self._lookup_number(ref)
            if hit:
                found.setdefault(hit[0].id, hit)
                numbers_known.add(hit[1].number)
        trailer_ids: list[str] = []
        for commit in commits:
            message = (commit.get("commit") or {}).get("message") or ""
            for match in _TRAILER.finditer(message):
                value = match.group("value")
                if value.startswith("#") and value[1:].isdigit():
                    ref = int(value[1:])
                    if ref not in numbers_known and ref != number:
                        hit = self._lookup_number(ref)
                        if hit:
                            found.setdefault(hit[0].id, hit)
                            numbers_known.add(hit[1].number)
                    continue
                try:
                    trailer_ids.append(check_decision_id(value))
                except ValueError:
                    log.info("ignoring Blocked-by trailer %r in #%s: not a decision id", value, number)
        labels_known = {decision_label(did).casefold() for did in found}
        for did in dict.fromkeys(trailer_ids):
            if did in found:
                continue
            hit = self._lookup_label(decision_label(did), decision_id=did)
            if hit:
                found[did] = hit
                labels_known.add(decision_label(did).casefold())
        for label in _label_names(pull):
            if label.casefold().startswith(LABEL_PREFIX) and label.casefold() not in labels_known:
                hit = self._lookup_label(label)
                if hit:
                    found.setdefault(hit[0].id, hit)
                    labels_known.add(label.casefold())

        self._record_edges(number, pull, found, native_raw if native_ok else None, mark_tracked=mark)
        self._rescan.discard(number)
        return [decision for decision, _ in found.values()]

    def _head_branch(self, pull: dict[str, Any]) -> str | None:
        """The PR's head branch when it is a branch of this repository (None for forks and deleted forks)."""
        head = pull.get("head") or {}
        ref = head.get("ref")
        head_repo = (head.get("repo") or {}).get("full_name")
        if not ref or not head_repo or head_repo.casefold() != self.repository.casefold():
            return None
        return str(ref)

    def _branch_dependents_of(self, pull: dict[str, Any]) -> list[tuple[Decision, _Found]]:
        """Unresolved decisions that name the PR's head branch (``branch:<head ref>``) as a dependent.

        One request, through the branch index label (:func:`branch_label`), however many decisions
        the repository holds. This is how a decision filed for a branch before its pull request was
        opened reaches that pull request; the gate then records the edge like any other. Pull
        requests from forks are skipped: ``branch:<name>`` names a branch of this repository.
        """
        ref = self._head_branch(pull)
        if ref is None:
            return []
        label = branch_label(ref)
        # state=all: an abandoned decision keeps blocking (it keeps the label); resolved ones drop it.
        items = self._unit(
            f"list the decisions of branch {ref}",
            lambda _: self._list(self._repo.get_issues(state="all", labels=[label])),
        )
        target = f"branch:{ref}"
        hits: list[tuple[Decision, _Found]] = []
        for raw in items:
            hit = self._as_decision(raw)
            if hit is not None and target in hit[0].dependents:  # the hash could collide: check the name
                hits.append(hit)
        return hits

    def _native_blockers(self, number: int) -> tuple[list[dict[str, Any]], bool]:
        def get(_: int) -> tuple[list[dict[str, Any]], bool]:
            try:
                return self._list(self._issue_obj(number).get_blocked_by()), True
            except GithubException as exc:
                if exc.status in NATIVE_UNAVAILABLE:
                    return [], False
                raise

        return self._unit(f"list the native dependencies of #{number}", get)

    def _record_edges(
        self,
        number: int,
        pull: dict[str, Any],
        found: dict[str, tuple[Decision, _Found]],
        native: list[dict[str, Any]] | None,
        *,
        mark_tracked: bool = False,
    ) -> None:
        """Remember every edge seen, on both sides, so deleting one trace does not unblock the PR.

        ``mark_tracked`` adds ``parkbot:tracked`` to the PR in the same label write as the edges, and
        only after everything else succeeded: a gate that fails part-way leaves the PR untracked, so
        the next gate looks up the branch index again.
        """
        target = f"#{number}"
        native_ids = {int(raw["id"]) for raw in native or []}
        missing_labels: list[str] = []
        for decision, where in found.values():
            if decision.state == "resolved":
                continue
            if not _has_label(pull, decision_label(decision.id)):
                # Abandoned decisions too: they keep blocking, and a tracked PR finds them by this label.
                missing_labels.append(decision_label(decision.id))
            if decision.state != "open":
                continue
            if native is not None and int(where.raw["id"]) not in native_ids:
                self._link_natively(number, where)
            if target not in decision.dependents:
                updated = decision.model_copy(update={"dependents": [*decision.dependents, target]})
                self.update(updated)
        if mark_tracked:
            missing_labels.append(TRACKED_LABEL)
        if missing_labels:
            self._add_pr_labels(number, pull, missing_labels)

    # -- budgets and the question log ----------------------------------------------------------

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin or run, through their index labels (1 request each, no scan)."""
        out: dict[str, Decision] = {}
        checks: list[tuple[str, Callable[[Decision], bool]]] = [
            (index_label(ORIGIN_PREFIX, origin), lambda d: d.origin == origin)
        ]
        if run:
            checks.append((index_label(RUN_PREFIX, run), lambda d: d.run == run))
        for label, matches in checks:
            items = self._unit(
                f"list open issues labeled {label}",
                lambda _, label=label: self._list(self._repo.get_issues(state="open", labels=[label])),
            )
            for _, decision in self._readable(items):
                if decision.state == "open" and matches(decision):
                    out.setdefault(decision.id, decision)
        return list(out.values())

    def append_log(self, entry: LogEntry) -> None:
        """Log one event. Events the decision issue records anyway cost nothing; others (refusals,
        abandonments) become a comment on the ``parkbot:log`` issue."""
        if entry.event in DERIVED_EVENTS and entry.decision:
            return
        number = self._log_issue(create=True)
        assert number is not None
        data = entry.model_dump(mode="json", exclude_none=True)
        text = escape_markdown(
            f"{entry.event}: {entry.decision or entry.origin}" + (f" ({entry.reason})" if entry.reason else "")
        )
        self._post_comment(number, f"{marker('log', entry.event, data)}\n{text}\n")

    def _log_issue(self, *, create: bool) -> int | None:
        items = [r for r in self._list_by_label(LOG_LABEL) if not r.get("pull_request")]
        if items:
            return min(int(r["number"]) for r in items)
        if not create:
            return None
        body = (
            "parkbot keeps question-log events that no decision issue records (budget refusals, "
            "abandonments) as comments here. Please do not edit them.\n"
        )
        raw = self._unit(
            "create the question log issue",
            lambda _: _raw(self._repo.create_issue(title="parkbot question log", body=body, labels=[LOG_LABEL])),
        )
        self._comments[int(raw["number"])] = []
        return int(raw["number"])

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every logged event, oldest first.

        Most events are read back from the decision issues themselves (parked, escalated,
        returned, overridden, resolved: all in the hidden block), so logging them costs no request;
        the rest come from the comments of the ``parkbot:log`` issue. This reads every decision
        issue (one request per 100): it is a scan by nature.

        ``about`` (proposed for the protocol): only the entries that could be precedents for that
        decision, through the precedent index labels: two requests, however long the history.
        """
        if about is not None:
            return iter(self._precedent_candidates(about))
        keyed: list[tuple[Any, int, LogEntry]] = []
        seq = 0
        for decision in self.iter_decisions():
            url = self._decision_url(decision)
            for entry in derived_log(decision, url):
                keyed.append((decision.created_at, seq, entry))
                seq += 1
        for entry in self.iter_logged_events():
            keyed.append((entry.at, seq, entry))
            seq += 1
        keyed.sort(key=lambda item: (item[0], item[1]))
        return iter([entry for _, _, entry in keyed])

    def iter_logged_events(self) -> Iterator[LogEntry]:
        """Only the events no decision issue records (refusals, abandonments): the comments of the
        ``parkbot:log`` issue, oldest first. One request plus one per 100 comments; no decision scan."""
        numbers = [int(r["number"]) for r in self._list_by_label(LOG_LABEL) if not r.get("pull_request")]
        entries: list[LogEntry] = []
        for number in sorted(numbers):
            for comment in self._comments_of(number, refresh=True):
                found = read_marker(comment.get("body"))
                if found is None or found.kind != "log" or not self._trusted(comment, None):
                    continue
                try:
                    entries.append(LogEntry.model_validate(found.data))
                except ValueError:
                    continue
        return iter(entries)

    def _precedent_candidates(self, about: Decision) -> list[LogEntry]:
        entries: dict[str, LogEntry] = {}
        for label in precedent_labels(about):
            items = self._unit(
                f"list closed issues labeled {label}",
                lambda _, label=label: self._list(self._repo.get_issues(state="closed", labels=[label])),
            )
            for raw in items:
                hit = self._as_decision(raw)
                if hit is None or hit[0].state != "resolved":
                    continue
                for entry in derived_log(hit[0], raw.get("html_url")):
                    if entry.event == "resolved":
                        entries.setdefault(hit[0].id, entry)
        return sorted(entries.values(), key=lambda e: e.at)

    # -- the decision dashboard ---------------------------------------------------------------

    def issue_url(self, number: int) -> str:
        """The web address of issue ``number`` of this repository."""
        return self._html(f"issues/{number}")

    def upsert_dashboard(self, body: str, *, title: str = DASHBOARD_TITLE, create: bool = True) -> tuple[int, str]:
        """Make the one dashboard issue hold ``body``: ``(number, action)``, the action being
        ``created``, ``updated`` or ``unchanged`` (or ``(0, "absent")`` when none exists and
        ``create`` is False).

        The dashboard is the open issue labeled ``parkbot:dashboard`` whose body carries the
        dashboard marker (an issue someone else labeled is left alone). It is found by listing that
        label (1 request), edited only when its body differs (no write when unchanged), created and
        pinned once when there is none. Should two exist (two runs creating at once), the oldest is
        kept and the others are closed as duplicates; a creation checks for that race right away.
        """
        self.pin_notice = None
        listed = self._dashboards()
        if not listed:
            if not create:
                return 0, "absent"
            raw = self._unit(
                "create the decision dashboard issue",
                lambda _: _raw(self._repo.create_issue(title=title, body=body, labels=[DASHBOARD_LABEL])),
            )
            number = int(raw["number"])
            others = [r for r in self._dashboards() if int(r["number"]) != number]
            if others and min(int(r["number"]) for r in others) < number:
                # Another run created one at the same moment: the oldest wins, ours is the duplicate.
                listed = sorted([*others, raw], key=lambda r: int(r["number"]))
            else:
                self._close_dashboard_duplicates(number, others)
                self.pin_issue(number, raw.get("node_id"))
                return number, "created"
        keep, *duplicates = listed
        number = int(keep["number"])
        if duplicates:
            self._close_dashboard_duplicates(number, duplicates)
            self.pin_issue(number, keep.get("node_id"))
        if (keep.get("body") or "") == body:
            return number, "unchanged"
        changes: dict[str, Any] = {"body": body}
        if keep.get("title") != title:
            changes["title"] = title
        self._unit("update the decision dashboard issue", lambda _: self._edit(number, changes))
        return number, "updated"

    def _dashboards(self) -> list[dict[str, Any]]:
        """Open dashboard issues (labeled and carrying the marker), oldest first."""
        items = self._unit(
            f"list open issues labeled {DASHBOARD_LABEL}",
            lambda _: self._list(self._repo.get_issues(state="open", labels=[DASHBOARD_LABEL], direction="asc")),
        )
        found = []
        for raw in items:
            if raw.get("pull_request"):
                continue
            if not is_dashboard(raw.get("body")):
                log.info("#%s is labeled %s but holds no dashboard: leaving it alone", raw["number"], DASHBOARD_LABEL)
                continue
            found.append(raw)
        return sorted(found, key=lambda r: int(r["number"]))

    def _close_dashboard_duplicates(self, keep: int, duplicates: Iterable[dict[str, Any]]) -> None:
        winner = _Found({"number": keep})
        for raw in duplicates:
            if int(raw["number"]) != keep:
                log.warning("closing the duplicate dashboard #%s (keeping #%s)", raw["number"], keep)
                self._close_duplicate(int(raw["number"]), winner)

    def pin_issue(self, number: int, node_id: str | None = None) -> bool:
        """Pin issue ``number`` to the repository, best effort: False (and a notice) if it fails.

        GitHub pins issues only through GraphQL (the ``pinIssue`` mutation, by the issue's node id),
        sent to the GraphQL endpoint that belongs to the REST root: ``https://api.github.com/graphql``,
        or ``https://<host>/api/graphql`` on GitHub Enterprise Server. A repository pins at most
        three issues, and the token may lack the permission; neither stops anything else.
        """
        try:
            if node_id is None:
                node_id = self._unit(f"read issue #{number}", lambda _: self._issue_obj(number).raw_data)["node_id"]
            self._unit(
                f"pin issue #{number}",
                lambda _: self._requester.graphql_named_mutation("pinIssue", {"issueId": node_id}, "issue { number }"),
            )
        except (GithubException, BackendFailure, KeyError, TypeError) as exc:
            message = exc.message if isinstance(exc, BackendFailure) else str(exc)
            self.pin_notice = self._transport.redact(f"could not pin #{number} (pin it by hand): {message}")
            log.warning("%s", self.pin_notice)
            return False
        self.pin_notice = None
        return True

    # -- who may answer -----------------------------------------------------------------------

    def is_member(self, login: str, principal: str) -> bool:
        if not _is_team(principal):
            return login.casefold() == principal.lstrip("@").casefold()
        org, _, slug = principal[1:].partition("/")
        key = (login.casefold(), principal.casefold())
        if key not in self._members:

            def check(_: int) -> bool:
                team = self._gh.get_organization(org).get_team_by_slug(slug)  # lazy: no request
                try:
                    membership = team.get_team_membership(login)
                except GithubException as exc:
                    if exc.status == 404:  # not a member (or a team we cannot see)
                        return False
                    raise
                return _raw(membership).get("state") == "active"

            self._members[key] = self._unit(f"check {login} in {principal}", check)
        return self._members[key]

    def permission_of(self, login: str, decision: Decision | None = None) -> str | None:
        """The repository role of ``login``; None for bots and authors of the decision's dependent PRs.

        ``decision`` defaults to the decision this tracker read last (``lifecycle.authorize`` calls
        this right after loading it).
        """
        if login.casefold().endswith("[bot]"):
            return None
        context = decision or self._context
        if context is not None:
            for number in self._pr_numbers(context):
                pull = self._get_pull(number)
                if pull and (_login(pull.get("user")) or "").casefold() == login.casefold():
                    return None

        def get(_: int) -> dict[str, Any] | None:
            try:
                _, data = self._requester.requestJsonAndCheck(
                    "GET", f"{self._repo_url}/collaborators/{login}/permission"
                )
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            return data

        data = self._unit(f"read the permission of {login}", get)
        if not data:
            return None
        if (data.get("user") or {}).get("type") == "Bot":
            return None
        role = data.get("role_name")
        if role in PERMISSION_RANK:
            return role
        permission = data.get("permission")
        return permission if permission in PERMISSION_RANK else None

    # -- configuration ------------------------------------------------------------------------

    def read_config_text(self, path: str) -> str | None:
        """A file from the default branch (the config), or None when it does not exist."""

        def get(_: int) -> str | None:
            try:
                content = self._repo.get_contents(path)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            if isinstance(content, list):
                return None
            return content.decoded_content.decode("utf-8")

        return self._unit(f"read {path}", get)


def derived_log(decision: Decision, url: str | None = None) -> list[LogEntry]:
    """The question-log events a decision issue records by itself, in the order they happened."""
    out = [LogEntry.for_decision("parked", decision, decision.created_at)]
    moves: list[tuple[Any, LogEntry]] = []
    for hop in decision.escalations:
        event = "escalated" if hop.kind == "escalate" else "returned"
        entry = LogEntry.for_decision(event, decision, hop.at, by=hop.by, reason=f"{hop.from_owner} -> {hop.to_owner}")
        moves.append((hop.at, entry))
    for override in decision.overrides:
        index = override.assumption - 1
        text = decision.assumptions[index].text if 0 <= index < len(decision.assumptions) else "?"
        entry = LogEntry.for_decision(
            "overridden",
            decision,
            override.at,
            by=override.by,
            answer=override.text,
            reason=f"assumption {override.assumption}: {text}",
        )
        moves.append((override.at, entry))
    out += [entry for _, entry in sorted(moves, key=lambda m: m[0])]
    if decision.state == "resolved" and decision.answer is not None:
        answer = decision.answer
        out.append(
            LogEntry.for_decision(
                "resolved",
                decision,
                answer.at,
                answer=answer.value,
                answer_kind=answer.kind,
                by=answer.by,
                location=url,
            )
        )
    return out


def _label_name(lab: Any) -> str:
    return lab["name"] if isinstance(lab, dict) else str(lab)


def _header_value(headers: dict[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def _already_exists(exc: GithubException) -> bool:
    data = exc.data if isinstance(exc.data, dict) else {}
    return any(isinstance(e, dict) and e.get("code") == "already_exists" for e in data.get("errors") or [])


__all__ = ["GitHubTracker", "assignable_login"]
