"""What parkbot writes on GitHub reads back exactly, fits GitHub's limits and cannot be subverted."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parkbot.core.models import Answer, Citation, Decision, Escalation, Option
from parkbot.core.tracker import GateResult
from parkbot.trackers.github import render
from parkbot.trackers.github.text import GITHUB_BODY_LIMIT

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
#: A mention GitHub would link: an ``@`` that does not follow a letter or digit, then a name character.
MENTION = re.compile(r"(?<![A-Za-z0-9])@[A-Za-z0-9_]")


def decision(**changes: Any) -> Decision:
    data: dict[str, Any] = {
        "id": "billing-42-decision-refund",
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope for order A-4471",
        "question": "Refund the remaining three, or the full total? cc @bob",
        "options": [Option(id="remaining_three", label="412.00"), Option(id="full_original", label="690.00")],
        "work_so_far": {"verified": ["A-4471"], "pending": ["refund"]},
        "guess": "remaining_three",
        "run": "run-7",
        "dependents": ["#12"],
        "owner": "alice",
        "created_at": NOW,
        "updated_at": NOW,
    }
    data.update(changes)
    return Decision(**data)


def answer(**changes: Any) -> Answer:
    data: dict[str, Any] = {"value": "full_original", "by": "alice", "at": NOW, "source": "https://x/1#c-9"}
    data.update(changes)
    return Answer(**data)


def test_body_has_every_part_in_order() -> None:
    body = render.render_decision(decision()).body
    parts = [
        "Refund the remaining three",
        "`/decide remaining_three`",
        "`/decide full_original`",
        "/default <option-id>",
        "<details><summary>Work so far</summary>",
        "```json",
        "| Origin | `billing-42` |",
        "| Run | `run-7` |",
        "| Agent's guess | `remaining_three` |",
        "| Owner | `alice` |",
        "<!-- parkbot:decision {",
    ]
    positions = [body.index(p) for p in parts]
    assert positions == sorted(positions)
    assert body.rstrip().endswith("-->")


def test_parse_of_render_is_identity() -> None:
    d = decision(
        escalations=[Escalation(from_owner="alice", to_owner="carol", by="alice", at=NOW)],
        owner="carol",
        answer=answer(),
        state="resolved",
        precedent=Citation(decision="x-decision-y", answer="a", answered_by="bob", answered_at=NOW),
    )
    assert render.parse_decision(render.render_decision(d).body) == d


names = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?", fullmatch=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=30),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=12,
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    question=st.text(min_size=1, max_size=300),
    title=st.text(min_size=1, max_size=80),
    labels=st.lists(st.text(min_size=1, max_size=40).filter(str.strip), min_size=0, max_size=3),
    work=json_values,
    run=st.none() | st.text(min_size=1, max_size=40),
    owner=st.sampled_from(["alice", "@acme/leads", "bob@example.com"]),
)
def test_round_trip_for_any_untrusted_text(
    question: str, title: str, labels: list[str], work: Any, run: str | None, owner: str
) -> None:
    options = [Option(id=f"o{i}", label=label) for i, label in enumerate(labels)]
    d = decision(question=question, title=title, options=options, work_so_far=work, run=run, owner=owner, guess=None)
    rendered = render.render_decision(d)
    assert render.parse_decision(rendered.body) == d
    assert len(rendered.body) <= GITHUB_BODY_LIMIT
    # exactly one hidden block, at the end: the text could not open or close another one
    assert rendered.body.count("<!--") == 1
    assert rendered.body.count("-->") == 1
    visible = rendered.body.split("<!-- parkbot:decision")[0]
    outside_code = re.sub(r"(`+)(?:(?!\1).)*?\1", "", visible)  # code spans never ping
    assert not MENTION.search(outside_code)


def test_breakout_attempts_stay_inside() -> None:
    evil = '--> <img src=x onerror=alert(1)> <!-- parkbot:decision {"id":"other"} --> @everyone'
    d = decision(question=evil, title=evil[:100], work_so_far={"x": evil})
    body = render.render_decision(d).body
    assert body.count("<!--") == 1
    assert "<img" not in body
    assert render.parse_decision(body) == d


def test_team_owner_is_shown_not_mentioned() -> None:
    body = render.render_decision(decision(owner="@acme/leads")).body
    assert "`@acme/leads`" in body
    assert not MENTION.search(body.replace("`@acme/leads`", "").split("<!--")[0])


def test_free_text_and_review_items_show_their_commands() -> None:
    free = render.render_decision(decision(options=[], guess=None)).body
    assert "`/answer <your answer>`" in free
    from parkbot.core.models import Assumption

    review = decision(kind="review", options=[], guess=None, assumptions=[Assumption(text="EUR")], blocking=False)
    body = render.render_decision(review).body
    assert "`/accept`" in body
    assert "/override <n>" in body


def test_resolved_body_shows_the_answer_first() -> None:
    body = render.render_decision(decision(state="resolved", answer=answer())).body
    assert body.startswith("> [!NOTE]\n> **Answered:** `full_original`")


def test_large_work_is_kept_compressed_in_the_block() -> None:
    work = {"log": [f"step {i}: verified order A-{i} and nothing else happened" for i in range(6000)]}
    d = decision(work_so_far=work)
    rendered = render.render_decision(d)
    assert rendered.storage == "packed"
    assert not rendered.overflow
    assert len(rendered.body) <= GITHUB_BODY_LIMIT
    assert "Cut for display" in rendered.body
    assert render.parse_decision(rendered.body) == d


def test_incompressible_work_goes_to_follow_up_comments() -> None:
    blob = os.urandom(150_000).hex()  # 300k characters that do not compress much
    d = decision(work_so_far={"blob": blob[:200_000]})
    rendered = render.render_decision(d)
    assert rendered.storage == "comments"
    assert len(rendered.overflow) >= 2
    assert all(len(c) <= GITHUB_BODY_LIMIT for c in (rendered.body, *rendered.overflow))
    ref = render.overflow_ref(rendered.body)
    assert ref is not None
    assert ref.chunks == len(rendered.overflow)
    assert render.parse_decision(rendered.body, reversed(rendered.overflow)) == d
    with pytest.raises(render.ParseError, match="missing"):
        render.parse_decision(rendered.body, rendered.overflow[:-1])


def test_damaged_or_missing_blocks_are_parse_errors() -> None:
    with pytest.raises(render.ParseError):
        render.parse_decision("just an issue")
    with pytest.raises(render.ParseError):
        render.parse_decision("<!-- parkbot:decision {not json} -->")
    with pytest.raises(render.ParseError):
        render.parse_decision('<!-- parkbot:decision {"v":1,"id":"x"} -->')


def test_markers_round_trip_and_only_count_at_the_start() -> None:
    text = render.marker("reply", "12345", {"a": "<b>@c</b>"}) + "\nhello"
    found = render.read_marker(text)
    assert found == render.Marker("reply", "12345", {"a": "<b>@c</b>"})
    assert render.read_marker("quoted: " + text) is None
    assert render.read_marker(None) is None
    with pytest.raises(ValueError, match="invalid marker"):
        render.marker("Bad Kind", "k")


def test_answer_comment_round_trips_who_what_when_and_source() -> None:
    d = decision()
    a = answer()
    body = render.render_answer_comment(d, a)
    assert render.parse_answer_comment(body, d.id) == a
    assert render.parse_answer_comment(body, "other-decision-id") is None
    assert "`alice`" in body
    default = render.render_answer_comment(d, answer(kind="default"))
    assert "explicit default" in default
    assert "assumption" in default


def test_free_text_answers_are_quoted_and_neutralized() -> None:
    body = render.render_answer_comment(decision(), answer(value="ask @bob <b>now</b>", kind="free_text"))
    assert "<b>" not in body.split("-->", 1)[1]
    assert not MENTION.search(body.split("-->", 1)[1])


def test_pointer_comment_links_the_answer() -> None:
    body = render.render_pointer_comment(decision(), answer(), issue_number=7, url="https://x/7#issuecomment-1")
    marker = render.read_marker(body)
    assert marker is not None
    assert (marker.kind, marker.key) == ("pointer", "billing-42-decision-refund")
    assert "Decision #7" in body
    assert "(https://x/7#issuecomment-1)" in body


def test_gate_descriptions_fit_140_characters() -> None:
    many = tuple(decision(id=f"origin-{i:03d}-decision-some-long-question-key") for i in range(10))
    blocked = GateResult("#1", blocking=many)
    assert render.gate_state(blocked) == "pending"
    assert len(render.gate_description(blocked)) <= 140
    assert render.gate_description(blocked).startswith("Waiting for 10 open decisions: origin-000")
    assert render.gate_state(GateResult("#1")) == "success"
    assert render.gate_description(GateResult("#1")) == "No open decisions"
    assert render.gate_description(GateResult("#1", resolved=many[:1])) == "All 1 linked decision answered"


def test_reply_marker_is_keyed_by_the_command_comment() -> None:
    body = render.render_reply("99", "not applied")
    assert render.read_marker(body) == render.Marker("reply", "99", {})
