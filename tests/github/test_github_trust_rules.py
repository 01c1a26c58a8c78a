"""The rules of whose words a GitHub text carries (parkbot.trackers.github.trust), one function at a time.

The attacks themselves (an edited answer, a forged marker, a rewritten body) run end to end through the
fake GitHub in test_github_trust.py; these pin each rule they rest on, with the exact value it gives.
"""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.trackers.github.trust import (
    actor_login,
    author_of,
    change,
    comment_raw,
    issue_raw,
    last_writer,
    own_version,
    same_login,
    written_by,
)

PARKBOT = {"login": "parkbot", "__typename": "Bot"}
MALLORY = {"login": "mallory", "__typename": "User"}


# --- logins -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actor", "login"),
    [
        (None, None),
        ({}, None),  # a deleted account ("ghost")
        ({"login": None}, None),
        ({"login": 7}, None),
        ({"login": "parkbot", "__typename": "Bot"}, "parkbot[bot]"),  # GraphQL names a Bot by its slug
        ({"login": "parkbot[bot]", "__typename": "Bot"}, "parkbot[bot]"),
        ({"login": "alice", "__typename": "User"}, "alice"),
        ({"login": "alice"}, "alice"),
        ({"login": "renovate", "__typename": "Organization"}, "renovate"),
    ],
)
def test_an_actor_s_login_is_spelled_as_rest_spells_it(actor: dict[str, Any] | None, login: str | None) -> None:
    assert actor_login(actor) == login


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Alice", "alice", True),
        ("PARKBOT[BOT]", "parkbot[bot]", True),
        ("stra\N{LATIN SMALL LETTER SHARP S}e", "STRASSE", True),  # compared casefolded, not lowercased
        ("alice", "alicia", False),
        (None, "alice", False),
        ("alice", None, False),
        ("", "", False),  # an unknown account is nobody's, not everybody's
        (None, None, False),
    ],
)
def test_logins_are_the_same_ignoring_case_and_an_unknown_one_matches_nobody(
    a: str | None, b: str | None, same: bool
) -> None:
    assert same_login(a, b) is same


# --- GraphQL nodes in REST's shape --------------------------------------------------------------


def test_an_issue_node_becomes_rest_s_issue_with_its_edit_facts() -> None:
    node = {
        "number": "12",
        "fullDatabaseId": "1234567890123",
        "id": "I_kwDO",
        "title": "Refund scope",
        "body": "the body",
        "state": "CLOSED",
        "url": "https://github.com/acme/widgets/issues/12",
        "createdAt": "2026-11-30T12:00:00Z",
        "labels": {"nodes": [{"name": "parkbot"}, None, {"name": "decision:x"}]},
        "assignees": {"nodes": [{"login": "alice"}, None]},
        "author": PARKBOT,
        "lastEditedAt": "2026-11-30T12:05:00Z",
        "editor": MALLORY,
    }
    assert issue_raw(node) == {
        "number": 12,
        "id": 1234567890123,
        "node_id": "I_kwDO",
        "title": "Refund scope",
        "body": "the body",
        "state": "closed",
        "html_url": "https://github.com/acme/widgets/issues/12",
        "created_at": "2026-11-30T12:00:00Z",
        "labels": [{"name": "parkbot"}, {"name": "decision:x"}],
        "assignees": [{"login": "alice"}],
        "user": {"login": "parkbot[bot]", "type": "Bot"},
        "last_edited_at": "2026-11-30T12:05:00Z",
        "editor": {"login": "mallory", "type": "User"},
    }


def test_an_issue_node_with_nothing_optional_reads_as_an_open_unedited_issue_by_nobody() -> None:
    node = {"number": 3, "fullDatabaseId": 9, "id": "I_3", "title": None, "body": None, "labels": None}
    assert issue_raw(node) == {
        "number": 3,
        "id": 9,
        "node_id": "I_3",
        "title": "",
        "body": "",
        "state": "open",
        "html_url": None,
        "created_at": None,
        "labels": [],
        "assignees": [],
        "user": None,
        "last_edited_at": None,
        "editor": None,
    }
    assert issue_raw({**node, "labels": {"nodes": None}, "assignees": {}})["labels"] == []


def test_a_comment_node_becomes_rest_s_comment_with_its_edit_facts() -> None:
    node = {
        "fullDatabaseId": "77",
        "id": "IC_77",
        "body": "/decide full_original",
        "url": "https://github.com/acme/widgets/issues/12#issuecomment-77",
        "createdAt": "2026-11-30T12:00:00Z",
        "author": {"login": "alice"},
        "lastEditedAt": "2026-11-30T12:01:00Z",
        "editor": {"login": "alice"},
    }
    assert comment_raw(node) == {
        "id": 77,
        "node_id": "IC_77",
        "body": "/decide full_original",
        "html_url": "https://github.com/acme/widgets/issues/12#issuecomment-77",
        "created_at": "2026-11-30T12:00:00Z",
        "user": {"login": "alice", "type": "User"},
        "last_edited_at": "2026-11-30T12:01:00Z",
        "editor": {"login": "alice", "type": "User"},
    }
    assert comment_raw({"fullDatabaseId": 1, "id": "IC_1", "body": None})["body"] == ""


@pytest.mark.parametrize(
    ("author", "user"),
    [
        (PARKBOT, {"login": "parkbot[bot]", "type": "Bot"}),
        ({"login": "other[bot]"}, {"login": "other[bot]", "type": "Bot"}),  # REST's spelling says it is a bot
        ({"login": "alice"}, {"login": "alice", "type": "User"}),
        ({"login": "acme", "__typename": "Organization"}, {"login": "acme", "type": "Organization"}),
        ({}, None),
        (None, None),
    ],
)
def test_the_author_of_a_node_keeps_its_kind(author: dict[str, Any] | None, user: dict[str, Any] | None) -> None:
    node = {"fullDatabaseId": 1, "id": "IC_1", "author": author, "editor": author}
    assert (comment_raw(node)["user"], comment_raw(node)["editor"]) == (user, user)


# --- who wrote the text as it stands ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "author"),
    [
        ({"user": {"login": "alice"}}, "alice"),
        ({"user": {"login": ""}}, None),
        ({"user": None}, None),
        ({}, None),
    ],
)
def test_the_author_of_a_text(raw: dict[str, Any], author: str | None) -> None:
    assert author_of(raw) == author


@pytest.mark.parametrize(
    ("raw", "writer"),
    [
        ({"user": {"login": "parkbot[bot]"}}, "parkbot[bot]"),  # unedited: its author
        ({"user": {"login": "parkbot[bot]"}, "last_edited_at": None, "editor": None}, "parkbot[bot]"),
        ({"user": {"login": "parkbot[bot]"}, "last_edited_at": "T", "editor": {"login": "mallory"}}, "mallory"),
        ({"user": {"login": "parkbot[bot]"}, "editor": {"login": "mallory"}}, "mallory"),  # a write parkbot saw
        ({"user": {"login": "parkbot[bot]"}, "last_edited_at": "T", "editor": None}, None),  # editor deleted
        ({"user": {"login": "parkbot[bot]"}, "last_edited_at": "T", "editor": {"login": ""}}, None),
    ],
)
def test_the_last_writer_is_the_last_editor_else_the_author(raw: dict[str, Any], writer: str | None) -> None:
    assert last_writer(raw) == writer


def test_a_text_is_written_by_a_login_only_as_it_stands_now() -> None:
    own = {"user": {"login": "parkbot[bot]"}}
    assert written_by(own, "Parkbot[bot]") is True
    assert written_by({**own, "last_edited_at": "T", "editor": {"login": "mallory"}}, "parkbot[bot]") is False
    assert written_by({**own, "last_edited_at": "T", "editor": None}, "parkbot[bot]") is False
    assert written_by({}, "parkbot[bot]") is False


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ({"user": {"login": "alice"}, "last_edited_at": "2024-01-01T00:00:05Z", "editor": {"login": "mallory"}},
         "mallory at 2024-01-01T00:00:05Z"),
        ({"user": {"login": "alice"}, "last_edited_at": "2024-01-01T00:00:05Z", "editor": None},
         "a deleted account at 2024-01-01T00:00:05Z"),
        ({"user": {"login": "alice"}}, "alice"),
        ({"user": None}, "a deleted account"),
    ],
)  # fmt: skip
def test_a_change_says_who_and_when(raw: dict[str, Any], said: str) -> None:
    assert change(raw) == said


# --- the last version parkbot wrote -------------------------------------------------------------


def edit(at: str | None, who: dict[str, Any] | None, diff: str | None, deleted: str | None = None) -> dict[str, Any]:
    return {"editedAt": at, "editor": who, "diff": diff, "deletedAt": deleted}


def test_the_own_version_is_the_newest_one_the_login_wrote_in_any_order() -> None:
    edits = [
        edit("2024-01-01T00:00:01Z", PARKBOT, "first"),
        edit("2024-01-01T00:00:09Z", MALLORY, "forged"),
        edit("2024-01-01T00:00:05Z", PARKBOT, "second"),
        edit("2024-01-01T00:00:03Z", PARKBOT, "between"),
    ]
    assert own_version(edits, "parkbot[bot]") == "second"
    assert own_version(list(reversed(edits)), "PARKBOT[bot]") == "second"
    assert own_version(edits, "mallory") == "forged"
    assert own_version(edits, "alice") is None


def test_a_version_deleted_from_the_history_or_without_text_is_skipped() -> None:
    edits = [
        edit("2024-01-01T00:00:01Z", PARKBOT, "kept"),
        edit("2024-01-01T00:00:05Z", PARKBOT, "deleted", deleted="2024-01-01T00:00:06Z"),
        edit("2024-01-01T00:00:07Z", PARKBOT, None),
        {},
    ]
    assert own_version(edits, "parkbot[bot]") == "kept"
    assert own_version([edit("2024-01-01T00:00:01Z", PARKBOT, "")], "parkbot[bot]") == ""  # an emptied text


def test_a_version_without_a_time_counts_as_the_oldest_and_its_text_is_returned_as_text() -> None:
    edits = [edit(None, PARKBOT, "undated"), edit("2024-01-01T00:00:01Z", PARKBOT, "dated")]
    assert own_version(edits, "parkbot[bot]") == "dated"
    assert own_version([edit(None, PARKBOT, 42)], "parkbot[bot]") == "42"
    assert own_version([edit("T", None, "x")], "parkbot[bot]") is None  # a deleted editor is nobody
