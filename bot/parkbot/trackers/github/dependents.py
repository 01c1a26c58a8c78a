"""Dependents: which pull requests depend on which decisions, and recording every edge seen.

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
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from github import GithubException
from github.Issue import Issue as GhIssue

from parkbot.core.errors import InvalidInput
from parkbot.core.identity import check_decision_id
from parkbot.core.links import unverifiable_link
from parkbot.core.models import Decision
from parkbot.trackers.github import queries
from parkbot.trackers.github.dependent_text import PR_TARGET, TRAILER, body_refs, head_branch
from parkbot.trackers.github.labels import LABEL_PREFIX, TRACKED_LABEL, branch_label, decision_label
from parkbot.trackers.github.pull_reads import commits_and_issues
from parkbot.trackers.github.render import ParseError, decision_payload
from parkbot.trackers.github.store import FoundIssue, already_exists, has_label, label_names, log

if TYPE_CHECKING:
    from parkbot.trackers.github.issue_writes import DecisionWrites
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore

#: Statuses on the native dependency endpoints that mean "not available here" (plan, GHES version, PRs).
NATIVE_UNAVAILABLE = frozenset({403, 404, 410, 422})


class Dependents:
    """Edges between decisions and pull requests (see the module docstring)."""

    def __init__(self, store: IssueStore, issues: DecisionIssues, writes: DecisionWrites) -> None:
        self._store = store
        self._issues = issues
        self._writes = writes
        #: Why a label's issue was not followed (opened by someone else), for the stand-in's reason.
        self._foreign: dict[str, str] = {}

    def pr_numbers(self, decision: Decision) -> list[int]:
        """Every dependent PR: those the decision records, and those carrying its label.

        The label side covers an edge whose write to the decision's body was lost to a concurrent
        edit; it comes free with ``find`` (one listing when the decision was read another way).
        """
        numbers: list[int] = []
        for target in decision.dependents:
            numbers.extend(self.target_prs(target))
        found = self._issues.found(decision)
        if found.prs is None:
            label = decision_label(decision.id)
            found.prs = tuple(int(r["number"]) for r in self._store.rest_by_label(label) if r.get("pull_request"))
        numbers.extend(found.prs)
        return list(dict.fromkeys(numbers))

    def sharing_commit(self, target: str) -> list[str]:
        """The other open pull requests and branches whose head is the head of pull request ``target`` (2 requests).

        ``GET /commits/{sha}/pulls`` lists the open pull requests that contain the commit; only those
        whose head it is share the check run published on it. Forks' pull requests are not listed by
        commit until merged, and they cannot share a head commit of this repository's branches anyway.
        ``GET /commits/{sha}/branches-where-head`` names the branches at the commit: each one that is not
        the head of one of these pull requests is a ``branch:<name>`` target, whose decisions (filed for
        the branch before any pull request of it) are read from the branch index.
        """
        match = PR_TARGET.match(target)
        if not match:
            return []
        number = int(match.group(1))
        pull = self._store.pulls.get(number)
        sha = str(((pull or {}).get("head") or {}).get("sha") or "")
        if not re.fullmatch(r"[0-9a-fA-F]{40}", sha):
            return []
        listed = self._store.unit(
            f"find the pull requests of {sha[:12]}",
            lambda _: self._store.raw_list(self._store.repo.get_commit(sha).get_pulls()),
        )
        out: list[str] = []
        # The branches of this repository the pull requests at the commit come from (a fork's branch of the
        # same name is another branch: never let it hide this repository's).
        heads = {self.head_branch(pull or {})}
        for other in listed:
            head = str((other.get("head") or {}).get("sha") or "").lower()
            if other.get("state") == "open" and head == sha.lower() and int(other["number"]) != number:
                self._store.pulls.keep(other)
                out.append(f"#{other['number']}")
                heads.add(self.head_branch(other))
        out += [f"branch:{name}" for name in self.branches_at(sha) if name not in heads]
        return out

    def branches_at(self, sha: str) -> list[str]:
        """The branches whose head is commit ``sha`` (``GET /commits/{sha}/branches-where-head``, 1 request:
        GitHub lists them all, unpaged)."""
        return self._store.unit(
            f"find the branches at {sha[:12]}",
            lambda _: [b.name for b in self._store.repo.get_commit(sha).get_branches_where_head()],
        )

    def indexed_dependents(self, decision_id: str) -> list[str]:
        """Open pull requests carrying the decision's label: what to gate again when its issue is gone (1 request)."""
        label = decision_label(check_decision_id(decision_id))
        listed = self._store.rest_by_label(label)
        return [f"#{r['number']}" for r in listed if r.get("pull_request") and r.get("state") == "open"]

    def target_prs(self, target: str) -> list[int]:
        match = PR_TARGET.match(target)
        if match:
            return [int(match.group(1))]
        if target.startswith("branch:"):
            branch = target.removeprefix("branch:")
            head = f"{self._store.client.settings.owner}:{branch}"
            pulls = self._store.unit(
                f"find the pull request of {branch}",
                lambda _: self._store.raw_list(self._store.repo.get_pulls(state="open", head=head)),
            )
            for pull in pulls:
                self._store.pulls.keep(pull)
            return [int(p["number"]) for p in pulls]
        return []

    def open_pulls_at(self, sha: str, *, head: str) -> list[int]:
        """The open pull requests whose head is commit ``sha`` on branch ``head`` (``owner:branch``).

        ``GET /commits/{sha}/pulls`` first (1 request). It only knows commits that are this
        repository's, and a fork's commits are not until they are merged, so when it finds nothing
        the open pull requests of ``head`` are listed (``GET /pulls?head=owner:branch``, 1 more). Only
        a pull request whose head is still ``sha`` counts: one that has moved on is judged on its
        newer commit.
        """
        if not re.fullmatch(r"[0-9a-fA-F]{40}", sha or ""):
            raise InvalidInput(f"{sha!r} is not a full commit sha")

        def matching(pulls: list[dict[str, Any]]) -> list[int]:
            found = []
            for pull in pulls:
                side = pull.get("head") or {}
                if pull.get("state") != "open" or str(side.get("sha", "")).lower() != sha.lower():
                    continue
                if str(side.get("label", "")).casefold() != head.casefold():
                    continue
                self._store.pulls.keep(pull)
                found.append(int(pull["number"]))
            return found

        by_commit = self._store.unit(
            f"find the pull requests of {sha[:12]}",
            lambda _: self._store.raw_list(self._store.repo.get_commit(sha).get_pulls()),
        )
        numbers = matching(by_commit)
        if not numbers:
            by_head = self._store.unit(
                f"find the pull request of {head}",
                lambda _: self._store.raw_list(self._store.repo.get_pulls(state="open", head=head)),
            )
            numbers = matching(by_head)
        return list(dict.fromkeys(numbers))

    def link_natively(self, number: int, found: FoundIssue) -> bool:
        """Record "PR #number is blocked by this decision issue" natively; False where unavailable."""
        blocker = self._issue_object(found)

        def add(_: int) -> bool:
            try:
                self._store.issue(number).add_blocked_by(blocker)
            except GithubException as exc:
                if exc.status == 422 and already_exists(exc):
                    return True
                if exc.status in NATIVE_UNAVAILABLE:
                    log.info("native issue dependencies are not available here (%s); carrying on", exc.status)
                    return False
                raise
            return True

        return self._store.unit(f"link #{number} to #{found.number} natively", add)

    def _issue_object(self, found: FoundIssue) -> GhIssue:
        if found.obj is None:
            found.obj = GhIssue(self._store.requester, {}, dict(found.raw), completed=True)
        return found.obj

    def add_pr_labels(self, number: int, pull: dict[str, Any], labels: list[str]) -> None:
        missing = [lab for lab in labels if not has_label(pull, lab)]
        if not missing:
            return
        # The object form GitHub documents ({"labels": [...]}); PyGithub's add_to_labels sends a bare array.
        url = f"{self._store.repo_url}/issues/{number}/labels"
        self._store.unit(
            f"label pull request #{number}",
            lambda _: self._store.requester.requestJsonAndCheck("POST", url, input={"labels": missing}),
        )
        pull.setdefault("labels", []).extend({"name": name} for name in missing)

    def _follow_label(self, label: str, *, decision_id: str | None = None) -> tuple[Decision, FoundIssue] | Decision:
        """The decision a link by ``label`` (or a trailer naming ``decision_id``) names, or a stand-in that blocks.

        Labels are an index: parkbot's own issue is found without them too (:meth:`DecisionIssues.find`),
        and a link nothing answers for waits, saying why (:func:`parkbot.core.links.unverifiable_link`).
        """
        did = decision_id or label[len(LABEL_PREFIX) :]
        hit = self._lookup_label(label, decision_id=decision_id)
        if hit is not None:
            return hit
        try:
            did = check_decision_id(did)
        except ValueError:
            return unverifiable_link(did, "not a decision id parkbot can look up")
        unlabeled = self._issues.find_unlabeled(did)
        if unlabeled is not None:
            return unlabeled
        foreign = self._foreign.get(label.casefold())
        return unverifiable_link(did, foreign or "not found")

    def _follow_number(self, number: int) -> tuple[Decision, FoundIssue] | Decision | None:
        """The decision issue ``#number`` holds; a stand-in when it is gone or not parkbot's; None for another issue."""
        found = self._store.issue_by_number(number)
        if found is None:
            gone = self._store.marks.missing(number)
            return unverifiable_link(f"#{number}", "not found (deleted or transferred)") if gone else None
        hit = self._issues.as_decision(found)
        if hit is not None:
            return hit
        why = self._issues.claim_problem(found)
        return unverifiable_link(f"#{number}", why) if why else None

    def _lookup_label(self, label: str, *, decision_id: str | None = None) -> tuple[Decision, FoundIssue] | None:
        """The decision whose own label is ``label`` (one GraphQL request, with who wrote what)."""
        founds, prs = self._store.issues_by_label(label, pulls=True, first=10)
        for found in founds:
            raw = found.raw
            why = self._issues.claim_problem(found)
            if why is not None:
                self._foreign[label.casefold()] = why
                continue
            self._issues.verify(found)
            try:
                payload = decision_payload(found.own_body if found.own_body is not None else raw.get("body"))
            except ParseError:
                continue
            if not payload:
                continue
            did = str(payload.get("id", ""))
            if decision_label(did).casefold() != label.casefold():
                continue
            if decision_id is not None and did != decision_id:
                continue
            found.prs = prs
            hit = self._issues.as_decision(found)
            if hit is not None:
                return hit
        return None

    def recorded_links(
        self, pull: dict[str, Any], *, exclude: str | None = None, exclude_number: int | None = None
    ) -> list[Decision]:
        """Decisions a PR links through its labels and body (no commit or native lookups)."""
        out: dict[str, Decision] = {}
        for number in body_refs(pull.get("body"), self._store.repository):
            if number == exclude_number or number == int(pull["number"]):
                continue
            hit = self._follow_number(number)
            decision = hit[0] if isinstance(hit, tuple) else hit
            if decision is not None and decision.id != exclude:
                out[decision.id] = decision
        known = {decision_label(d).casefold() for d in out} | (
            {decision_label(exclude).casefold()} if exclude else set()
        )
        for label in label_names(pull):
            if label.casefold().startswith(LABEL_PREFIX) and label.casefold() not in known:
                followed = self._follow_label(label)
                decision = followed[0] if isinstance(followed, tuple) else followed
                if decision.id != exclude:
                    out[decision.id] = decision
                    known.add(label.casefold())
        return list(out.values())

    def linked_decisions(self, target: str) -> list[Decision]:
        numbers = self.target_prs(target)
        # Gating a branch asks for the decisions of that branch: always look it up in the branch index
        # (this is what the nightly reconcile and a revived decision rely on, tracked PR or not).
        by_branch = target.startswith("branch:")
        linked: dict[str, Decision] = {}
        if by_branch and not numbers:  # a branch with no pull request yet: its decisions are in the branch index
            for decision, _ in self.branch_decisions(target.removeprefix("branch:")):
                linked.setdefault(decision.id, decision)
        for number in numbers:
            for decision in self._linked_for_pull(number, branch_lookup=by_branch):
                linked.setdefault(decision.id, decision)
        return list(linked.values())

    def rescan_branch(self, number: int) -> None:
        """Make the next gate of pull request ``number`` look up the branch index even if it is tracked.

        For a reopened pull request (the ``pull_request`` ``reopened`` event): a decision parked for
        its branch while it was closed did not find it (parking lists open pull requests only). No request.
        """
        self._store.pulls.rescan(number)

    def _linked_for_pull(self, number: int, *, branch_lookup: bool = False) -> list[Decision]:
        pull = self._store.pulls.get(number, fresh=True)
        if pull is None:
            raise InvalidInput(f"#{number} is not a pull request in {self._store.repository}")
        native_raw, native_ok = self._native_blockers(number)
        ids = [str(r["node_id"]) for r in native_raw if r.get("node_id") and not r.get("pull_request")]
        natives: list[FoundIssue] | None = None
        if len(ids) <= queries.NODE_IDS:
            commits, natives = commits_and_issues(self._store, number, ids)
        stand_ins: dict[str, Decision] = {}
        if natives is None:  # one of them is gone since the listing, or too many for one read: read each one
            commits, _ = commits_and_issues(self._store, number, [])
            natives = []
            for raw in native_raw:
                native = self._store.issue_by_number(int(raw["number"]))
                if native is not None:
                    natives.append(native)
                elif self._store.marks.missing(int(raw["number"])):
                    stand_ins[f"#{raw['number']}"] = unverifiable_link(f"#{raw['number']}", "not found")

        found: dict[str, tuple[Decision, FoundIssue]] = {}
        for native in natives:
            hit = self._issues.as_decision(native)
            if hit:
                found[hit[0].id] = hit
            elif why := self._issues.claim_problem(native):
                stand_ins[f"#{native.number}"] = unverifiable_link(f"#{native.number}", why)
        # The branch index only on a PR's first gate (then the PR is marked tracked; see the module docstring).
        own_branch = self.head_branch(pull) is not None
        tracked = has_label(pull, TRACKED_LABEL)
        if own_branch and (not tracked or branch_lookup or self._store.pulls.wants_rescan(number)):
            for hit in self.branch_dependents_of(pull):
                found.setdefault(hit[0].id, hit)
        mark = own_branch and not tracked
        numbers_known = {f.number for _, f in found.values()}
        for ref in body_refs(pull.get("body"), self._store.repository):
            if ref in numbers_known or ref == number:
                continue
            self._add(found, stand_ins, self._follow_number(ref), numbers_known)
        trailer_ids: list[str] = []
        for message in commits:
            for match in TRAILER.finditer(message):
                value = match.group("value")
                if value.startswith("#") and value[1:].isdigit():
                    ref = int(value[1:])
                    if ref not in numbers_known and ref != number:
                        self._add(found, stand_ins, self._follow_number(ref), numbers_known)
                    continue
                try:
                    trailer_ids.append(check_decision_id(value))
                except ValueError:
                    stand_ins.setdefault(value, unverifiable_link(value, "not a decision id parkbot can look up"))
        labels_known = {decision_label(did).casefold() for did in found}
        for did in dict.fromkeys(trailer_ids):
            if did in found:
                continue
            self._add(found, stand_ins, self._follow_label(decision_label(did), decision_id=did), numbers_known)
            labels_known.add(decision_label(did).casefold())
        for label in label_names(pull):
            if label.casefold().startswith(LABEL_PREFIX) and label.casefold() not in labels_known:
                if any(decision_label(did).casefold() == label.casefold() for did in found):
                    continue
                self._add(found, stand_ins, self._follow_label(label), numbers_known)
                labels_known.add(label.casefold())

        self._record_edges(number, pull, found, native_raw if native_ok else None, mark_tracked=mark)
        self._store.pulls.rescanned(number)
        return [decision for decision, _ in found.values()] + [d for k, d in stand_ins.items() if k not in found]

    @staticmethod
    def _add(
        found: dict[str, tuple[Decision, FoundIssue]],
        stand_ins: dict[str, Decision],
        hit: tuple[Decision, FoundIssue] | Decision | None,
        numbers_known: set[int],
    ) -> None:
        """Keep what one link led to: a decision (and its issue), or the stand-in of a link that blocks."""
        if isinstance(hit, tuple):
            found.setdefault(hit[0].id, hit)
            numbers_known.add(hit[1].number)
        elif hit is not None:
            stand_ins.setdefault(hit.id, hit)

    def head_branch(self, pull: dict[str, Any]) -> str | None:
        return head_branch(pull, self._store.repository)

    def branch_dependents_of(self, pull: dict[str, Any]) -> list[tuple[Decision, FoundIssue]]:
        """Unresolved decisions that name the PR's head branch (``branch:<head ref>``) as a dependent.

        One request, through the branch index label (:func:`branch_label`), however many decisions
        the repository holds. This is how a decision filed for a branch before its pull request was
        opened reaches that pull request; the gate then records the edge like any other. Pull
        requests from forks are skipped: ``branch:<name>`` names a branch of this repository.
        """
        ref = self.head_branch(pull)
        if ref is None:
            return []
        return self.branch_decisions(ref)

    def branch_decisions(self, ref: str) -> list[tuple[Decision, FoundIssue]]:
        """Unresolved decisions that name ``branch:<ref>`` as a dependent, from the branch index (1 request
        a page). Every page is read: anyone who can label issues can put the index label on a hundred
        older issues, which the index lists first, and a decision on a later page must still block."""
        label = branch_label(ref)
        # Open and closed: an abandoned decision keeps blocking (it keeps the label); resolved ones drop it.
        founds, _ = self._store.issues_by_label(label, every_page=True)
        target = f"branch:{ref}"
        hits: list[tuple[Decision, FoundIssue]] = []
        for found in founds:
            hit = self._issues.as_decision(found)
            if hit is None:
                continue
            # The hash could collide: check the name. A block nobody can vouch for (someone else wrote it
            # and no version of parkbot's is left) cannot say which branches it blocks: parkbot's own issue
            # carrying the branch's index label blocks the branch.
            if target in hit[0].dependents or hit[1].own_body is None:
                hits.append(hit)
        return hits

    def _native_blockers(self, number: int) -> tuple[list[dict[str, Any]], bool]:
        def get(_: int) -> tuple[list[dict[str, Any]], bool]:
            try:
                return self._store.raw_list(self._store.issue(number).get_blocked_by()), True
            except GithubException as exc:
                if exc.status in NATIVE_UNAVAILABLE:
                    return [], False
                raise

        return self._store.unit(f"list the native dependencies of #{number}", get)

    def _record_edges(
        self,
        number: int,
        pull: dict[str, Any],
        found: dict[str, tuple[Decision, FoundIssue]],
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
            if not has_label(pull, decision_label(decision.id)):
                # Abandoned decisions too: they keep blocking, and a tracked PR finds them by this label.
                missing_labels.append(decision_label(decision.id))
            if decision.state != "open":
                continue
            if native is not None and int(where.raw["id"]) not in native_ids:
                self.link_natively(number, where)
            if target not in decision.dependents:
                updated = decision.model_copy(update={"dependents": [*decision.dependents, target]})
                self._writes.update(updated)
        if mark_tracked:
            missing_labels.append(TRACKED_LABEL)
        if missing_labels:
            self.add_pr_labels(number, pull, missing_labels)
