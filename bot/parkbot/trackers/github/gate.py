"""The gate: the check run ``parkbot/decisions`` that blocks or clears a decision's dependents.

Why a check run: a commit status of any name can be set by anything holding ``statuses: write`` (any
workflow's token, a collaborator's personal token), so a required *status* ``parkbot/decisions`` can be
forged to ``success``. Only a GitHub App can create a check run (the Actions ``GITHUB_TOKEN`` is an App
installation token; a personal token gets 403), and branch protection can require the check from one
App (its "expected source"). While a dependent waits, its check run stays ``in_progress``; once nothing
blocks it, a new run completes with ``success``. The summary lists the decisions, linked to their issues.
GitHub shows, and branch protection reads, the newest run of a name from an App, so each publication is
one ``POST`` (no lookup).

``gate.publish`` in the configuration chooses: ``check`` (the default), ``status`` (the commit status of
the same name, for branch protection that requires a status: weaker, see docs/github.md) or ``both``.

The gate is published on the PR head (:meth:`publish_gate`) and on other exact commits
(:meth:`publish_commit_gate`: the merge-queue commit, where a blocked gate fails outright; a pushed agent
commit, :meth:`publish_commit_failure`). Parking sets it on the decision's dependents
(:meth:`block_dependents`); resolving re-evaluates each dependent from the edges its PR records
(:meth:`clear_blocking`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from github import GithubException

from parkbot.core.errors import BackendFailure, InvalidInput
from parkbot.core.models import Decision
from parkbot.core.tracker import DependentState, GateResult
from parkbot.markdown import one_line
from parkbot.trackers.github.access import is_bot_login
from parkbot.trackers.github.gate_text import (
    CHECK_NAME,
    STATUS_CONTEXT,
    CheckOutput,
    check_failure,
    check_output,
    gate_description,
    gate_state,
)
from parkbot.trackers.github.labels import BLOCKING_LABEL, decision_label
from parkbot.trackers.github.store import has_label, label_name
from parkbot.trackers.github.store import log as logger
from parkbot.trackers.github.text import STATUS_DESCRIPTION_LIMIT

if TYPE_CHECKING:
    from parkbot.trackers.github.dependents import Dependents
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore

_SHA = re.compile(r"[0-9a-fA-F]{7,64}")

#: What a commit status may say (GitHub refuses anything else).
STATUS_STATES = ("pending", "success", "failure", "error")
#: How the gate is published (``gate.publish`` in the configuration).
PublishMode = Literal["check", "status", "both"]


class Gate:
    """The ``parkbot/decisions`` check run or status (see the module docstring)."""

    def __init__(self, store: IssueStore, issues: DecisionIssues, dependents: Dependents) -> None:
        self._store = store
        self._issues = issues
        self._dependents = dependents
        self.publish_mode: PublishMode = "check"
        #: Gates this run could not publish, and why (a person's token cannot write check runs).
        self.notices: list[str] = []

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        """Link each dependent pull request (label, native dependency); a branch without one carries no gate."""
        found = self._issues.found(decision)
        states: list[DependentState] = []
        for target in decision.dependents:
            numbers = self._dependents.target_prs(target)
            if not numbers:
                states.append(DependentState(target, publishable=False, note="no open pull request"))
                continue
            listed = target.startswith("branch:")  # the listing that found them was just read
            for number in numbers:
                pull = self._store.pulls.get(number, fresh=not listed)
                if pull is None:
                    states.append(DependentState(target, publishable=False, note="not a pull request"))
                    continue
                if not has_label(pull, decision_label(decision.id)):
                    self._dependents.link_natively(number, found)
                    self._dependents.add_pr_labels(number, pull, [decision_label(decision.id)])
                states.append(DependentState(f"#{number}"))
        return states

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        """Drop the blocking label; each dependent with the other decisions its recorded edges name."""
        found = self._issues.found(decision)
        states: list[DependentState] = []
        for number in self._dependents.pr_numbers(decision):
            pull = self._store.pulls.get(number, fresh=True)
            if pull is None:
                continue
            others = self._dependents.recorded_links(pull, exclude=decision.id, exclude_number=found.number)
            states.append(DependentState(f"#{number}", tuple(others)))
        if has_label(found.raw, BLOCKING_LABEL):

            def unblock(_: int) -> None:
                try:
                    self._store.issue(found.number).remove_from_labels(BLOCKING_LABEL)
                except GithubException as exc:
                    if exc.status != 404:  # 404: already gone
                        raise

            self._store.unit(f"remove {BLOCKING_LABEL} from #{found.number}", unblock)
            found.raw["labels"] = [
                lab for lab in found.raw.get("labels") or [] if label_name(lab).casefold() != BLOCKING_LABEL
            ]
        return states

    def _publish(self, number: int, result: GateResult) -> None:
        pull = self._store.pulls.get(number)
        if pull is None:
            return
        self._publish_on(pull["head"]["sha"], result, blocked_fails=False)

    def _publish_on(self, sha: str, result: GateResult, *, blocked_fails: bool) -> None:
        """The gate on ``sha`` in the configured form(s) (``gate.publish``)."""
        if self.publish_mode in ("check", "both"):
            urls = {d.id: self._issues.decision_url(d) for d in (*result.blocking, *result.resolved)}
            output = check_output(result, urls, blocked_fails=blocked_fails)
            details = next((url for d in result.blocking if (url := urls.get(d.id))), None)
            if self._writes_checks(output, result.target):
                self.publish_check(sha, output, details_url=details, external_id=result.target)
        if self.publish_mode in ("status", "both"):
            url = self._issues.decision_url(result.blocking[0]) if result.blocking else None
            state = "failure" if result.blocking and blocked_fails else gate_state(result)
            self.publish_status(sha, state, gate_description(result), target_url=url)

    def _writes_checks(self, output: CheckOutput, target: str) -> bool:
        """Whether this token can write the check run (an App's installation token: its login is a bot's).

        A person's token cannot. Then a gate that opens is left to the next gate a workflow runs (a push,
        an edit, "Re-run" on the check): the answer is recorded all the same, and the dependent stays
        blocked meanwhile, which is safe. A gate that blocks is refused before any request: a check
        left green would let the pull request merge.
        """
        login = self._store.token_login()
        if is_bot_login(login):
            return True
        if output.conclusion == "success":
            self.notices.append(
                f"{target}: the check run {CHECK_NAME} was not updated: this token belongs to {login}, and only a "
                "GitHub App writes check runs; it turns green with the next gate a workflow runs (a push, or "
                '"Re-run" on the check)'
            )
            logger.warning("%s", self.notices[-1])
            return False
        raise BackendFailure(
            f"{target} is blocked, but the check run {CHECK_NAME} cannot say so: this token belongs to {login}, and "
            "only a GitHub App can write check runs. Run parkbot with the workflow's GITHUB_TOKEN (permission "
            "checks: write) or a GitHub App's token, or set `gate: {publish: status}` in the configuration to "
            "publish a commit status instead (weaker: see docs/github.md). What was done so far is kept; it is safe "
            "to re-run with such a token."
        )

    def publish_check(
        self, sha: str, output: CheckOutput, *, details_url: str | None = None, external_id: str | None = None
    ) -> None:
        """Create the check run ``parkbot/decisions`` on commit ``sha`` (1 request).

        Only a GitHub App may: a personal token gets 403, explained here with what to do instead.
        """
        if not _SHA.fullmatch(sha or ""):
            raise InvalidInput(f"{sha!r} is not a commit sha")
        data: dict[str, Any] = {"name": CHECK_NAME, "head_sha": sha, **output.as_json()}
        if details_url:
            data["details_url"] = details_url
        if external_id:
            data["external_id"] = one_line(external_id, 200)
        what = f"create the {CHECK_NAME} check run on {sha[:12]}"

        def post(_: int) -> None:
            try:
                self._store.requester.requestJsonAndCheck("POST", f"{self._store.repo_url}/check-runs", input=data)
            except GithubException as exc:
                said = str(exc.data).lower()
                if exc.status == 403 and "rate limit" not in said:
                    why = (
                        "the token is a GitHub App's (the Actions GITHUB_TOKEN is one) but lacks the permission "
                        "checks: write; grant it in the workflow's permissions (or the App's settings)"
                        if "not accessible by integration" in said
                        else "only a GitHub App can write check runs; run parkbot with the workflow's GITHUB_TOKEN "
                        "(permission checks: write) or a GitHub App's token"
                    )
                    raise BackendFailure(
                        f"GitHub refused to {what} (403): {why}, or set `gate: {{publish: status}}` in the "
                        "configuration to publish a commit status instead (weaker: see docs/github.md)."
                    ) from None
                raise

        self._store.unit(what, post)

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
        if not _SHA.fullmatch(sha or ""):
            raise InvalidInput(f"{sha!r} is not a commit sha")
        data: dict[str, Any] = {
            "state": state,
            "context": context,
            "description": one_line(description, STATUS_DESCRIPTION_LIMIT),
        }
        if target_url:
            data["target_url"] = target_url
        self._store.unit(
            f"set the {context} status of {sha[:12]}",
            lambda _: self._store.requester.requestJsonAndCheck(
                "POST", f"{self._store.repo_url}/statuses/{sha}", input=data
            ),
        )

    def publish_commit_gate(self, sha: str, result: GateResult, *, blocked_fails: bool) -> None:
        """The gate on an exact commit (the merge-queue commit): a failure rather than waiting when
        ``blocked_fails``, because nobody answers a question inside a merge queue's timeout."""
        self._publish_on(sha, result, blocked_fails=blocked_fails)

    def publish_commit_failure(self, sha: str, summary: str) -> None:
        """Fail the gate on ``sha`` (a pushed agent commit that filed nothing readable), saying why."""
        if self.publish_mode in ("check", "both"):
            output = check_failure(summary)
            if self._writes_checks(output, sha[:12]):
                self.publish_check(sha, output)
        if self.publish_mode in ("status", "both"):
            self.publish_status(sha, "failure", summary)

    def publish_gate(self, result: GateResult) -> None:
        for number in self._dependents.target_prs(result.target):
            self._publish(number, result)
