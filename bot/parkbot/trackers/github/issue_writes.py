"""Writing decision issues: filing (with the race two filers can run), updating, closing, posting as the owner.

Split from :mod:`parkbot.trackers.github.issues`, which reads them: a write starts from the copy
:class:`~parkbot.trackers.github.issues.DecisionIssues` found and verified, and keeps what it wrote in
the run cache (``store.issues``), so the next read of the run sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from github import GithubException

from parkbot.core.errors import BackendFailure, ConcurrentChange
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.core.tracker import Location
from parkbot.markdown import escape_markdown
from parkbot.trackers.github.access import assignable_login
from parkbot.trackers.github.labels import (
    ABANDONED_LABEL,
    BLOCKING_LABEL,
    DECISION_LABEL,
    INDEX_PREFIXES,
    ORIGIN_PREFIX,
    RESOLVED_LABEL,
    RUN_PREFIX,
    STATE_LABELS,
    branch_labels,
    decision_label,
    index_label,
    precedent_labels,
)
from parkbot.trackers.github.render import (
    marker,
    render_decision,
)
from parkbot.trackers.github.store import (
    FoundIssue,
    label_names,
    login_of,
    raw_json,
)
from parkbot.trackers.github.store import log as logger
from parkbot.trackers.github.trust import author_of

if TYPE_CHECKING:
    from parkbot.trackers.github.comments import Comments
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.question_log import LogIssue
    from parkbot.trackers.github.store import IssueStore


class DecisionWrites:
    """Decisions written as issues: create, update, close, abandon, and post a command as the owner."""

    def __init__(
        self,
        store: IssueStore,
        comments: Comments,
        log_issue: LogIssue,
        issues: DecisionIssues,
        *,
        race_wait: float,
        sleep: Callable[[float], None],
    ) -> None:
        self._store = store
        self._comments = comments
        self._log = log_issue
        self._issues = issues
        #: How long a filer whose label already existed waits for the other filer's issue to show up.
        self.race_wait = race_wait
        self._sleep = sleep

    # -- writing decisions --------------------------------------------------------------------

    def labels_for(self, decision: Decision, current: Iterable[str] = ()) -> list[str]:
        """The labels the decision's issue carries: ``current`` ones of others kept, the state and index ones set."""
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
        store = self._store
        label = decision_label(decision.id)
        claimed = store.issues.take_claim(decision.id)
        foreign: list[FoundIssue] = []
        if not claimed:
            # The label existed but no issue carried it: another filer may be between its label and
            # its issue. Give it a moment, then look again right before creating.
            self._sleep(self.race_wait)
            listed = self._issues.listed(label)
            if self._issues.pick(decision.id, listed) is not None:
                raise ConcurrentChange(f"decision {decision.id} was just filed by someone else; re-reading it")
            foreign = [f for f in listed if not f.raw.get("pull_request") and not self._issues.authored(f)]
        rendered = render_decision(decision)
        assignee = None if decision.with_planner else assignable_login(decision.owner)  # the planner's window
        labels = self.labels_for(decision)
        attempts: list[int] = []

        def post(attempt: int) -> dict[str, Any]:
            attempts.append(attempt)
            if attempt > 1:  # the failed attempt may have created it after all
                again = self._issues.pick(decision.id, self._issues.listed(label))
                if again is not None:
                    return again.raw
            kwargs: dict[str, Any] = {"title": rendered.title, "body": rendered.body, "labels": labels}
            if assignee:
                kwargs["assignees"] = [assignee]
            try:
                return raw_json(store.repo.create_issue(**kwargs))
            except GithubException as exc:
                if exc.status == 422 and assignee and "assignee" in str(exc.data).lower():
                    kwargs.pop("assignees")  # GitHub refuses assignees without access: file it unassigned
                    logger.warning("cannot assign %s on %s; filing the decision unassigned", assignee, store.repository)
                    return raw_json(store.repo.create_issue(**kwargs))
                raise

        raw = store.unit(f"create the issue for {decision.id}", post)
        found = FoundIssue(raw, prs=())
        if not claimed or len(attempts) > 1:
            # A filing race (or a retried create) could have made two issues: the oldest wins.
            winner = self._issues.pick(decision.id, self._issues.listed(label))
            if winner is not None and winner.number != found.number:
                self.close_duplicate(found.number, winner)
                raise ConcurrentChange(f"decision {decision.id} was filed twice at once; keeping #{winner.number}")
        store.issues.remember(decision.id, found)
        store.comments.set(found.number, [])
        if rendered.overflow:
            self._comments.sync_overflow(found.number, rendered.overflow)
        if foreign:
            self._not_adopted(found.number, decision.id, foreign)
        self._log.append(log)
        return Location(backend="github", number=found.number, url=raw.get("html_url"))

    def _not_adopted(self, number: int, decision_id: str, foreign: list[FoundIssue]) -> None:
        """Say on the new issue (and in the run's output) which issues claimed the decision and were not adopted."""
        named = ", ".join(f"#{f.number} (opened by {author_of(f.raw) or 'a deleted account'})" for f in foreign)
        text = (
            f"{marker('notice', 'foreign-' + decision_id)}\nparkbot filed this issue for `{decision_id}`: "
            f"{named} carried its label but was not opened by parkbot ({self._store.own_login}), so it is no "
            "decision and was not adopted. Commands there are ignored.\n"
        )
        logger.warning("decision %s: not adopting %s; filed #%s instead", decision_id, named, number)
        self._issues.notices.append(
            f"{decision_id}: {named} carried its label but parkbot did not open it; filed #{number}"
        )
        try:
            self._comments.upsert(number, "notice", "foreign-" + decision_id, text, refresh=False)
        except BackendFailure as exc:
            logger.warning("could not post the notice on #%s: %s", number, exc.message)

    def close_duplicate(self, number: int, winner: FoundIssue) -> None:
        """Close issue ``number`` as a duplicate of ``winner``, with a comment saying so (a filing race's loser)."""
        store = self._store

        def close(_: int) -> None:
            issue = store.issue(number)
            issue.create_comment(f"{marker('duplicate', str(winner.number))}\nDuplicate of #{winner.number}.")
            issue.edit(state="closed", state_reason="duplicate", labels=[])

        store.unit(f"close duplicate issue #{number}", close)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        found = self._issues.found(decision)
        raw = found.raw
        rendered = render_decision(decision)
        changes: dict[str, Any] = {}
        if raw.get("title") != rendered.title:
            changes["title"] = rendered.title
        if (raw.get("body") or "") != rendered.body:
            changes["body"] = rendered.body
        assignee = None if decision.with_planner else assignable_login(decision.owner)  # the planner's window
        current_assignees = sorted(login_of(a) or "" for a in raw.get("assignees") or [])
        wanted_assignees = [assignee] if assignee else []
        if [a.casefold() for a in current_assignees] != [a.casefold() for a in wanted_assignees]:
            changes["assignees"] = wanted_assignees
        current_labels = label_names(raw)
        labels = self.labels_for(decision, current_labels)
        if {n.casefold() for n in labels} != {n.casefold() for n in current_labels}:
            changes["labels"] = labels
        if raw.get("state") != "open" and decision.state == "open":
            changes["state"] = "open"
        if changes:
            number = found.number
            new_raw = self._store.unit(f"update issue #{number}", lambda _: self._store.edit(number, changes))
            found = FoundIssue(new_raw, prs=found.prs, own_body=rendered.body, verified=True)  # as this run wrote it
            self._store.issues.remember(decision.id, found)
        if rendered.overflow:
            self._comments.sync_overflow(found.number, rendered.overflow)
        if log is not None:
            self._log.append(log)
        return Location(backend="github", number=found.number, url=found.raw.get("html_url"))

    def post_command(self, decision: Decision, text: str) -> str:
        """Post a comment command on the decision issue as the token's owner (1 request); its URL."""
        found = self._issues.found(decision)
        raw = self._comments.post(found.number, text)
        return str(raw.get("html_url") or self._comments.comment_url(found.number, raw["id"]))

    # -- resolution ---------------------------------------------------------------------------

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        """Step (d): the decision resolved, its log line first (so a re-run can only repeat it)."""
        found = self._issues.found(decision)
        self._comments.restore_answer_record(found.number, decision.id)  # as parkbot wrote it
        resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
        self._log.append(log)
        self._finish(found, resolved, "completed")

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        found = self._issues.found(decision)
        self._comments.upsert(
            found.number,
            "abandoned",
            decision.id,
            f"{marker('abandoned', decision.id)}\nClosed without an answer: {escape_markdown(reason)}\n"
            "Dependents stay blocked; re-file the question to ask again.\n",
        )
        abandoned = decision.model_copy(update={"state": "abandoned"})
        self._log.append(log)
        self._finish(found, abandoned, "not_planned")

    def _finish(self, found: FoundIssue, decision: Decision, reason: str) -> None:
        raw = found.raw
        rendered = render_decision(decision)
        labels = self.labels_for(decision, label_names(raw))
        done = (
            raw.get("state") == "closed"
            and (raw.get("body") or "") == rendered.body
            and {n.casefold() for n in labels} == {n.casefold() for n in label_names(raw)}
        )
        if done:
            return
        changes: dict[str, Any] = {"body": rendered.body, "labels": labels}
        if raw.get("state") != "closed":
            changes.update(state="closed", state_reason=reason)
        number = found.number
        new_raw = self._store.unit(f"close issue #{number}", lambda _: self._store.edit(number, changes))
        self._store.issues.remember(
            decision.id, FoundIssue(new_raw, prs=found.prs, own_body=rendered.body, verified=True)
        )
