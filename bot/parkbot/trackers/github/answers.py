"""Resolution steps (a) and (b): the answer record on the decision issue, and a pointer to it on every dependent.

Both are marker comments (:mod:`parkbot.trackers.github.comments`), so each step is idempotent: a re-run
finds parkbot's record and edits it, never posting twice. Step (c) is the gate's
(:meth:`Gate.clear_blocking`), step (d) the decision issue's (:meth:`DecisionIssues.close`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.models import Answer, Decision
from parkbot.trackers.github.render import render_answer_comment, render_pointer_comment

if TYPE_CHECKING:
    from parkbot.trackers.github.comments import Comments
    from parkbot.trackers.github.dependents import Dependents
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore


class AnswerRecords:
    """Records an answer on the decision issue and points the decision's dependents at it."""

    def __init__(self, store: IssueStore, issues: DecisionIssues, comments: Comments, dependents: Dependents) -> None:
        self._store = store
        self._issues = issues
        self._comments = comments
        self._dependents = dependents

    def recorded_answer(self, decision: Decision) -> Answer | None:
        if decision.answer is not None and decision.state == "resolved":
            return decision.answer
        hit = self._comments.answer_record(self._issues.found(decision).number, decision.id)
        return hit[1] if hit else None

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        found = self._issues.found(decision)
        if self._comments.restore_answer_record(found.number, decision.id):
            return  # (a) already done; the lifecycle refuses a different answer before we get here
        self._comments.upsert(
            found.number,
            "answer",
            decision.id,
            render_answer_comment(decision, answer),
            refresh=False,
        )
        # Step (b) has never run for an answer recorded only now: no pointer can exist yet, so this
        # run posts its pointers without first listing each dependent's comments.
        self._store.marks.note_answered_now(decision.id)

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        found = self._issues.found(decision)
        hit = self._comments.answer_record(found.number, decision.id)
        url = hit[0].get("html_url") if hit else found.raw.get("html_url")
        body = render_pointer_comment(decision, answer, issue_number=found.number, url=url)
        first_time = self._store.marks.answered_now(decision.id)
        for number in self._dependents.pr_numbers(decision):
            if first_time:
                self._store.comments.assume_none(number)  # none of ours yet; a retried post re-reads them
                self._comments.upsert(number, "pointer", decision.id, body, refresh=False)
            else:
                self._comments.upsert(number, "pointer", decision.id, body)
            self._store.comments.forget(number)  # PR comments are re-read by every run
