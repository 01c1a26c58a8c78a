"""Clusters of recurring questions: the to-do list for better delegation.

Two decisions belong together when they share a ``key`` (the name the agent gave the question), or
when their question texts are identical after :func:`normalize_question` (numbers, ids and quoted
strings replaced by placeholders). Both relations feed one union-find, so "A has B's key" and "B has
C's text" put A, B and C in one cluster. Bucketing by dict keeps this linear in the number of
decisions (plus the union-find's near-constant factor); nothing is compared pairwise.

Only clusters that recur *across* work are reported: at least two questions, from at least two
distinct ``(origin, run)`` pairs. Two questions from the same run are that run's problem, not the
template's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from bot.core.models import Decision

#: How much of the representative question the suggestion quotes.
MAX_REPRESENTATIVE = 200
MAX_ANSWER_IN_SUGGESTION = 80

# Order matters: quotes first (their content is anything), then uuids (which contain hex runs and
# hyphens), hex ids, ticket-like ids, and finally bare numbers.
_QUOTED = re.compile(
    r'"[^"\n]*"'  # "double"
    "|\u201c[^\u201d\n]*\u201d"  # curly double
    "|\u2018[^\u2019\n]*\u2019"  # curly single
    r"|`[^`\n]*`"  # `code`
    r"|(?<!\w)'[^'\n]*'(?!\w)"  # 'single', but not the apostrophes in "don't ... isn't"
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
# At least 7 hex digits with at least one digit and one letter: commit shas, hashes; not "decade".
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.IGNORECASE)
# Letters then digits, optionally joined by - _ #: A-4471, JIRA-12, order_7, PR#3, v2.
_TICKET = re.compile(r"\b[a-z]+[-_#]?\d+(?:[-_.]\d+)*\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SPACE = re.compile(r"\s+")


def template_question(text: str) -> str:
    """The question with its specifics replaced by placeholders, case kept: readable in a template."""
    text = _QUOTED.sub("<q>", text)
    text = _UUID.sub("<id>", text)
    text = _HEX.sub("<id>", text)
    text = _TICKET.sub("<id>", text)
    text = _NUMBER.sub("<n>", text)
    return _SPACE.sub(" ", text).strip()


def normalize_question(text: str) -> str:
    """The clustering key: :func:`template_question`, lowercased.

    ``"Order A-4471: refund 'three' items for 412.00?"`` becomes ``"order <id>: refund <q> items for <n>?"``,
    and so does ``"order  B-9: refund "all" items for 690?"``.
    """
    return template_question(text).casefold()


class Cluster(BaseModel):
    """One recurring question."""

    size: int = Field(description="Questions in the cluster.")
    sources: int = Field(description="Distinct (origin, run) pairs that asked it.")
    origins: list[str] = Field(description="Distinct origins, sorted.")
    keys: list[str] = Field(description="Distinct keys, sorted.")
    representative: str = Field(description="The most common question text, with placeholders for specifics.")
    decision_ids: list[str] = Field(description="Every decision in the cluster, oldest first.")
    answered: int = Field(description="How many of them were answered.")
    most_common_answer: str | None = None
    most_common_answer_count: int = 0
    first_asked: datetime
    last_asked: datetime
    suggestion: str = Field(description="A line for the delegation template, so the question is not asked again.")


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.rank = [0] * n

    def find(self, i: int) -> int:
        root = i
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[i] != root:  # path compression
            self.parent[i], i = root, self.parent[i]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1


def find_clusters(decisions: Sequence[Decision], *, min_size: int = 2, min_sources: int = 2) -> list[Cluster]:
    """Recurring questions among ``decisions``, largest first.

    Ties are broken by more distinct sources, then the most recently asked, then the text, so the
    order is deterministic.
    """
    n = len(decisions)
    uf = _UnionFind(n)
    templates = [template_question(d.question) for d in decisions]
    normalized = [t.casefold() for t in templates]
    first_by_key: dict[str, int] = {}
    first_by_text: dict[str, int] = {}
    for i, d in enumerate(decisions):
        uf.union(i, first_by_key.setdefault(d.key, i))
        uf.union(i, first_by_text.setdefault(normalized[i], i))

    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(uf.find(i), []).append(i)

    clusters = []
    for members in groups.values():
        if len(members) < min_size:
            continue
        sources = {(decisions[i].origin, decisions[i].run) for i in members}
        if len(sources) < min_sources:
            continue
        clusters.append(_cluster(decisions, members, templates, normalized, len(sources)))
    clusters.sort(key=lambda c: (-c.size, -c.sources, -c.last_asked.timestamp(), c.representative))
    return clusters


def _cluster(
    decisions: Sequence[Decision], members: list[int], templates: list[str], normalized: list[str], sources: int
) -> Cluster:
    members = sorted(members, key=lambda i: (decisions[i].created_at, decisions[i].id))
    # Representative: the most common normalized text; on a tie, the one asked most recently.
    text_counts = Counter(normalized[i] for i in members)
    latest = {normalized[i]: position for position, i in enumerate(members)}
    best_text = max(text_counts, key=lambda t: (text_counts[t], latest[t]))
    representative = _shorten(templates[members[latest[best_text]]], MAX_REPRESENTATIVE)

    answers = [decisions[i].answer for i in members if decisions[i].state == "resolved" and decisions[i].answer]
    answer_counts: Counter[str] = Counter()
    shown: dict[str, tuple[int, str]] = {}  # casefolded value -> (last position, value as last given)
    for position, answer in enumerate(answers):
        folded = answer.value.strip().casefold()
        answer_counts[folded] += 1
        shown[folded] = (position, answer.value.strip())
    most_common = None
    most_common_count = 0
    if answer_counts:
        folded = max(answer_counts, key=lambda v: (answer_counts[v], shown[v][0]))
        most_common, most_common_count = shown[folded][1], answer_counts[folded]

    size = len(members)
    if answers:
        tail = (
            f"answered {len(answers)} time{'s' if len(answers) != 1 else ''}; "
            f"most common answer: {_shorten(most_common or '', MAX_ANSWER_IN_SUGGESTION)}"
        )
    else:
        tail = f"asked {size} times; not answered yet"
    return Cluster(
        size=size,
        sources=sources,
        origins=sorted({decisions[i].origin for i in members}),
        keys=sorted({decisions[i].key for i in members}),
        representative=representative,
        decision_ids=[decisions[i].id for i in members],
        answered=len(answers),
        most_common_answer=most_common,
        most_common_answer_count=most_common_count,
        first_asked=decisions[members[0]].created_at,
        last_asked=decisions[members[-1]].created_at,
        suggestion=f"Decide up front: {representative} ({tail})",
    )


def _shorten(text: str, limit: int) -> str:
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
