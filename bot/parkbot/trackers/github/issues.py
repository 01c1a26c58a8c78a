"""Decision issues: claiming a decision's label, then finding and polling its issue (writing it is
:mod:`~parkbot.trackers.github.issue_writes`).

* A decision is an issue labeled ``decision:<id>`` (:func:`parkbot.trackers.github.labels.decision_label`),
  ``parkbot:decision`` and, while it blocks, ``parkbot:blocking``. Its body ends with a hidden block
  holding the whole decision (``parkbot.trackers.github.render``), which is what :meth:`DecisionIssues.find`
  reads back; the visible text is for people. Closed + ``parkbot:resolved`` means resolved (the block
  then holds the answer); closed otherwise means abandoned.
* A decision is read only as parkbot's own login wrote it (:meth:`DecisionIssues.verify`); what anyone
  else changed is in its ``problems`` and in one notice on the issue.
* Lookup is by label, ``state=all`` (listing by label is strongly consistent; search is not). The
  label is created first (:meth:`DecisionIssues.claim`): GitHub's 422 ``already_exists`` makes it a
  lock between two filers. A label we just created cannot be on any issue yet, but the decision may
  still exist: deleting a label from the repository removes it from every issue. So a new filing looks
  once through the origin's index label, and a decision found there is updated (or stays resolved),
  never filed twice.
* ``parkbot wait`` polls with :meth:`DecisionIssues.poll`: a conditional request (``If-None-Match``
  with the previous ETag), answered ``304`` without using rate limit while the decision is unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from github import GithubException

from parkbot.core.errors import BackendFailure, Refused
from parkbot.core.identity import SEPARATOR, check_decision_id
from parkbot.core.models import Decision
from parkbot.core.tracker import Location, PollToken
from parkbot.markdown import one_line
from parkbot.trackers.github.client import PER_PAGE
from parkbot.trackers.github.labels import (
    DECISION_LABEL,
    LABEL_COLOR,
    ORIGIN_PREFIX,
    decision_label,
    index_label,
)
from parkbot.trackers.github.records_trust import (
    DELETED_ACCOUNT,
    body_verdict,
    claims_a_decision,
    has_marker,
    opened_by_parkbot,
    read_state,
    record_problems,
    without_authority,
)
from parkbot.trackers.github.render import (
    ParseError,
    decision_payload,
    overflow_ref,
    parse_decision,
    render_notice,
)
from parkbot.trackers.github.store import (
    FoundIssue,
    already_exists,
    has_label,
    header_value,
    label_names,
)
from parkbot.trackers.github.store import log as logger
from parkbot.trackers.github.trust import author_of

if TYPE_CHECKING:
    from parkbot.trackers.github.comments import Comments
    from parkbot.trackers.github.question_log import LogIssue
    from parkbot.trackers.github.store import IssueStore


class DecisionIssues:
    """Decisions stored as issues (see the module docstring)."""

    def __init__(
        self,
        store: IssueStore,
        comments: Comments,
        log_issue: LogIssue,
    ) -> None:
        self._store = store
        self._comments = comments
        self._log = log_issue
        #: What this run did that the user should hear about (an issue not adopted), for the command's output.
        self.notices: list[str] = []

    # -- identity -----------------------------------------------------------------------------

    def default_owner(self) -> str:
        """The repository owner (from ``GITHUB_REPOSITORY``)."""
        return self._store.client.settings.owner

    def claim(self, decision_id: str) -> bool:
        label = decision_label(decision_id)
        repo = self._store.repo

        def create(_: int) -> bool:
            try:
                repo.create_label(label, LABEL_COLOR, one_line(f"parkbot decision {decision_id}", 100))
            except GithubException as exc:
                if exc.status == 422 and already_exists(exc):
                    return False
                raise
            return True

        claimed = self._store.unit(f"create the label {label}", create)
        if claimed:
            # A label just created is on no issue, yet the decision may exist: deleting a label from the
            # repository removes it from every issue. The origin's index label still finds parkbot's issue
            # (a request a page of the origin's issues), which the next read takes, so the decision is
            # updated, never filed twice.
            orphan = self._by_origin(decision_id)
            if orphan is not None:
                self._store.issues.prime(decision_id, orphan)
                claimed = False
        self._store.issues.note_claim(decision_id, claimed)
        return claimed

    # -- reading decisions ----------------------------------------------------------------------

    def _decision_from(self, found: FoundIssue) -> Decision:
        """The decision an issue holds, with only the authority parkbot's own writing gives it.

        The hidden block is read from the body as parkbot last wrote it (:meth:`verify`); when no
        version of parkbot's is left, the block is read without its authority (:func:`_without_authority`).
        What someone else changed is in ``problems`` and in one notice on the issue.
        """
        self.verify(found)
        raw = found.raw
        body = found.own_body if found.own_body is not None else str(raw.get("body") or "")
        overflow: list[str] = []
        if overflow_ref(body) is not None:
            overflow = self._comments.overflow(found.number)  # as parkbot wrote them: a chunk edited is no damage
        decision = parse_decision(body, overflow)
        if found.own_body is None:
            decision = without_authority(decision, self.default_owner())
        decision = read_state(decision, closed=raw.get("state") == "closed")
        problems = [*found.problems, *self._record_problems(found, decision.id)]
        if not problems:
            return decision
        if self._store.comments.held(found.number):  # read with its comments: the problems are all known
            self._notify(found, problems)
        return decision.with_problems(problems)

    def verify(self, found: FoundIssue) -> FoundIssue:
        """Find the body as parkbot last wrote it, and say what someone else changed (once per read)."""
        if found.verified:
            return found
        found.verified = True
        verdict = body_verdict(
            found.raw,
            opened_by_parkbot=self.authored(found),
            trusted=self._store.trusted_logins,
            history=self._store.histories.of,
        )
        found.own_body, found.problems = verdict.own_body, verdict.problems
        return found

    def authored(self, found: FoundIssue) -> bool:
        """Whether parkbot's own login opened the issue: only such an issue can be a decision's.

        Anyone with write access can open an issue carrying a copy of a decision's hidden block and
        its labels; authorship is the one fact about an issue nobody can change afterwards.
        """
        store = self._store
        return opened_by_parkbot(found.raw, store.trusted_logins, guesses_own_login=store.guesses_own_login())

    def claim_problem(self, found: FoundIssue) -> str | None:
        """Why an issue that looks like a decision's (its hidden block or a decision label) is none.

        None for parkbot's own issues and for issues that claim nothing (an ordinary issue a pull
        request says it depends on). A link to a claimed-but-foreign issue blocks (see
        :mod:`parkbot.core.links`).
        """
        raw = found.raw
        if raw.get("pull_request") or self.authored(found):
            return None
        if not claims_a_decision(raw, label_names(raw)):
            return None
        self.verify(found)
        return found.problems[0] if found.problems else "not written by parkbot"

    def _record_problems(self, found: FoundIssue, decision_id: str) -> list[str]:
        """Answer records on the issue that are not parkbot's own writing (when its comments were read).

        A marker posted by anyone else, another bot included, carries no authority; an answer record
        of parkbot's that someone else changed is read as parkbot wrote it (and put back by the next write).
        """
        comments = self._store.comments.cached(found.number)
        return record_problems(comments, found.number, decision_id, self._store.own_login, self._comments)

    def _notify(self, found: FoundIssue, problems: list[str]) -> None:
        """One visible notice per set of problems on the issue (keyed, never posted twice); best effort.

        Only reads that fetched the issue's comments notify (every read of one decision does; scans
        do not), so the same findings always make the same key. Reading must not fail because a
        notice cannot be written (a read-only token, say): the problems are in the decision anyway. Only
        parkbot's own identity posts it: a notice under a person's login would not be parkbot's record.
        """
        if not self._store.writes_as_itself():
            return  # a person's token (parkbot resolve on a workstation) never writes in parkbot's name
        key = "changed-" + hashlib.sha256("\n".join(sorted(problems)).encode("utf-8")).hexdigest()[:16]
        if not self._store.marks.first_notice(found.number, key):
            return
        comments = self._store.comments.cached(found.number)
        if any(has_marker(c.get("body"), "notice", key) and self._comments.by_parkbot(c) for c in comments):
            return
        text = render_notice(key, problems, self._store.own_login)
        try:
            self._comments.upsert(found.number, "notice", key, text, refresh=False)
        except BackendFailure as exc:
            logger.warning("could not post the notice on #%s: %s", found.number, exc.message)

    def pick(self, decision_id: str, items: Iterable[FoundIssue]) -> FoundIssue | None:
        """The issue holding ``decision_id`` among issues carrying its label (pull requests skipped).

        The id is read from the body as parkbot wrote it, so nobody can move a decision by editing
        its block.
        """
        matches: list[FoundIssue] = []
        for found in items:
            raw = found.raw
            if raw.get("pull_request"):
                continue
            if not self.authored(found):  # a copy someone else opened is never the decision's issue
                logger.warning(
                    "issue #%s carries the label of %s but was opened by %s, not by parkbot: ignored",
                    found.number,
                    decision_id,
                    author_of(raw) or DELETED_ACCOUNT,
                )
                continue
            self.verify(found)
            body = found.own_body if found.own_body is not None else raw.get("body")
            try:
                payload = decision_payload(body)
            except ParseError as exc:
                if has_label(raw, DECISION_LABEL):
                    raise Refused(
                        f"issue #{raw['number']} is labeled for decision {decision_id} but its hidden block is "
                        f"damaged ({exc}); restore the block or remove the label",
                        reason="collision",
                    ) from None
                continue
            if payload is None:
                continue
            held = str(payload.get("id", ""))
            if (
                held.casefold() != decision_id
                and decision_label(held).casefold() != decision_label(decision_id).casefold()
            ):
                # Another decision's issue given this label by hand: a label is an index, never evidence.
                logger.warning(
                    "issue #%s carries the label of %s but holds %s: ignored", found.number, decision_id, held
                )
                continue
            if held.casefold() != decision_id:  # two ids whose labels are the same (a label is cut to fit)
                raise Refused(
                    f"identity collision: the label {decision_label(decision_id)} belongs to decision "
                    f"{payload.get('id')!r} (issue #{raw['number']}), not {decision_id}",
                    reason="collision",
                )
            matches.append(found)
        if not matches:
            return None
        # Two issues for one id can only come from a filing race; the oldest one is canonical.
        matches.sort(key=lambda f: f.number)
        if len(matches) > 1:
            logger.warning("decision %s has %d issues; using #%s", decision_id, len(matches), matches[0].number)
        return matches[0]

    def listed(self, label: str) -> list[FoundIssue]:
        """Issues and pull requests carrying ``label`` through REST: whether an issue exists, for filing races."""
        return [FoundIssue(raw) for raw in self._store.rest_by_label(label)]

    def find(self, decision_id: str) -> Decision | None:
        did = check_decision_id(decision_id)
        primed = self._store.issues.take_primed(did)
        if primed is not None:
            found: FoundIssue | None = primed
        else:
            founds, prs = self._store.issues_by_label(decision_label(did), pulls=True, first=10)
            found = self.pick(did, founds)
            if found is not None:
                found.prs = prs
            else:
                found = self._by_origin(did)
        if found is None:
            self._store.issues.forget(did)
            return None
        return self._adopt(did, found)

    def _by_origin(self, did: str) -> FoundIssue | None:
        """The decision's issue found without its own label (removed, or deleted from the repository).

        Labels are an index, not the record: parkbot's own issue is still found through the origin's
        index label, and read by the id its hidden block (as parkbot wrote it) holds (1 request a page
        of the origin's issues: every page is read, so an origin with many questions cannot hide one).
        """
        origin, sep, _ = did.partition(SEPARATOR)
        if not sep:
            return None
        founds, _ = self._store.issues_by_label(index_label(ORIGIN_PREFIX, origin), first=50, every_page=True)
        for candidate in founds:
            if candidate.raw.get("pull_request") or not self.authored(candidate):
                continue
            self.verify(candidate)
            try:
                payload = decision_payload(candidate.own_body)
            except ParseError:
                continue
            if payload is not None and str(payload.get("id", "")).casefold() == did:
                # Not known: the label may be gone, or on more issues than its first page (the pull
                # requests carrying it are listed, every page, when an answer gates them).
                candidate.prs = None
                return candidate
        return None

    def find_unlabeled(self, decision_id: str) -> tuple[Decision, FoundIssue] | None:
        """The decision and its issue when the issue no longer carries the decision's label (a request a
        page of its origin's issues)."""
        did = check_decision_id(decision_id)
        found = self._by_origin(did)
        if found is None:
            return None
        return self._adopt(did, found), found

    def _adopt(self, did: str, found: FoundIssue) -> Decision:
        """The decision in a fresh read of its issue, which becomes the remembered copy and the context."""
        self._store.issues.remember(did, found)
        try:
            decision = self._decision_from(found)
        except ParseError as exc:
            raise Refused(f"issue #{found.number} for {did} is damaged: {exc}", reason="collision") from None
        return decision

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        """The decision now, by a conditional request: free of rate limit while nothing changed.

        Lists the issues carrying both the decision's label and ``parkbot:decision`` (the decision
        issue, not the pull requests that carry its label too: one small page), sending
        ``If-None-Match`` with the ETag of ``previous``. GitHub answers ``304 Not Modified`` without
        counting it against the rate limit when the issue did not change (no edit, label, state or
        comment since), and the decision in ``previous`` is returned as is (not when the page was full: its
        ETag covers that page only). When something changed,
        the decision is read again the way :meth:`find` reads it (GraphQL, with who wrote what), so
        a changed poll costs two requests.
        """
        did = check_decision_id(decision_id)
        if previous is not None and (previous.decision_id != did or previous.decision is None):
            previous = None
        url = f"{self._store.repo_url}/issues"
        params = {
            "labels": f"{decision_label(did)},{DECISION_LABEL}",
            "state": "all",
            "direction": "asc",
            "per_page": PER_PAGE,
        }
        requester = self._store.requester

        def get(_: int) -> tuple[int, dict[str, Any], Any]:
            headers = {"If-None-Match": previous.validator} if previous is not None and previous.validator else {}
            status, response_headers, output = requester.requestJson("GET", url, parameters=params, headers=headers)
            data = json.loads(output) if output else None
            if status >= 400:
                raise requester.createException(status, response_headers, data)
            return status, response_headers, data

        status, headers, data = self._store.unit(f"poll decision {did}", get)
        if status == 304 and previous is not None:
            return previous.decision, previous
        decision = self.find(did)
        if decision is None or not isinstance(data, list) or len(data) >= PER_PAGE:
            # A full page's ETag says nothing of the pages after it, where parkbot's issue may be (anyone
            # who can label can add the labels to older issues): the next poll reads the decision again.
            return decision, PollToken(did)
        return decision, PollToken(did, validator=header_value(headers, "etag"), decision=decision)

    def decision_at(self, number: int) -> Decision | None:
        """The decision stored in issue ``number``, or None if it is not a decision issue (1 request).

        The same request reads the issue's comments (the command comment among them, see
        :meth:`Comments.comment_record`); the next :meth:`find` of that decision uses this read
        instead of listing again.
        """
        found = self._store.issue_by_number(number)
        if found is None or not self.authored(found):
            return None  # an issue someone else opened is never a decision, whatever it carries
        self.verify(found)
        try:
            payload = decision_payload(found.own_body if found.own_body is not None else found.raw.get("body"))
        except ParseError:
            return None
        if payload is None:
            return None
        try:
            did = check_decision_id(str(payload.get("id", "")))
        except ValueError:
            return None
        self._store.issues.prime(did, found)
        try:
            decision = self._decision_from(found)
        except ParseError:
            return None
        return decision

    def found(self, decision: Decision) -> FoundIssue:
        """The issue of ``decision`` as last read (read now if need be)."""
        found = self._store.issues.known(decision.id)
        if found is None:
            if self.find(decision.id) is None:
                raise BackendFailure(f"decision {decision.id} has no issue on GitHub (was it deleted?)")
            found = self._store.issues.known(decision.id)
            assert found is not None
        return found

    def location(self, decision: Decision) -> Location:
        found = self.found(decision)
        return Location(backend="github", number=found.number, url=found.raw.get("html_url"))

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        """Every decision (of ``state``), oldest first: a scan, one GraphQL request per 100 issues."""
        states: tuple[str, ...] = {"open": ("OPEN",), "resolved": ("CLOSED",), "abandoned": ("CLOSED",)}.get(
            state or "", ("OPEN", "CLOSED")
        )
        founds, _ = self._store.issues_by_label(DECISION_LABEL, states=states, comments=False, every_page=True)
        for found, decision in self.readable(sorted(founds, key=lambda f: f.number)):
            if state is None or decision.state == state:
                self._store.issues.remember(decision.id, found)
                yield decision

    def readable(self, items: Iterable[FoundIssue]) -> Iterator[tuple[FoundIssue, Decision]]:
        """The issues among ``items`` with the decision each stores; damaged ones are skipped."""
        for found in items:
            if found.raw.get("pull_request") or not self.authored(found):
                continue
            try:
                decision = self._decision_from(found)
            except ParseError:
                continue
            yield found, decision

    def as_decision(self, found: FoundIssue | None) -> tuple[Decision, FoundIssue] | None:
        """The decision a decision issue holds (remembered as its current copy); None for anything else."""
        if found is None or found.raw.get("pull_request") or not self.authored(found):
            return None  # parkbot's own issue is a decision with or without its labels; another's never is
        try:
            decision = self._decision_from(found)
        except ParseError:
            return None
        self._store.issues.remember(decision.id, found)
        return decision, found

    def decision_url(self, decision: Decision) -> str | None:
        """The web address of the decision's issue, when this run has read it (no request)."""
        found = self._store.issues.known(decision.id)
        return found.raw.get("html_url") if found else None

    def last_seen(self, decision_id: str) -> Decision | None:
        """The decision as this run last read or wrote its issue (no request), or None if it has not."""
        found = self._store.issues.known(decision_id)
        if found is None:
            return None
        try:
            return self._decision_from(found)  # read as parkbot wrote it (verified when it was read)
        except ParseError:
            return None
