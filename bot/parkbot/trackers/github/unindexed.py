"""Decision issues that lost their labels, found by who opened them (the reconcile restores their labels).

A decision is looked up by its labels (:mod:`~parkbot.trackers.github.issues`); one whose
``parkbot:decision`` or ``decision:<id>`` label was removed is found only here, by authorship.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from github.Issue import Issue as GhIssue
from github.PaginatedList import PaginatedList

from parkbot.core.identity import check_decision_id
from parkbot.core.models import Decision
from parkbot.trackers.github.client import PER_PAGE
from parkbot.trackers.github.labels import DECISION_LABEL, decision_label
from parkbot.trackers.github.render import ParseError, decision_payload
from parkbot.trackers.github.repository_requests import login_of
from parkbot.trackers.github.store import label_names
from parkbot.trackers.github.trust import same_login

if TYPE_CHECKING:
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore


def unindexed_decisions(store: IssueStore, issues: DecisionIssues) -> list[Decision]:
    """parkbot's own decision issues that lost ``parkbot:decision`` or ``decision:<id>``, read and verified.

    Found by authorship, not by label: ``GET /issues?creator=<parkbot's login>&state=all``, every
    page (one request per 100 issues parkbot opened). The listing is only an index of candidates:
    each one missing a label is read again with who wrote what (:meth:`DecisionIssues.decision_at`), so
    only a decision as parkbot wrote it counts.
    """
    own = store.own_login
    # PyGithub's get_issues types ``creator`` as a NamedUser (which would cost a request to build); GitHub
    # takes the login as text, so the listing is made here with the same paginated reader.
    params = {"state": "all", "creator": own, "direction": "asc", "per_page": PER_PAGE}
    listed = store.unit(
        f"list the issues {own} opened",
        lambda _: store.raw_list(PaginatedList(GhIssue, store.requester, f"{store.repo_url}/issues", params)),
    )
    out: list[Decision] = []
    for raw in listed:
        if raw.get("pull_request") or not same_login(login_of(raw.get("user")), own):
            continue
        try:
            payload = decision_payload(raw.get("body"))
            did = check_decision_id(str((payload or {}).get("id", "")))
        except (ParseError, ValueError):
            continue
        names = {n.casefold() for n in label_names(raw)}
        if DECISION_LABEL in names and decision_label(did).casefold() in names:
            continue
        decision = issues.decision_at(int(raw["number"]))
        if decision is not None:
            out.append(decision)
    return out
