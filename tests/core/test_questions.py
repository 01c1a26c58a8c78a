"""One meaning of "the same question": the normalizer's output is frozen, because stored indexes hash it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from parkbot.core import policy, questions
from parkbot.core.models import Decision, Option
from parkbot.report import facts
from parkbot.trackers.git import layout
from parkbot.trackers.github import labels

# Outputs of the normalizer as it has been stored since the first release: these strings are hashed into
# the git backlog's precedents/ paths and into GitHub's question labels. They must never change.
GOLDEN = [
    ("Order A-4471 has 2 refunded items: refund 'the rest'?", "order <id> has <n> refunded items: refund <q>"),
    ('order B-12 has 3 refunded items: refund "everything"', "order <id> has <n> refunded items: refund <q>"),
    ("Deploy commit 3f2a9c1e now?", "deploy commit <id> now"),
    ("Delete 123e4567-e89b-12d3-a456-426614174000?", "delete <id>-e89b-12d3-a456-<id>"),
    ("Don't refund; isn't it a decade?", "don<q>t it a decade"),
    ("Use  `make   build`\n\tor not?", "use <q> or not"),
    ("Ship 1,250.00 units to EU-West 3 by v2?!", "ship <n> units to eu-west <n> by v2"),
    ("  Straße ÄÖÜ  İstanbul ΣΑΣ?  ", "strasse äöü i\u0307stanbul \u03c3\u03b1\u03c3"),
    ("Which region: \u201ceu\u201d or \u2018us\u2019?", "which region: \u201ceu\u201d or \u2018us\u2019"),
    ("...?!", ""),
    ("", ""),
    ("PR#3 or order_7, ticket JIRA-12, deadbeefcafe 0x1f?", "pr#<n> or order_7, ticket <id>, <id> 0x1f"),
]


@pytest.mark.parametrize(("text", "stored"), GOLDEN)
def test_normalized_text_is_byte_for_byte_what_the_indexes_hold(text: str, stored: str) -> None:
    assert questions.normalize_question(text) == stored


def test_every_user_of_the_normalizer_uses_the_same_function() -> None:
    assert policy.normalize_question is questions.normalize_question
    assert labels.normalize_question is questions.normalize_question
    assert facts.cluster_key is questions.cluster_key  # the report's key, built on the same normalizer


def test_the_git_backlog_indexes_precedents_by_the_same_normalizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layout loads the normalizer when it indexes (the read commands never do): the same function."""
    monkeypatch.setattr(questions, "normalize_question", lambda text: "one key")
    assert layout.precedent_paths(None, "Refund it?") == layout.precedent_paths(None, "Ship it?")
    monkeypatch.undo()
    assert layout.precedent_paths(None, "Refund it?") != layout.precedent_paths(None, "Ship it?")


def test_stored_index_keys_are_unchanged() -> None:
    """The git precedent paths and GitHub question labels of one decision, as earlier releases wrote them."""
    question = GOLDEN[0][0]
    assert layout.precedent_paths("refund", question) == [
        "precedents/90/188eedb2e8ad7e54.jsonl",
        "precedents/cc/66c4a9b8964f688d.jsonl",
    ]
    moment = datetime(2024, 6, 1, tzinfo=UTC)
    decision = Decision(
        id="billing-1-decision-refund",
        kind="decision",
        origin="billing-1",
        key="refund",
        title="t",
        question=question,
        options=[Option(id="remaining", label="r"), Option(id="full", label="f")],
        owner="alice",
        state="open",
        created_at=moment,
        updated_at=moment,
    )
    assert labels.precedent_labels(decision) == ["parkbot:pk:b759ad02c3", "parkbot:pq:0f5571be3a"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Ids the stored normalizer leaves partly in place: uuids, ids with an underscore, versions.
        ("Delete 123e4567-e89b-12d3-a456-426614174000?", "Delete 00000000-0000-0000-0000-00000000abcd?"),
        ("Close order_7 now?", "Close order_12 now?"),
        ("Upgrade to v2?", "Upgrade to v10?"),
        # Curly quotes, which the stored normalizer does not treat as quotes.
        ("Rename \u201calpha\u201d?", "Rename \u201cbeta\u201d?"),
        ("Rename \u2018alpha\u2019?", "Rename 'beta'?"),
    ],
)
def test_the_report_key_is_coarser_where_the_stored_one_keeps_specifics(a: str, b: str) -> None:
    assert questions.normalize_question(a) != questions.normalize_question(b)
    assert questions.cluster_key(a) == questions.cluster_key(b)


@pytest.mark.parametrize(("text", "_stored"), GOLDEN)
def test_the_report_key_is_a_function_of_the_normalized_text(text: str, _stored: str) -> None:
    """Questions that are the same for precedents are always the same for the report (never split)."""
    variant = "  " + text.upper() + " ?"
    if questions.normalize_question(variant) == questions.normalize_question(text):
        assert questions.cluster_key(variant) == questions.cluster_key(text)
    assert questions.cluster_key(text) == questions.coarsen(questions.normalize_question(text))


def test_the_report_key_keeps_words_apart() -> None:
    assert questions.cluster_key("Refund all?") != questions.cluster_key("Refund none?")
    assert questions.cluster_key("Ship to the EU region?") != questions.cluster_key("Ship to the US region?")
