"""The labels parkbot puts on issues and pull requests: state labels, and the index labels that the
budgets (origin, run), the precedent lookup (key, question) and branch dependents are found by.

A label lookup is one strongly consistent listing, however many issues the repository holds.
"""

from __future__ import annotations

import hashlib
import re

from parkbot.core.models import Decision
from parkbot.core.questions import normalize_question

#: Every decision's own label starts with this; the rest is its id (see :func:`decision_label`).
LABEL_PREFIX = "decision:"
#: GitHub refuses label names longer than this.
GITHUB_LABEL_MAX = 50
HASH_LENGTH = 10


def id_hash(value: str) -> str:
    """A short, stable digest: sha256 is the same on every platform and Python version."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def decision_label(did: str) -> str:
    """The GitHub label that identifies a decision: ``decision:<id>``, shortened with a hash if too long.

    The shortened form keeps a readable prefix of the id and ends in ``~<hash of the full id>``; ``~``
    never occurs in an id, so a shortened label can never equal an unshortened one. Its output is a
    stored contract: changing it orphans every existing decision issue.
    """
    label = LABEL_PREFIX + did
    if len(label) <= GITHUB_LABEL_MAX:
        return label
    keep = GITHUB_LABEL_MAX - len(LABEL_PREFIX) - 1 - HASH_LENGTH
    return f"{LABEL_PREFIX}{did[:keep].rstrip('._-')}~{id_hash(did)}"


DECISION_LABEL = "parkbot:decision"
BLOCKING_LABEL = "parkbot:blocking"
RESOLVED_LABEL = "parkbot:resolved"
ABANDONED_LABEL = "parkbot:abandoned"
LOG_LABEL = "parkbot:log"
DASHBOARD_LABEL = "parkbot:dashboard"
ORIGIN_PREFIX = "parkbot:origin:"
RUN_PREFIX = "parkbot:run:"
#: Precedent indexes on resolved decisions: same key and options / same normalized question and options.
KEY_PREFIX = "parkbot:pk:"
QUESTION_PREFIX = "parkbot:pq:"
#: Branch index on unresolved decisions: one label per ``branch:<name>`` dependent (see :func:`branch_label`).
BRANCH_PREFIX = "parkbot:branch:"
#: On a pull request whose head branch has been looked up in the branch index (see :meth:`GitHubTracker.rescan_branch`).
TRACKED_LABEL = "parkbot:tracked"
INDEX_PREFIXES = (ORIGIN_PREFIX, RUN_PREFIX, KEY_PREFIX, QUESTION_PREFIX, BRANCH_PREFIX)
STATE_LABELS = frozenset({BLOCKING_LABEL, RESOLVED_LABEL, ABANDONED_LABEL})
LABEL_COLOR = "d4c5f9"


def index_label(prefix: str, value: str) -> str:
    """``<prefix><value>`` when that is a safe label name within 50 characters, else a readable
    prefix of it ending in ``~<hash of value>`` (deterministic, like :func:`decision_label`)."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", value.strip().lower()).strip("-") or "x"
    label = prefix + slug
    if slug == value and len(label) <= GITHUB_LABEL_MAX:
        return label
    keep = GITHUB_LABEL_MAX - len(prefix) - 1 - 10
    return f"{prefix}{slug[:keep].rstrip('._-')}~{id_hash(value)}"


def branch_label(branch: str) -> str:
    """The index label of the decisions that name ``branch:<branch>`` as a dependent.

    A hash, because branch names may be longer than a label or hold characters a label should not
    (and git branch names are case-sensitive while GitHub labels are not).
    """
    return f"{BRANCH_PREFIX}{id_hash(branch)}"


def branch_labels(decision: Decision) -> list[str]:
    """The branch index labels a decision carries while it is not resolved (one per branch dependent)."""
    if decision.state == "resolved":
        return []
    return [branch_label(t.removeprefix("branch:")) for t in decision.dependents if t.startswith("branch:")]


def precedent_labels(decision: Decision) -> list[str]:
    """The two precedent index labels of a decision (what ``parkbot.core.policy.find_precedent`` matches on)."""
    options = ",".join(sorted(decision.option_ids()))
    return [
        f"{KEY_PREFIX}{id_hash(decision.key + chr(10) + options)}",
        f"{QUESTION_PREFIX}{id_hash(normalize_question(decision.question) + chr(10) + options)}",
    ]
