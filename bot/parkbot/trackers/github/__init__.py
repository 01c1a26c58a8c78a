"""The GitHub backend: decisions as labeled issues, dependents as pull requests, the gate as a check run.

Every GitHub call goes through PyGithub (configured in :mod:`parkbot.trackers.github.client`) and runs as
a *unit* under the retry policy. The rules live in ``parkbot.core.lifecycle``; this adapter only stores,
and reports facts: who wrote and last edited each record (:mod:`~parkbot.trackers.github.trust`).

Where things are
----------------
:class:`GitHubTracker` (:mod:`parkbot.trackers.github.tracker`) is a facade: the sum of the capability parts of
:mod:`~parkbot.trackers.github.capabilities` (each implements one protocol, or a few that go together, by
handing every call to one part of the adapter). The adapter's parts are classes of their own, each built with
what it needs and nothing more:

* :mod:`~parkbot.trackers.github.store`: :class:`~parkbot.trackers.github.store.IssueStore`, the one place
  requests go through: the requests themselves (:mod:`~parkbot.trackers.github.repository_requests`, each a
  retried unit, REST or GraphQL, nothing cached; parkbot's own login) and what this run has read or written
  (:mod:`~parkbot.trackers.github.run_cache`, one part per resource: issues, comments, pull requests, edit
  histories, memberships, marks, dashboards).
* :mod:`~parkbot.trackers.github.issues` and :mod:`~parkbot.trackers.github.issue_writes`: a decision is a
  labeled issue holding a hidden block; claiming, finding and polling it, reading it only as parkbot's own
  login wrote it; filing, updating and closing it; :mod:`~parkbot.trackers.github.unindexed`: those that lost
  their labels, found by authorship.
* :mod:`~parkbot.trackers.github.comments`: bot comments with hidden markers (answer records, pointers,
  replies, notices, the overflow of a long ``work_so_far``), and whose words a comment carries.
* :mod:`~parkbot.trackers.github.answers`: resolution steps (a) and (b), the answer record and the
  pointers to it on the dependents.
* :mod:`~parkbot.trackers.github.dependents`: which pull requests depend on which decisions (the edges, the
  branch index); :mod:`~parkbot.trackers.github.pull_reads`: what a pull request's commits (and the
  issues its native dependencies name) say.
* :mod:`~parkbot.trackers.github.gate`: the check run (or commit status) on dependents (blocking, clearing,
  publishing).
* :mod:`~parkbot.trackers.github.question_log`: the ``parkbot:log`` issue, the question log, the budgets'
  open decisions, precedents.
* :mod:`~parkbot.trackers.github.dashboard_issue`: the decision dashboard issue with its hidden index, and
  pinning it.
* :mod:`~parkbot.trackers.github.access`: who may answer (team membership, repository roles), who acts from
  the command line (the token's login), who is assigned.
* :mod:`~parkbot.trackers.github.commits`: what an agent filed in a pushed commit, read through the API
  when there is no checkout (``parkbot serve``).
* :mod:`~parkbot.trackers.github.reactions`: 👀 / 👍 / 😕 on command comments.
* :mod:`~parkbot.trackers.github.labels`: the label names, and the index labels that budgets, precedents and
  branches are looked up by.
* :mod:`~parkbot.trackers.github.app` and :mod:`~parkbot.trackers.github.app_settings`: parkbot as a GitHub App
  (JWT, installation tokens) and the App's settings from the environment.
* :mod:`~parkbot.trackers.github.pacing`: content creation paced to GitHub's limits, and the waits shown.
* :mod:`~parkbot.trackers.github.queries` and :mod:`~parkbot.trackers.github.trust`: the GraphQL documents that
  read decisions with their authorship, and the pure rules for whose words a text carries.

Request budget (benchmarks/github_requests.py prints the table; docs/github.md has it): park new 3 (claim the
label, the per-origin budget lookup, create; +1 with a run id for the per-run budget), park unchanged 2, park
updated 3, park new with a dependent PR 7 (+ reading, linking, labelling and setting the check run of the PR),
gate 4 when its decisions are natively linked (the pull, its native dependencies, one GraphQL query for its
commits and those decisions, the check run; +1 per decision reached only by label, body or trailer; the first
sight of a new edge also records it), +2 once per PR on its first gate (the branch index, and the
``parkbot:tracked`` mark, which shares the write of any edge the gate records), resolve 4 + 3 per dependent
(from a comment command: 9 with one dependent, 12 with the dashboard), one ``wait`` poll 1 (rate limit: 0
while unchanged; +1 GraphQL read when it changed). Reading a decision is one GraphQL query (the issue, its
comments, who wrote and edited each, parkbot's own login). Budgets read index labels (``parkbot:origin:*``,
``parkbot:run:*``, ``parkbot:branch:*``), never a scan. The question log costs nothing to write for events the
decision issue records anyway (parked, escalated, returned, overridden, resolved); reading all of it
(:meth:`GitHubTracker.iter_log`, for the report) is a scan, while the precedent lookup at filing (``about=``)
reads two index labels. Patching the dashboard after an event is 2 requests (its listing, one edit), whatever
the backlog; recounting it is a scan (every decision, 1 request per 100, plus the log issue's comments).
docs/github.md has what a user pays per command, config read and all.

Resolution (a)-(d) is idempotent: every bot comment carries a hidden marker and is edited, never
posted twice; close is a single PATCH that is skipped when already done. :meth:`GitHubTracker.clear_blocking`
re-evaluates each dependent from the PR's recorded edges (labels and body; one ``GET pull`` each)
instead of re-reading its commits and native dependencies: the gate records those as labels when it
first sees them, which keeps resolution within 4 requests per dependent.
"""

# The doorway: what the rest of parkbot (the translators, the CLI, parkbot.backends) may import from this
# adapter; tests/project/test_architecture.py holds them to it.
from parkbot.trackers.github.access import assignable_login
from parkbot.trackers.github.app import AppCredentials, GitHubApp
from parkbot.trackers.github.app_settings import app_credentials
from parkbot.trackers.github.client import GitHubClient
from parkbot.trackers.github.commits import ApiCommitReader
from parkbot.trackers.github.dashboard_issue import DASHBOARD_TITLE
from parkbot.trackers.github.dependents import NATIVE_UNAVAILABLE
from parkbot.trackers.github.gate import STATUS_STATES
from parkbot.trackers.github.gate_text import STATUS_CONTEXT
from parkbot.trackers.github.labels import (
    ABANDONED_LABEL,
    BLOCKING_LABEL,
    BRANCH_PREFIX,
    DASHBOARD_LABEL,
    DECISION_LABEL,
    INDEX_PREFIXES,
    KEY_PREFIX,
    LABEL_COLOR,
    LABEL_PREFIX,
    LOG_LABEL,
    ORIGIN_PREFIX,
    QUESTION_PREFIX,
    RESOLVED_LABEL,
    RUN_PREFIX,
    STATE_LABELS,
    TRACKED_LABEL,
    branch_label,
    branch_labels,
    index_label,
    precedent_labels,
)
from parkbot.trackers.github.pacing import install as install_pacing
from parkbot.trackers.github.question_log import DERIVED_EVENTS, derived_log
from parkbot.trackers.github.render import ParseError, decision_payload, read_marker
from parkbot.trackers.github.setup import create_standing_labels
from parkbot.trackers.github.store import IssueStore
from parkbot.trackers.github.tracker import GitHubTracker

__all__ = [
    "ABANDONED_LABEL",
    "BLOCKING_LABEL",
    "BRANCH_PREFIX",
    "DASHBOARD_LABEL",
    "DASHBOARD_TITLE",
    "DECISION_LABEL",
    "DERIVED_EVENTS",
    "INDEX_PREFIXES",
    "KEY_PREFIX",
    "LABEL_COLOR",
    "LABEL_PREFIX",
    "LOG_LABEL",
    "NATIVE_UNAVAILABLE",
    "ORIGIN_PREFIX",
    "QUESTION_PREFIX",
    "RESOLVED_LABEL",
    "RUN_PREFIX",
    "STATE_LABELS",
    "STATUS_CONTEXT",
    "STATUS_STATES",
    "TRACKED_LABEL",
    "ApiCommitReader",
    "AppCredentials",
    "GitHubApp",
    "GitHubClient",
    "GitHubTracker",
    "IssueStore",
    "ParseError",
    "app_credentials",
    "assignable_login",
    "branch_label",
    "branch_labels",
    "create_standing_labels",
    "decision_payload",
    "derived_log",
    "index_label",
    "install_pacing",
    "precedent_labels",
    "read_marker",
]
