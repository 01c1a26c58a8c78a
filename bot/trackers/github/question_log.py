"""The question log, and the lookups the budgets and the precedent check make at filing.

Events that a decision issue records anyway (parked, escalated, returned, overridden, resolved) cost
nothing to log: they are read back from the issue (:func:`derived_log`). The others (refusals,
abandonments) are comments on the ``parkbot:log`` issue; a line counts only as parkbot wrote it.
Budgets and precedents read index labels (:mod:`bot.trackers.github.labels`), never a scan, through
GraphQL, so that each decision is read as parkbot wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from bot.core.models import Decision, LogEntry
from bot.markdown import escape_markdown
from bot.trackers.github.base import TrackerBase, _raw
from bot.trackers.github.labels import LOG_LABEL, ORIGIN_PREFIX, RUN_PREFIX, index_label, precedent_labels
from bot.trackers.github.render import marker, read_marker

#: Question-log events that the decision issue itself records (see :meth:`GitHubTracker.iter_log`).
DERIVED_EVENTS = frozenset({"parked", "escalated", "returned", "overridden", "resolved"})


class LogMixin(TrackerBase):
    """The question log and the index-label lookups (see the module docstring)."""

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
            founds, _ = self._issues_by_label(label, states=("OPEN",), comments=False, every_page=True)
            for _, decision in self._readable(founds):
                if decision.state == "open" and matches(decision):
                    out.setdefault(decision.id, decision)
        return list(out.values())

    def _log_if_not_derived(self, entry: LogEntry) -> None:
        self.append_log(entry)

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
                if found is None or found.kind != "log" or not self._trusted(comment):
                    continue
                try:
                    entries.append(LogEntry.model_validate(found.data))
                except ValueError:
                    continue
        return iter(entries)

    def _precedent_candidates(self, about: Decision) -> list[LogEntry]:
        entries: dict[str, LogEntry] = {}
        for label in precedent_labels(about):
            founds, _ = self._issues_by_label(label, states=("CLOSED",), comments=False, every_page=True)
            for found in founds:
                hit = self._as_decision(found)
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
