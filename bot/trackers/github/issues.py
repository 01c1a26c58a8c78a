"""Decision issues: claiming a decision's label, then finding, polling, filing, updating and closing its issue.

* A decision is an issue labeled ``decision:<id>`` (:func:`bot.core.identity.decision_label`),
  ``parkbot:decision`` and, while it blocks, ``parkbot:blocking``. Its body ends with a hidden block
  holding the whole decision (``bot.trackers.github.render``), which is what :meth:`GitHubTracker.find` reads back;
  the visible text is for people. Closed + ``parkbot:resolved`` means resolved (the block then holds
  the answer); closed otherwise means abandoned.
* Lookup is by label, ``state=all`` (listing by label is strongly consistent; search is not). The
  label is created first (:meth:`claim`): GitHub's 422 ``already_exists`` makes it a lock between
  two filers, and a label we just created cannot be on any issue yet, so filing a new decision
  needs no lookup at all.
* ``parkbot wait`` polls with :meth:`GitHubTracker.poll`: a conditional request (``If-None-Match``
  with the previous ETag), answered ``304`` without using rate limit while the decision is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from github import GithubException

from bot.core.errors import BackendFailure, ConcurrentChange, Refused
from bot.core.identity import check_decision_id
from bot.core.models import Answer, Decision, LogEntry
from bot.core.tracker import Location, PollToken
from bot.markdown import escape_markdown, one_line
from bot.trackers.github.access import assignable_login
from bot.trackers.github.base import (
    TrackerBase,
    _already_exists,
    _Found,
    _has_label,
    _header_value,
    _label_names,
    _login,
    _raw,
    log,
)
from bot.trackers.github.client import PER_PAGE
from bot.trackers.github.labels import (
    ABANDONED_LABEL,
    BLOCKING_LABEL,
    DECISION_LABEL,
    INDEX_PREFIXES,
    LABEL_COLOR,
    ORIGIN_PREFIX,
    RESOLVED_LABEL,
    RUN_PREFIX,
    STATE_LABELS,
    branch_labels,
    decision_label,
    index_label,
    precedent_labels,
)
from bot.trackers.github.render import (
    ParseError,
    decision_payload,
    marker,
    overflow_ref,
    parse_decision,
    render_decision,
)


class IssuesMixin(TrackerBase):
    """Decisions stored as issues (see the module docstring)."""

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

    def _decision_url(self, decision: Decision) -> str | None:
        found = self._issues.get(decision.id)
        return found.raw.get("html_url") if found else None

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

    def create(self, decision: Decision, log: LogEntry) -> Location:
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
        self._log_if_not_derived(log)
        return Location(backend="github", number=found.number, url=raw.get("html_url"))

    def _close_duplicate(self, number: int, winner: _Found) -> None:
        def close(_: int) -> None:
            issue = self._issue_obj(number)
            issue.create_comment(f"{marker('duplicate', str(winner.number))}\nDuplicate of #{winner.number}.")
            issue.edit(state="closed", state_reason="duplicate", labels=[])

        self._unit(f"close duplicate issue #{number}", close)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
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
        if log is not None:
            self._log_if_not_derived(log)
        return Location(backend="github", number=found.number, url=found.raw.get("html_url"))

    # -- resolution ---------------------------------------------------------------------------

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        found = self._found(decision)
        resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
        self._log_if_not_derived(log)
        self._finish(found, resolved, "completed")

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
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
        self._log_if_not_derived(log)
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
