"""The report: figures on a constructed history with known answers, the renderers, the CLI (the dashboard's
text: tests/report/test_dashboard_body.py)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
import tomllib
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from parkbot.cli import report as report_cli
from parkbot.cli.common import State
from parkbot.cli.report import REPORT_COMMANDS, parse_since, report, with_progress
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision, LogEntry
from parkbot.core.questions import cluster_key
from parkbot.core.tracker import Location
from parkbot.markdown import ZWJ
from parkbot.report import (
    AnswerCount,
    OwnerRow,
    Report,
    compute_report,
    find_clusters,
    render,
    run_report,
)
from parkbot.report.clusters import split_text
from parkbot.report.figures import nearest_rank
from parkbot.report.render import verdict
from tests.support.memory_tracker import MemoryTracker
from tests.support.report import NOW, REFUND, REFUSALS, SCRIPT, SINCE, at, history, make

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rep() -> Report:
    return compute_report(history(), REFUSALS, since=SINCE, now=NOW)


# --- figures ----------------------------------------------------------------------------------


def test_counts(rep: Report) -> None:
    assert (rep.asked, rep.open, rep.resolved, rep.abandoned) == (12, 2, 9, 1)
    assert rep.open_total == 3  # the two open in the window, and the one asked before it
    assert rep.reviews == 1


def test_time_to_answer_median_and_nearest_rank_p90(rep: Report) -> None:
    # Durations in hours: 1 2 3 4 5 6 7 8 10. Median: the 5th. p90: rank ceil(0.9 * 9) = 9, i.e. 10h.
    assert rep.time_to_answer.n == 9
    assert rep.time_to_answer.median_seconds == 5 * 3600
    assert rep.time_to_answer.p90_seconds == 10 * 3600


def test_nearest_rank_definition() -> None:
    values = [float(v) for v in range(1, 11)]  # 1..10
    assert nearest_rank(values, 90) == 9.0  # rank ceil(9.0) = 9
    assert nearest_rank(values, 91) == 10.0  # rank ceil(9.1) = 10
    assert nearest_rank([7.0], 90) == 7.0
    assert nearest_rank(values, 100) == 10.0
    with pytest.raises(ValueError):
        nearest_rank([], 90)


def test_median_with_even_count_is_the_mean_of_the_middle_two() -> None:
    decisions = [
        make(f"o-{i}", "k", f"q{i}?", at(3), state="resolved", answer="x", after=timedelta(hours=hours))
        for i, hours in enumerate([1, 2, 4, 8])
    ]
    figures = compute_report(decisions, [], since=SINCE, now=NOW).time_to_answer
    assert figures.median_seconds == 3 * 3600
    assert figures.p90_seconds == 8 * 3600  # rank ceil(3.6) = 4


def test_guess_vs_answer_is_exact(rep: Report) -> None:
    # Eight answered decisions carry a guess; three answers differ (billing-2, billing-3 run r2, deploy-2).
    # "REMAINING" against the guess "remaining" is the same answer.
    assert (rep.guess_vs_answer.count, rep.guess_vs_answer.n) == (3, 8)
    assert rep.guess_vs_answer.share == 0.375


def test_shares(rep: Report) -> None:
    assert (rep.answered_by_precedent.count, rep.answered_by_precedent.n) == (1, 9)
    assert (rep.answered_by_default.count, rep.answered_by_default.n) == (1, 9)
    assert (rep.escalated.count, rep.escalated.n) == (1, 12)
    # Two refusals in the window; the older one and the non-refusal event do not count.
    assert (rep.refused_by_cap.count, rep.refused_by_cap.n) == (2, 14)
    assert rep.refused_by_cap.share == 2 / 14
    assert rep.refusals_by_reason == {"per_origin_cap": 1, "per_run_cap": 1}


def test_refusal_events_may_be_models_and_other_events_are_skipped() -> None:
    class RefusalEvent(BaseModel):
        at: datetime
        origin: str
        run: str | None
        reason: str

    events = [
        RefusalEvent(at=at(3), origin="a", run=None, reason="per_run_cap"),
        {"type": "cap_refused", "at": "2024-06-04T10:00:00Z", "origin": "b", "run": "r", "reason": "per_origin_cap"},
        {"kind": "resolved", "at": at(5), "origin": "c", "run": None, "reason": "x"},
        {"at": "not a time", "origin": "d", "run": None, "reason": "x"},
        "garbage",
    ]
    rep = compute_report([], events, since=SINCE, now=NOW)
    assert (rep.refused_by_cap.count, rep.refused_by_cap.n, rep.refused_by_cap.share) == (2, 2, 1.0)
    assert rep.refusals_by_reason == {"per_origin_cap": 1, "per_run_cap": 1}


def test_empty_inputs_give_none_shares() -> None:
    empty = compute_report([], [], since=SINCE, now=NOW)
    assert empty.asked == 0
    assert empty.guess_vs_answer.share is None
    assert empty.time_to_answer.median_seconds is None
    assert empty.clusters == []
    assert [w.count for w in empty.weekly] == [0, 0, 0, 0, 0]


def test_weekly_buckets_are_exact_and_zero_filled(rep: Report) -> None:
    assert [w.week for w in rep.weekly] == ["2024-W22", "2024-W23", "2024-W24", "2024-W25", "2024-W26"]
    assert [w.count for w in rep.weekly] == [1, 3, 0, 5, 3]
    assert [w.partial for w in rep.weekly] == [True, False, False, False, True]
    assert str(rep.weekly[1].start) == "2024-06-03"


def test_weekly_buckets_across_a_year_boundary() -> None:
    since, now = datetime(2020, 12, 28, tzinfo=UTC), datetime(2021, 1, 10, 23, tzinfo=UTC)
    decisions = [make("y-1", "k", "q?", datetime(2021, 1, 3, tzinfo=UTC))]
    weeks = compute_report(decisions, [], since=since, now=now).weekly
    assert [(w.week, w.count) for w in weeks] == [("2020-W53", 1), ("2021-W01", 0)]


def test_oldest_open_order_includes_questions_asked_before_the_window(rep: Report) -> None:
    assert [o.id for o in rep.oldest_open] == [
        "old-1-decision-ancient",
        "docs-1-decision-banner",
        "docs-2-decision-tone",
    ]
    first = rep.oldest_open[0]
    assert first.owner == "dave"
    assert first.age_seconds == (NOW - at(1, month=5)).total_seconds()


def test_oldest_open_keeps_the_ten_oldest() -> None:
    decisions = [make(f"o-{i}", "k", f"q{i}?", NOW - timedelta(hours=i + 1)) for i in range(15)]
    rep = compute_report(reversed(decisions), [], since=SINCE, now=NOW)
    assert [o.id for o in rep.oldest_open] == [f"o-{i}-decision-k" for i in range(14, 4, -1)]
    assert rep.open_total == 15


def test_duplicates_from_a_paginating_backend_count_once() -> None:
    first = make("dup-1", "k", "q?", at(3))
    later = first.model_copy(update={"state": "abandoned", "updated_at": at(4)})
    rep = compute_report([later, first], [], since=SINCE, now=NOW)
    assert (rep.asked, rep.abandoned, rep.open) == (1, 1, 0)


def test_naive_timestamps_are_taken_as_utc() -> None:
    naive = make("n-1", "k", "q?", datetime(2024, 6, 3, 10), state="resolved", answer="x")
    rep = compute_report([naive], [], since=SINCE.replace(tzinfo=None), now=NOW)
    assert rep.asked == 1
    assert rep.time_to_answer.median_seconds == 3600


def test_since_after_now_is_an_error() -> None:
    with pytest.raises(ValueError):
        compute_report([], [], since=NOW, now=SINCE)


def test_weekly_median_time_to_answer_beside_the_rate(rep: Report) -> None:
    # W22: 1h. W23: 2h, 3h, 5h. W25: 4h, 6h, 7h, 8h, 10h. W26: three asked, none answered yet.
    assert [w.answered for w in rep.weekly] == [1, 3, 0, 5, 0]
    assert [w.median_seconds for w in rep.weekly] == [3600, 3 * 3600, None, 7 * 3600, None]


def test_owners_table_shows_who_is_the_bottleneck() -> None:
    h = timedelta(hours=1)
    decisions = [
        # bob: two waiting (the older one since day 2), answers slowly.
        make("a-1", "k", "q1?", at(2), owner="bob"),
        make("a-2", "k", "q2?", at(9), owner="bob", blocking=False),
        make("a-3", "k", "q3?", at(3), owner="bob", state="resolved", answer="x", after=30 * h),
        make("a-4", "k", "q4?", at(4), owner="bob", state="resolved", answer="x", after=50 * h),
        # carol: one waiting since day 20, answers fast.
        make("b-1", "k", "q5?", at(20), owner="carol@example.com"),
        make("b-2", "k", "q6?", at(5), owner="carol@example.com", state="resolved", answer="x", after=h),
        # dave: nothing waiting, answered once, in the window.
        make("c-1", "k", "q7?", at(6), owner="dave", state="resolved", answer="x", after=2 * h),
        # erin: waiting since before the window (counts: open now), answered nothing in it.
        make("d-1", "k", "q8?", at(1, month=5), owner="erin"),
        make("d-2", "k", "q9?", at(2, month=5), owner="erin", state="resolved", answer="x", after=h),
    ]
    rep = compute_report(decisions, [], since=SINCE, now=NOW)
    assert rep.owners == [
        OwnerRow(
            owner="bob",
            open=2,
            blocking=1,
            oldest_open_id="a-1-decision-k",
            oldest_open_seconds=(NOW - at(2)).total_seconds(),
            answered=2,
            median_seconds=40 * 3600,
        ),
        OwnerRow(
            owner="erin",
            open=1,
            blocking=1,
            oldest_open_id="d-1-decision-k",
            oldest_open_seconds=(NOW - at(1, month=5)).total_seconds(),
            answered=0,
            median_seconds=None,
        ),
        OwnerRow(
            owner="carol@example.com",
            open=1,
            blocking=1,
            oldest_open_id="b-1-decision-k",
            oldest_open_seconds=(NOW - at(20)).total_seconds(),
            answered=1,
            median_seconds=3600,
        ),
        OwnerRow(owner="dave", open=0, blocking=0, answered=1, median_seconds=2 * 3600),
    ]
    text = render(rep, "md")
    assert "| bob | 2 | 1 | 28d 2h: `parkbot show a-1-decision-k` | 1d 16h | 2 |" in text
    assert "| carol@example.com | 1 | 1 |" in text  # the e-mail address is left intact
    assert "| dave | 0 | 0 | \u2013 | 2h | 1 |" in text


def test_decisions_are_linked_where_the_backend_has_a_page() -> None:
    asked: list[str] = []

    def link(decision: Decision) -> str | None:
        asked.append(decision.id)
        if decision.origin.startswith("billing"):
            return f"https://github.example/acme/shop/issues/{len(asked)}"
        if decision.origin == "docs-1":
            return "javascript:alert(1)"  # never linked
        return None

    rep = compute_report(history(), REFUSALS, since=SINCE, now=NOW, link=link)
    assert sorted(asked) == sorted({d.id for d in history()})  # asked once per decision, while it is read
    # Only the decisions the report shows keep their address: the clusters' here (the open ones have none).
    assert set(rep.links) == {
        "billing-1-decision-refund",
        "billing-2-decision-refund-choice",
        "billing-3-decision-partial-refund",
        "billing-3-decision-partial-refund-2",
        "docs-1-decision-banner",
    }
    text = render(rep, "md")
    url = rep.links["billing-1-decision-refund"]
    assert f"[`billing-1-decision-refund`]({url})" in text
    assert "`parkbot show deploy-1-decision-db-region`" in text  # no page: the command that shows it
    assert "javascript:" not in text
    assert "| `parkbot show docs-1-decision-banner` |" in text
    page = render(rep, "html")
    assert f'<a href="{url}"><code>billing-1-decision-refund</code></a>' in page
    assert "javascript:" not in page
    assert '<code title="Open it with this command">parkbot show old-1-decision-ancient</code>' in page


def test_only_facts_of_each_decision_are_kept_while_reading() -> None:
    """A backend that yields decisions one by one is never held in memory whole."""

    def stream() -> Iterator[Decision]:
        for i in range(3000):
            yield make(
                f"m-{i}",
                "k",
                f"Question {i}?",
                at(3) + timedelta(minutes=i),
                state="resolved",
                answer="x",
                title="t" * 100,
            ).model_copy(update={"work_so_far": {"log": f"{i:04d}" * 1000}})

    tracemalloc.start()
    try:
        compute_report(stream(), [], since=SINCE, now=NOW)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Holding the decisions would take more than 3,000 x 4 KB of work alone (12 MB); the facts take far less.
    assert peak < 6 * 2**20, f"peak {peak / 2**20:.1f} MB"


# --- clusters ---------------------------------------------------------------------------------


def test_the_refund_cluster_is_found_largest_first_with_its_answer_split(rep: Report) -> None:
    assert len(rep.clusters) == 2
    refund, region = rep.clusters
    assert refund.size == 4
    assert refund.sources == 4
    assert refund.origins == ["billing-1", "billing-2", "billing-3"]
    assert refund.answered == 4
    assert refund.open == 0
    # "REMAINING" is the same answer as "remaining"; the split shows the form given last.
    assert refund.answers == [AnswerCount(value="remaining", count=3), AnswerCount(value="full", count=1)]
    assert (refund.most_common_answer, refund.most_common_answer_count) == ("remaining", 3)
    assert not refund.unanimous
    assert refund.pattern == (
        "order <id> has <n> line items already refunded. refund the remaining <n>, or the full original total of <n>"
    )
    assert refund.representative == REFUND.format(id="D-77", n=5, m=2, t="1,250.00")  # as last asked
    assert refund.suggestion == (
        "Decide up front: Order <id> has <n> line items already refunded. refund the remaining <n>, "
        "or the full original total of <n> (answered 4 times, answers split: remaining 3, full 1)"
    )
    assert region.keys == ["db-region"]
    assert region.size == 2
    assert region.answers == [
        AnswerCount(value="us", count=1),
        AnswerCount(value="eu", count=1),
    ]  # latest first on a tie
    assert region.representative == "Pick a region for the new Postgres instance."


def test_answer_split_and_what_it_says_to_do() -> None:
    def cluster_of(*answers: str | None):
        decisions = [
            make(
                f"s-{i}",
                "same",
                "Same question?",
                at(3) + timedelta(hours=i),
                state="resolved" if answer else "open",
                answer=answer,
            )
            for i, answer in enumerate(answers)
        ]
        (cluster,) = find_clusters(decisions)
        return cluster

    agreed = cluster_of("yes", "Yes ", "yes")
    assert agreed.unanimous
    assert agreed.answers == [AnswerCount(value="yes", count=3)]
    assert agreed.suggestion.endswith("(answered 3 times, always: yes)")
    assert verdict(agreed).startswith("Answered the same way all 3 times")

    split = cluster_of("a", "b", "b", "c", "d", None)
    assert [(a.value, a.count) for a in split.answers] == [("b", 2), ("d", 1), ("c", 1), ("a", 1)]
    assert split.open == 1
    assert split.suggestion.endswith("(answered 5 times, answers split: b 2, d 1, c 1, and 1 other answer)")
    assert verdict(split).startswith("The answers split")

    once = cluster_of("a", None)
    assert once.suggestion.endswith("(answered once: a)")
    assert not once.unanimous
    assert verdict(once) == "Answered once so far."

    waiting = cluster_of(None, None)
    assert waiting.suggestion.endswith("(asked 2 times; not answered yet)")
    assert verdict(waiting).startswith("Not answered yet")
    assert split_text([], 0, 7) == "asked 7 times; not answered yet"


def test_singletons_and_same_run_repeats_are_not_clusters(rep: Report) -> None:
    clustered = {i for c in rep.clusters for i in c.decision_ids}
    assert "docs-1-decision-banner" not in clustered
    assert "etl-1-decision-fmt-a" not in clustered  # same text twice, but one origin and run


def test_key_and_text_relations_are_transitive() -> None:
    decisions = [
        make("t-1", "shared", "First wording?", at(3)),
        make("t-2", "shared", "Second wording, order 17?", at(4)),
        make("t-3", "other", "Second wording, order 99?", at(5)),
        make("t-4", "alone", "Unrelated?", at(6)),
    ]
    (cluster,) = find_clusters(decisions)
    assert cluster.decision_ids == ["t-1-decision-shared", "t-2-decision-shared", "t-3-decision-other"]
    assert cluster.suggestion.endswith("(asked 3 times; not answered yet)")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Refund order A-4471 for 412.00?", "refund order B-9 for 690?"),
        ("Deploy commit 3f2a9c1e now?", "Deploy commit 0badc0ffee12 now?"),
        ("Delete 123e4567-e89b-12d3-a456-426614174000?", "Delete 00000000-0000-0000-0000-00000000abcd?"),
        ("Rename 'alpha' to \"beta\"?", "Rename 'gamma' to \"delta\"?"),
        ("Rename \u201calpha\u201d?", "Rename `beta`?"),
        ("Use  `make   build`\n\tor not?", "use `npm run build` or not?"),
        ("Upgrade the v2 client?", "Upgrade the v3 client"),
    ],
)
def test_the_cluster_key_sets_specifics_aside(a: str, b: str) -> None:
    assert cluster_key(a) == cluster_key(b)


def test_the_cluster_key_keeps_words() -> None:
    assert cluster_key("Is it a decade?") == "is it a decade"
    assert cluster_key("Refund all?") != cluster_key("Refund none?")
    assert cluster_key("Order A-1 costs 5") == "order <id> costs <n>"


_TEXTS = ["Refund order A-{n}?", "refund order B-{n}  ?", "Ship to {n} stores?", "Keep 'x{n}' or drop it?"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["o1", "o2", "o3"]),  # origin
            st.sampled_from([None, "r1"]),  # run
            st.sampled_from(["k1", "k2", "k3", "k4"]),  # key
            st.sampled_from(range(len(_TEXTS))),  # wording
            st.integers(0, 99),  # the specifics
        ),
        max_size=12,
    )
)
def test_clusters_are_the_connected_components_of_same_key_or_same_text(rows) -> None:
    decisions = [
        make(origin, key, _TEXTS[t].format(n=n), at(3) + timedelta(minutes=i), run=run).model_copy(
            update={"id": f"d{i:02d}"}
        )
        for i, (origin, run, key, t, n) in enumerate(rows)
    ]
    # Reference: pairwise relation, then connected components by search (quadratic, fine for a dozen).
    related = [
        [a.key == b.key or cluster_key(a.question) == cluster_key(b.question) for b in decisions] for a in decisions
    ]
    seen: set[int] = set()
    expected = set()
    for start in range(len(decisions)):
        if start in seen:
            continue
        component, frontier = {start}, [start]
        while frontier:
            i = frontier.pop()
            for j in range(len(decisions)):
                if related[i][j] and j not in component:
                    component.add(j)
                    frontier.append(j)
        seen |= component
        sources = {(decisions[i].origin, decisions[i].run) for i in component}
        if len(component) >= 2 and len(sources) >= 2:
            expected.add(frozenset(decisions[i].id for i in component))
    clusters = find_clusters(decisions)
    assert {frozenset(c.decision_ids) for c in clusters} == expected
    assert [c.size for c in clusters] == sorted((c.size for c in clusters), reverse=True)


def test_clusters_scale_linearly() -> None:
    # 10,000 questions over 100 templates: bucketing finds exactly 100 clusters of 100.
    def topic(j: int) -> str:
        return chr(97 + j // 10) + chr(97 + j % 10)  # "aa" .. "jj": words, not numbers

    decisions = [
        make(
            f"o-{i % 500}",
            f"k-{i}",
            f"Which {topic(i % 100)} setting for item A-{i} ({i} of 10000)?",
            at(3),
            run=f"r{i}",
        )
        for i in range(10_000)
    ]
    clusters = find_clusters(decisions)
    assert len(clusters) == 100
    assert {c.size for c in clusters} == {100}


# --- rendering --------------------------------------------------------------------------------


class TagBalance(HTMLParser):
    """Every opened tag must be closed, in order; void elements need no end tag."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "wbr", "col"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.seen: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.add(tag)
        self.attrs += attrs
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.add(tag)
        self.attrs += attrs

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_well_formed_self_contained_and_escaped(rep: Report) -> None:
    page = render(rep, "html")
    parser = TagBalance()
    parser.feed(page)
    parser.close()
    assert parser.errors == []
    assert parser.stack == []
    assert {"html", "head", "style", "body", "table", "section"} <= parser.seen
    assert "script" not in parser.seen
    assert "<script" not in page.lower()
    # Autoescaped where inserted: the hostile question is text, in the owner's own words.
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt; &amp; @everyone" in page
    assert SCRIPT in "".join(parser.text)
    assert "@org/design" in page  # no invisible joiners in HTML: it pings nobody
    # No network: nothing is loaded from anywhere, and without links there is no href either.
    assert not [name for name, _ in parser.attrs if name in {"src", "href"}]
    assert f'content="{CSP}"' in page
    # The chart: one row per week, bars sized in percent of the busiest week (a fixed width would not fit a phone).
    rows = re.findall(r'<tr(?: class="partial")? title="[^"]+"><th scope="row">(2024-W\d\d\*?)</th>', page)
    assert rows == ["2024-W22*", "2024-W23", "2024-W24", "2024-W25", "2024-W26*"]
    widths = re.findall(
        r'<div class="bar count"><span class="track"><span class="fill" style="width: ([\d.]+)%">', page
    )
    assert widths == ["20.0", "60.0", "0.0", "100.0", "60.0"]
    assert "<svg" not in page
    assert not re.search(r'width="\d+"', page)
    # Every section a lead acts on is there.
    for section in ("headline", "owners", "weekly", "clusters", "oldest"):
        assert f'<section id="{section}">' in page
    assert "The answers split: settle the disagreement" in page


CSP = "default-src 'none'; style-src 'unsafe-inline'"


def test_html_templates_are_package_data() -> None:
    """The page is rendered from templates shipped inside the package, so pyproject.toml must include them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["parkbot.report"]
    templates = sorted(
        p.relative_to(ROOT / "bot" / "parkbot" / "report")
        for p in (ROOT / "bot" / "parkbot" / "report" / "templates").iterdir()
    )
    assert templates
    assert all(any(t.match(pattern) for pattern in patterns) for t in templates)
    assert any(d.startswith("Jinja2") for d in config["project"]["dependencies"])


def test_markdown_has_the_mermaid_chart_and_escapes_text(rep: Report) -> None:
    text = render(rep, "md")
    assert "```mermaid\nxychart-beta\n" in text
    assert '    x-axis ["2024-W22*", "2024-W23", "2024-W24", "2024-W25", "2024-W26*"]' in text
    assert "    bar [1, 3, 0, 5, 3]" in text
    assert "| 2024-W23 | 3 | 3 of 3 | 3h |" in text  # the median time to answer beside the rate
    assert "| 2024-W26* | 3 | 0 of 3 | \u2013 |" in text
    assert "<script>" not in text
    assert "&lt;script&gt;alert\\('pwned'\\)&lt;/script&gt; &amp; @" + ZWJ + "everyone" in text
    assert "@everyone" not in text  # defused: no mention from an agent's text
    assert "| @" + ZWJ + "org/design |" in text
    assert "37.5% (3 of 8)" in text
    assert "1. **" + REFUND.format(id="D-77", n=5, m=2, t="1,250.00") + "**" in text
    assert "   Answers: remaining: 3 · full: 1. The answers split: settle the disagreement" in text
    assert "For the delegation template: Decide up front: Order &lt;id&gt; has" in text
    assert "| `parkbot show old-1-decision-ancient` |" in text


def test_markdown_owner_e_mails_are_intact_and_mentions_are_not() -> None:
    decisions = [
        make("m-1", "k", "Ask bob@example.com or @carol?", at(3), owner="bob.smith@example.com"),
        make("m-2", "k", "q?", at(4), owner="@acme/leads"),
    ]
    text = render(compute_report(decisions, [], since=SINCE, now=NOW), "md")
    assert "| bob.smith@example.com |" in text
    assert "Ask bob@example.com or @" + ZWJ + "carol?" in text
    assert "| @" + ZWJ + "acme/leads |" in text
    assert not re.search(r"(?<![A-Za-z0-9])@[A-Za-z0-9_]", text)


def test_json_round_trips_into_the_model(rep: Report) -> None:
    text = render(rep, "json")
    assert Report.model_validate_json(text) == rep
    data = json.loads(text)
    assert data["guess_vs_answer"] == {"count": 3, "n": 8, "share": 0.375}
    assert data["clusters"][0]["answers"] == [{"value": "remaining", "count": 3}, {"value": "full", "count": 1}]
    assert data["owners"][0]["owner"] == "dave"
    assert data["weekly"][1]["median_seconds"] == 3 * 3600


def test_run_report_renders_every_format_and_rejects_others() -> None:
    for fmt in ("md", "json", "html"):
        assert run_report(history(), REFUSALS, SINCE, NOW, fmt)
    with pytest.raises(ValueError):
        run_report([], [], SINCE, NOW, "pdf")


def synthetic(count: int, since: datetime) -> Iterator[Decision]:
    """``count`` decisions, one every four minutes from ``since``: a third open and recurring, the rest
    answered (both answers), thirteen owners."""
    for i in range(count):
        created = since + timedelta(minutes=4 * i)
        owner = f"owner-{i % 13}@example.com"
        if i % 3 == 0:
            yield make(f"o-{i % 700}", f"ship-{i}", f"Ship item X-{i} to region {i % 9}?", created, owner=owner)
        else:
            yield make(
                f"o-{i % 700}",
                f"k-{i}",
                f"Question {i} about {i * 7}?",
                created,
                state="resolved",
                answer="remaining" if i % 2 else "full",
                after=timedelta(minutes=i % 600),
                guess="remaining",
                owner=owner,
            )


def test_ten_thousand_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    """The report's own work over 10,000 decisions, measured in this process (CPU time and allocations)."""
    now = SINCE + timedelta(days=30)
    decisions = list(synthetic(10_000, SINCE))
    link = lambda d: f"https://github.example/acme/shop/issues/{d.id}"  # noqa: E731
    started = time.process_time()
    rep = compute_report(iter(decisions), [], since=SINCE, now=now, link=link)
    computed = time.process_time()
    pages = {fmt: render(rep, fmt) for fmt in ("md", "json", "html")}
    rendered = time.process_time()
    tracemalloc.start()  # again, traced (tracing slows everything down, so it is not timed)
    try:
        traced = compute_report(iter(decisions), [], since=SINCE, now=now, link=link)
        for fmt in ("md", "json", "html"):
            render(traced, fmt)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    with capsys.disabled():
        print(
            f"\n10,000 decisions, the report's own work: compute {computed - started:.2f}s CPU, "
            f"render md+json+html {rendered - computed:.2f}s CPU ({sum(map(len, pages.values())):,} characters), "
            f"peak {peak / 2**20:.1f} MB allocated"
        )
    assert rep.asked == len([d for d in decisions if d.created_at <= now])
    assert rep.clusters[0].size == len([d for d in decisions if d.created_at <= now and d.state == "resolved"])
    assert len(rep.owners) == 13
    assert peak < 30 * 2**20  # a fraction of what the 10,000 decisions themselves take


WHOLE_PROCESS = """
import json, resource, sys, time
started = time.perf_counter()
from datetime import UTC, datetime, timedelta
import parkbot.cli
import parkbot.core.config
from parkbot.cli.common import State
from parkbot.core.models import Answer, Decision, Option
from parkbot.core.tracker import Location

SINCE = datetime.now(UTC) - timedelta(days=29)
OPTIONS = [Option(id="remaining", label="Refund the remaining items"), Option(id="full", label="Refund it all")]


def stream(count):
    # As the git backlog reads decisions: one at a time, each parsed from its own file.
    for i in range(count):
        created = SINCE + timedelta(minutes=4 * i)
        answer = None
        if i % 3:
            value = "remaining" if i % 2 else "full"
            answer = Answer(value=value, kind="option", by="bob", at=created + timedelta(minutes=i % 600))
        question = f"Ship item X-{i} to region {i % 9}?" if i % 3 == 0 else f"Question {i} about {i * 7}?"
        yield Decision(
            id=f"o-{i % 700}-decision-k-{i}", kind="decision", origin=f"o-{i % 700}", key=f"k-{i}",
            title=question, question=question, options=OPTIONS, guess="remaining",
            owner=f"owner-{i % 13}@example.com", state="resolved" if answer else "open", answer=answer,
            created_at=created, updated_at=answer.at if answer else created,
        )


class Tracker:
    backend = "git"

    def iter_decisions(self, state=None):
        return stream(10_000)

    def iter_log(self):
        return iter(())

    def location(self, decision):
        return Location(backend="git", ref="refs/parkbot/backlog", path=decision.id)


class Backend:
    tracker = Tracker()
    name = "git"
    config = parkbot.core.config.Config()


State.backend = property(lambda self: Backend())
code = None
try:
    parkbot.cli.cli.main(["report", "--since", "30d", "--format", sys.argv[1], "--output", sys.argv[2]], "parkbot")
except SystemExit as exc:
    code = exc.code
usage = resource.getrusage(resource.RUSAGE_SELF)
# The peak of this program's own memory. ru_maxrss would also count the test process this one was forked
# from (Linux keeps it across exec); VmHWM is the high-water mark of the current address space.
try:
    with open("/proc/self/status", encoding="ascii") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak_kb = usage.ru_maxrss
print(json.dumps({"code": code, "wall": time.perf_counter() - started, "cpu": usage.ru_utime + usage.ru_stime,
                  "max_rss_mb": peak_kb / 1024}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_parkbot_report_over_ten_thousand_decisions_as_a_whole_process(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``parkbot report`` in a process of its own, over a backend that streams 10,000 decisions (as the git
    backlog reads them, one file at a time): the figures include Python, every import and building the
    decisions. Memory is asserted (under 100 MB); time is printed, since other work shares this machine."""
    out = tmp_path / f"report.{fmt}"
    done = subprocess.run(
        [sys.executable, "-c", WHOLE_PROCESS, fmt, str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    with capsys.disabled():
        print(
            f"\nparkbot report --format {fmt} over 10,000 streamed decisions, whole process: "
            f"{figures['wall']:.2f}s wall, {figures['cpu']:.2f}s CPU, {figures['max_rss_mb']:.0f} MB max RSS"
        )
    assert figures["code"] == 0
    assert "parkbot report" in out.read_text(encoding="utf-8")
    assert figures["max_rss_mb"] < 100


# --- the CLI ----------------------------------------------------------------------------------


class FakeTracker(MemoryTracker):
    """The reference in-memory tracker, seeded with a history and its refusal log lines."""

    def __init__(self, decisions: list[Decision], events: list[dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.items = {d.id: d for d in decisions}
        for event in events or []:
            if "type" not in event:
                self.log.append(LogEntry(event="refused", **event))


class FakeBackend:
    def __init__(self, tracker: FakeTracker) -> None:
        self.tracker = tracker
        self.name = "fake"
        self.config = Config()


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch):
    def run(*args: str, tracker: FakeTracker | None = None):
        backend = FakeBackend(tracker or FakeTracker(history(), REFUSALS))
        monkeypatch.setattr(State, "backend", property(lambda self: backend))
        return CliRunner().invoke(report, list(args))

    return run


def test_cli_is_exposed_for_registration() -> None:
    assert [report] == REPORT_COMMANDS
    assert report.name == "report"


def test_cli_json_with_events_from_the_tracker(cli) -> None:
    result = cli("--since", "2024-01-01", "--format", "json")
    assert result.exit_code == 0, result.output
    parsed = Report.model_validate_json(result.stdout)
    assert parsed.refused_by_cap.count == 3  # the three refusals since January
    assert parsed.asked == 14  # plus the one asked in May, and the "future" one (now is the real clock)


def test_cli_without_iter_events_counts_no_refusals(cli) -> None:
    result = cli("--since", "2024-01-01", "--json", tracker=FakeTracker(history()))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["refused_by_cap"] == {"count": 0, "n": 14, "share": 0.0}


def test_cli_markdown_by_default_and_no_progress_without_a_terminal(cli) -> None:
    result = cli("--since", "3650d")
    assert result.exit_code == 0, result.output
    assert "```mermaid" in result.stdout
    assert result.stderr == ""


def test_cli_writes_html_to_a_file(cli, tmp_path) -> None:
    target = tmp_path / "report.html"
    result = cli("--since", "520w", "--format", "html", "--output", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert '<table class="chart"' in target.read_text(encoding="utf-8")


class LinkingTracker(FakeTracker):
    """A tracker whose decisions have web pages, as on GitHub."""

    def location(self, decision: Decision) -> Location:
        return Location(backend="github", number=7, url=f"https://github.example/acme/shop/issues/{decision.id}")


def test_cli_links_every_decision_it_shows_to_its_page(cli) -> None:
    result = cli("--since", "3650d", tracker=LinkingTracker(history(), REFUSALS))
    assert result.exit_code == 0, result.output
    assert "[`old-1-decision-ancient`](https://github.example/acme/shop/issues/old-1-decision-ancient)" in result.stdout
    assert "parkbot show" not in result.stdout
    plain = cli("--since", "3650d")  # the in-memory tracker has no pages: the command that shows each one
    assert "`parkbot show old-1-decision-ancient`" in plain.stdout


@pytest.mark.parametrize("since", ["30x", "yesterday", "0d", "-3d", "2999-01-01", "9999999w"])
def test_cli_invalid_since_exits_2(cli, since: str) -> None:
    result = cli("--since", since)
    assert result.exit_code == 2
    assert "--since" in result.stderr


def test_cli_json_flag_conflicting_with_format_exits_2(cli) -> None:
    assert cli("--json", "--format", "html").exit_code == 2


def test_parse_since() -> None:
    assert parse_since("30d", NOW) == NOW - timedelta(days=30)
    assert parse_since("2w", NOW) == NOW - timedelta(weeks=2)
    assert parse_since(" 12H ", NOW) == NOW - timedelta(hours=12)
    assert parse_since("2024-05-01", NOW) == datetime(2024, 5, 1, tzinfo=UTC)
    assert parse_since("2024-05-01T02:00:00+02:00", NOW) == datetime(2024, 5, 1, tzinfo=UTC)
    with pytest.raises(InvalidInput):
        parse_since("soon", NOW)


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert list(with_progress(iter(range(5)), "Reading")) == [0, 1, 2, 3, 4]
    assert quiet.getvalue() == ""

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(with_progress(iter(range(5)), "Reading")) == [0, 1, 2, 3, 4]
    assert "Reading" in terminal.getvalue()
    assert report_cli.with_progress is with_progress
