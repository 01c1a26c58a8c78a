"""The question log, and the lookups the budgets and the precedent check make at filing.

Events that a decision issue records anyway (parked, escalated, returned, overridden, resolved) cost
nothing to log: they are read back from the issue (:func:`derived_log`). The others (refusals,
abandonments) are comments on the ``parkbot:log`` issue (:class:`LogIssue`, which filing writes to);
a line counts only as parkbot wrote it. :class:`QuestionLog` reads both, and answers the budgets and
precedents through index labels (:mod:`parkbot.trackers.github.labels`), never a scan, through GraphQL,
so that each decision is read as parkbot wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from parkbot.core.models import Decision, LogEntry
from parkbot.markdown import escape_markdown
from parkbot.trackers.github.labels import LOG_LABEL, ORIGIN_PREFIX, RUN_PREFIX, index_label, precedent_labels
from parkbot.trackers.github.render import marker, read_marker
from parkbot.trackers.github.store import raw_json

if TYPE_CHECKING:
    from parkbot.trackers.github.comments import Comments
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore

#: Question-log events that the decision issue itself records (see :meth:`QuestionLog.iter_log`).
DERIVED_EVENTS = frozenset({"parked", "escalated", "returned", "overridden", "resolved"})


class LogIssue:
    """The ``parkbot:log`` issue: the log lines no decision issue records."""

    def __init__(self, store: IssueStore, comments: Comments) -> None:
        self._store = store
        self._comments = comments

    def append(self, entry: LogEntry) -> None:
        """Log one event. Events the decision issue records anyway cost nothing; others (refusals,
        abandonments) become a comment on the ``parkbot:log`` issue."""
        if entry.event in DERIVED_EVENTS and entry.decision:
            return
        number = self._number(create=True)
        assert number is not None
        data = entry.model_dump(mode="json", exclude_none=True)
        text = escape_markdown(
            f"{entry.event}: {entry.decision or entry.origin}" + (f" ({entry.reason})" if entry.reason else "")
        )
        self._comments.post(number, f"{marker('log', entry.event, data)}\n{text}\n")

    def _number(self, *, create: bool) -> int | None:
        store = self._store
        items = [r for r in store.rest_by_label(LOG_LABEL) if not r.get("pull_request")]
        if items:
            return min(int(r["number"]) for r in items)
        if not create:
            return None
        body = (
            "parkbot keeps question-log events that no decision issue records (budget refusals, "
            "abandonments) as comments here. Please do not edit them.\n"
        )
        raw = store.unit(
            "create the question log issue",
            lambda _: raw_json(store.repo.create_issue(title="parkbot question log", body=body, labels=[LOG_LABEL])),
        )
        store.comments.set(int(raw["number"]), [])
        return int(raw["number"])

    def iter_entries(self) -> Iterator[LogEntry]:
        """Only the events no decision issue records (refusals, abandonments): the comments of the
        ``parkbot:log`` issue, oldest first. One request plus one per 100 comments; no decision scan."""
        numbers = [int(r["number"]) for r in self._store.rest_by_label(LOG_LABEL) if not r.get("pull_request")]
        entries: list[LogEntry] = []
        for number in sorted(numbers):
            for comment in self._store.comments.of(number, refresh=True):
                found = read_marker(comment.get("body"))
                if found is None or found.kind != "log" or not self._comments.trusted(comment):
                    continue
                try:
                    entries.append(LogEntry.model_validate(found.data))
                except ValueError:
                    continue
        return iter(entries)


class QuestionLog:
    """The whole question log, and the index-label lookups of filing (see the module docstring)."""

    def __init__(self, store: IssueStore, issues: DecisionIssues, log_issue: LogIssue) -> None:
        self._store = store
        self._issues = issues
        self._log_issue = log_issue

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin or run, through their index labels (1 request each, no scan)."""
        out: dict[str, Decision] = {}
        checks: list[tuple[str, Callable[[Decision], bool]]] = [
            (index_label(ORIGIN_PREFIX, origin), lambda d: d.origin == origin)
        ]
        if run:
            checks.append((index_label(RUN_PREFIX, run), lambda d: d.run == run))
        for label, matches in checks:
            founds, _ = self._store.issues_by_label(label, states=("OPEN",), comments=False, every_page=True)
            for _, decision in self._issues.readable(founds):
                if decision.state == "open" and matches(decision):
                    out.setdefault(decision.id, decision)
        return list(out.values())

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
        for decision in self._issues.iter_decisions():
            url = self._issues.decision_url(decision)
            for entry in derived_log(decision, url):
                keyed.append((decision.created_at, seq, entry))
                seq += 1
        for entry in self._log_issue.iter_entries():
            keyed.append((entry.at, seq, entry))
            seq += 1
        keyed.sort(key=lambda item: (item[0], item[1]))
        return iter([entry for _, _, entry in keyed])

    def _precedent_candidates(self, about: Decision) -> list[LogEntry]:
        entries: dict[str, LogEntry] = {}
        for label in precedent_labels(about):
            founds, _ = self._store.issues_by_label(label, states=("CLOSED",), comments=False, every_page=True)
            for found in founds:
                hit = self._issues.as_decision(found)
                if hit is None or hit[0].state != "resolved":
                    continue
                for entry in derived_log(hit[0], found.raw.get("html_url")):
                    if entry.event == "resolved":
                        entries.setdefault(hit[0].id, entry)
        return sorted(entries.values(), key=lambda e: e.at)


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
