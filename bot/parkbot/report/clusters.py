"""Clusters of recurring questions: the to-do list for better delegation.

Two decisions belong together when they share a ``key`` (the name the agent gave the question), or
when their question texts have the same :func:`~parkbot.core.questions.cluster_key`. Both relations feed one
union-find, so
"A has B's key" and "B has C's text" put A, B and C in one cluster. Bucketing by dict keeps this
linear in the number of decisions (plus the union-find's near-constant factor); nothing is compared
pairwise.

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

from parkbot.core.models import Decision
from parkbot.report.facts import Fact

#: How much of a question the report quotes.
MAX_REPRESENTATIVE = 200
MAX_ANSWER_IN_SUGGESTION = 80
#: How many different answers the suggestion names before it says "and N more".
ANSWERS_IN_SUGGESTION = 3

_SPACE = re.compile(r"\s+")


class AnswerCount(BaseModel):
    """One answer an owner gave to the questions of a cluster, and how many times."""

    value: str = Field(description="The answer as it was last given (answers are compared trimmed, ignoring case).")
    count: int


class Cluster(BaseModel):
    """One recurring question."""

    size: int = Field(description="Questions in the cluster.")
    sources: int = Field(description="Distinct (origin, run) pairs that asked it.")
    origins: list[str] = Field(description="Distinct origins, sorted.")
    keys: list[str] = Field(description="Distinct keys, sorted.")
    pattern: str = Field(description="The question with its specifics replaced by placeholders (most members').")
    representative: str = Field(description="The question as last asked in that wording, shortened.")
    decision_ids: list[str] = Field(description="Every decision in the cluster, oldest first.")
    answered: int = Field(description="How many of them were answered.")
    open: int = Field(default=0, description="How many of them are still waiting for an answer.")
    answers: list[AnswerCount] = Field(
        default_factory=list, description="The answer split: every distinct answer, most given first."
    )
    most_common_answer: str | None = None
    most_common_answer_count: int = 0
    first_asked: datetime
    last_asked: datetime
    suggestion: str = Field(description="A line for the delegation template, so the question is not asked again.")

    @property
    def unanimous(self) -> bool:
        """Answered at least twice, and the same way every time: a rule waiting to be written down."""
        return self.answered >= 2 and len(self.answers) == 1


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


def find_clusters(
    items: Sequence[Fact] | Sequence[Decision], *, min_size: int = 2, min_sources: int = 2
) -> list[Cluster]:
    """Recurring questions among ``items`` (decisions, or the report's facts of them), largest first.

    Ties are broken by more distinct sources, then the most recently asked, then the text, so the
    order is deterministic.
    """
    decisions = [item if isinstance(item, Fact) else Fact.of(item) for item in items]
    n = len(decisions)
    uf = _UnionFind(n)
    keys = [d.cluster_key for d in decisions]
    first_by_key: dict[str, int] = {}
    first_by_text: dict[str, int] = {}
    for i, d in enumerate(decisions):
        if (first := first_by_key.setdefault(d.key, i)) != i:
            uf.union(i, first)
        if (first := first_by_text.setdefault(keys[i], i)) != i:
            uf.union(i, first)

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
        clusters.append(_cluster(decisions, members, keys, len(sources)))
    clusters.sort(key=lambda c: (-c.size, -c.sources, -c.last_asked.timestamp(), c.pattern))
    return clusters


def _cluster(decisions: Sequence[Fact], members: list[int], keys: list[str], sources: int) -> Cluster:
    # Members are in the order of ``decisions``; oldest first when the caller sorted them (the report does).
    members = sorted(members, key=lambda i: (decisions[i].created_at, decisions[i].id))
    # Pattern: the most common key; on a tie, the one asked most recently. Its latest wording represents it.
    key_counts = Counter(keys[i] for i in members)
    latest = {keys[i]: position for position, i in enumerate(members)}
    pattern = max(key_counts, key=lambda k: (key_counts[k], latest[k]))
    representative = shorten(decisions[members[latest[pattern]]].question, MAX_REPRESENTATIVE)

    answers = [decisions[i].answer_value or "" for i in members if decisions[i].answered]
    counts: Counter[str] = Counter()
    shown: dict[str, tuple[int, str]] = {}  # casefolded value -> (last position, value as last given)
    for position, value in enumerate(answers):
        folded = value.strip().casefold()
        counts[folded] += 1
        shown[folded] = (position, value.strip())
    split = [
        AnswerCount(value=shown[folded][1], count=counts[folded])
        for folded in sorted(counts, key=lambda v: (-counts[v], -shown[v][0]))
    ]
    readable = shorten(pattern[:1].upper() + pattern[1:], MAX_REPRESENTATIVE)
    size = len(members)
    return Cluster(
        size=size,
        sources=sources,
        origins=sorted({decisions[i].origin for i in members}),
        keys=sorted({decisions[i].key for i in members}),
        pattern=pattern,
        representative=representative,
        decision_ids=[decisions[i].id for i in members],
        answered=len(answers),
        open=sum(1 for i in members if decisions[i].state == "open"),
        answers=split,
        most_common_answer=split[0].value if split else None,
        most_common_answer_count=split[0].count if split else 0,
        first_asked=decisions[members[0]].created_at,
        last_asked=decisions[members[-1]].created_at,
        suggestion=f"Decide up front: {readable} ({split_text(split, len(answers), size)})",
    )


def split_text(split: Sequence[AnswerCount], answered: int, asked: int) -> str:
    """``"answered 4 times: remaining 3, full 1"``; says so when the answers agree or there are none."""
    if not answered:
        return f"asked {asked} times; not answered yet"
    times = f"{answered} time{'s' if answered != 1 else ''}"
    if len(split) == 1:
        value = shorten(split[0].value, MAX_ANSWER_IN_SUGGESTION)
        return f"answered {times}, always: {value}" if answered > 1 else f"answered once: {value}"
    named = ", ".join(f"{shorten(a.value, MAX_ANSWER_IN_SUGGESTION)} {a.count}" for a in split[:ANSWERS_IN_SUGGESTION])
    rest = len(split) - ANSWERS_IN_SUGGESTION
    more = f", and {rest} other answer{'s' if rest != 1 else ''}" if rest > 0 else ""
    return f"answered {times}, answers split: {named}{more}"


def shorten(text: str, limit: int) -> str:
    """Whitespace collapsed, cut at ``limit`` characters with an ellipsis."""
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
