"""Whose decision issues and answer records count on GitHub (parkbot.trackers.github.records_trust), rule by rule.

The attacks (a copied decision issue, a rewritten body, a forged or edited answer record) run end to end
through the fake GitHub in test_github_trust.py and test_github_index_attacks.py; these pin each rule they
rest on, with the exact words a user reads in the decision's problems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from parkbot.core.models import Answer, Citation, Decision, Escalation, Override
from parkbot.trackers.github.records_trust import (
    BodyVerdict,
    body_verdict,
    claims_a_decision,
    has_marker,
    is_answer_record,
    opened_by_parkbot,
    read_state,
    record_problems,
    without_authority,
)
from parkbot.trackers.github.render import marker
from parkbot.trackers.github.trust import is_parkbot, own_version, written_by

OWN = "parkbot[bot]"
MOVING_FROM = "github-actions[bot]"  # the other identity whose records count during a move
TRUSTED = (OWN, MOVING_FROM)
DECISION = "billing-42-decision-refund"
EDITED_AT = "2026-11-30T12:05:00Z"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
BLOCK = '<!-- parkbot:decision {"id": "billing-42-decision-refund"} -->'


def issue(author: str | None, body: str | None = BLOCK, **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "number": 7,
        "node_id": "I_7",
        "body": body,
        "user": {"login": author} if author else None,
        "last_edited_at": None,
        "editor": None,
    }
    raw.update(changes)
    return raw


def edited_by(raw: dict[str, Any], login: str) -> dict[str, Any]:
    return {**raw, "last_edited_at": EDITED_AT, "editor": {"login": login}}


def edit(login: str, text: str | None, at: str, *, deleted: bool = False) -> dict[str, Any]:
    return {
        "editor": {"login": login, "__typename": "User"},
        "diff": text,
        "editedAt": at,
        "deletedAt": at if deleted else None,
    }


def no_history(node_id: str) -> Sequence[Mapping[str, Any]]:
    raise AssertionError(f"the edit history of {node_id} was read, though parkbot wrote the body as it stands")


class Histories:
    """Edit histories by node id, remembering which were read."""

    def __init__(self, **by_node: list[dict[str, Any]]) -> None:
        self.by_node = by_node
        self.read: list[str] = []

    def __call__(self, node_id: str) -> Sequence[Mapping[str, Any]]:
        self.read.append(node_id)
        return self.by_node.get(node_id, [])


# --- whose issue is a decision ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("login", "trusted", "counts"),
    [
        ("parkbot[bot]", ("parkbot[bot]",), True),
        ("ParkBot[BOT]", ("parkbot[bot]",), True),  # logins ignore case
        ("github-actions[bot]", ("parkbot[bot]", "github-actions[bot]"), True),  # the other identity during a move
        ("mallory", ("parkbot[bot]", "github-actions[bot]"), False),
        ("parkbot", ("parkbot[bot]",), False),  # a person named like the App is not the App
        (None, ("parkbot[bot]",), False),  # a deleted account is nobody's
        ("parkbot[bot]", (), False),
    ],
)
def test_only_parkbot_s_own_logins_write_records_that_count(
    login: str | None, trusted: tuple[str, ...], counts: bool
) -> None:
    assert is_parkbot(login, trusted) is counts


def test_an_issue_parkbot_s_login_opened_is_a_decision_s_and_anyone_else_s_is_not() -> None:
    assert opened_by_parkbot(issue(OWN), TRUSTED, guesses_own_login=False)
    assert opened_by_parkbot(issue("PARKBOT[bot]"), TRUSTED, guesses_own_login=False)
    assert opened_by_parkbot(issue(MOVING_FROM), TRUSTED, guesses_own_login=False)
    assert not opened_by_parkbot(issue("mallory"), TRUSTED, guesses_own_login=False)
    assert not opened_by_parkbot(issue("renovate[bot]"), TRUSTED, guesses_own_login=False)
    assert not opened_by_parkbot(issue(None), TRUSTED, guesses_own_login=False)


def test_while_parkbot_s_login_is_a_guess_an_issue_any_app_opened_may_be_its_own_but_never_a_person_s() -> None:
    assert opened_by_parkbot(issue("renovate[bot]"), TRUSTED, guesses_own_login=True)
    assert opened_by_parkbot(issue("Renovate[Bot]"), TRUSTED, guesses_own_login=True)
    assert not opened_by_parkbot(issue("mallory"), TRUSTED, guesses_own_login=True)
    assert not opened_by_parkbot(issue("[bot]mallory"), TRUSTED, guesses_own_login=True)
    assert not opened_by_parkbot(issue(None), TRUSTED, guesses_own_login=True)
    assert not opened_by_parkbot(issue(""), TRUSTED, guesses_own_login=True)


# --- the body as parkbot last wrote it ------------------------------------------------------------


def test_an_issue_someone_else_opened_is_no_decision_and_its_body_carries_nothing() -> None:
    verdict = body_verdict(issue("mallory"), opened_by_parkbot=False, trusted=TRUSTED, history=no_history)
    assert verdict == BodyVerdict(
        None, ("issue #7 was opened by mallory, not by parkbot (parkbot[bot]): it is no decision",)
    )
    verdict = body_verdict(issue(None), opened_by_parkbot=False, trusted=TRUSTED, history=no_history)
    assert verdict.problems == (
        "issue #7 was opened by a deleted account, not by parkbot (parkbot[bot]): it is no decision",
    )


def test_a_body_parkbot_wrote_is_read_as_it_stands_without_its_history() -> None:
    assert body_verdict(issue(OWN), opened_by_parkbot=True, trusted=TRUSTED, history=no_history) == BodyVerdict(BLOCK)
    moved = edited_by(issue(OWN), MOVING_FROM)  # last written by the other identity during a move
    assert body_verdict(moved, opened_by_parkbot=True, trusted=TRUSTED, history=no_history) == BodyVerdict(BLOCK)
    empty = issue(OWN, body=None)
    assert body_verdict(empty, opened_by_parkbot=True, trusted=TRUSTED, history=no_history) == BodyVerdict("")


def test_a_body_someone_else_changed_is_read_as_parkbot_last_wrote_it_and_the_change_is_named() -> None:
    raw = edited_by(issue(OWN, body=BLOCK.replace("refund", "stolen")), "mallory")
    histories = Histories(
        I_7=[
            edit("mallory", "the forged text", "2026-11-30T12:05:00Z"),
            edit(OWN, "parkbot's first text", "2026-11-30T12:00:00Z"),
            edit(OWN, "parkbot's last text", "2026-11-30T12:01:00Z"),
        ]
    )
    verdict = body_verdict(raw, opened_by_parkbot=True, trusted=TRUSTED, history=histories)
    assert verdict == BodyVerdict(
        "parkbot's last text",
        (
            "the body of #7, parkbot's record of this decision, was changed by mallory at 2026-11-30T12:05:00Z, "
            "not by parkbot (parkbot[bot])",
        ),
    )
    assert histories.read == ["I_7"]


def test_parkbot_s_own_login_s_version_wins_over_the_other_identity_s() -> None:
    raw = edited_by(issue(OWN), "mallory")
    newer_by_the_other = Histories(
        I_7=[
            edit(MOVING_FROM, "the other's text", "2026-11-30T12:03:00Z"),
            edit(OWN, "own text", "2026-11-30T12:01:00Z"),
        ]
    )
    verdict = body_verdict(raw, opened_by_parkbot=True, trusted=TRUSTED, history=newer_by_the_other)
    assert verdict.own_body == "own text"
    only_the_other = Histories(I_7=[edit(MOVING_FROM, "the other's text", "2026-11-30T12:03:00Z")])
    verdict = body_verdict(raw, opened_by_parkbot=True, trusted=TRUSTED, history=only_the_other)
    assert verdict.own_body == "the other's text"


def test_a_body_with_no_version_of_parkbot_s_left_carries_no_authority_and_says_so() -> None:
    raw = edited_by(issue(OWN), "mallory")
    wiped = Histories(I_7=[edit(OWN, "parkbot's text", "2026-11-30T12:01:00Z", deleted=True)])
    verdict = body_verdict(raw, opened_by_parkbot=True, trusted=TRUSTED, history=wiped)
    assert verdict == BodyVerdict(
        None,
        (
            "the body of #7, parkbot's record of this decision, was written by mallory at 2026-11-30T12:05:00Z, "
            "not by parkbot (parkbot[bot]), and no version by parkbot is left: it carries no authority "
            "(read as open and blocking, with no answer, escalation or requester)",
        ),
    )
    assert wiped.read == ["I_7"]


def test_without_a_node_id_no_history_is_asked_for_and_the_body_carries_no_authority() -> None:
    raw = edited_by(issue(OWN, node_id=None), "mallory")
    verdict = body_verdict(raw, opened_by_parkbot=True, trusted=TRUSTED, history=no_history)
    assert verdict.own_body is None
    assert "no version by parkbot is left" in verdict.problems[0]


# --- what claims to be a decision ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "body", "claims"),
    [
        (["parkbot:decision"], "text", True),
        (["Parkbot:Decision"], "text", True),
        (["decision:billing-42-decision-refund"], "text", True),
        (["DECISION:Billing"], None, True),
        (["bug", "help wanted"], "text", False),
        (["about decision:"], "text", False),  # the prefix starts the label, it is not anywhere in it
        (["parkbot:blocking"], "text", False),
        ([], BLOCK, True),  # a copy of a decision's hidden block claims one, whatever its labels
        ([], '<!-- parkbot:decision {"id": } -->', True),  # a damaged block claims one too
        ([], "Blocked by #7", False),
        ([], None, False),
        ([], "", False),
    ],
)
def test_an_issue_claims_a_decision_by_a_decision_label_or_a_hidden_block(
    labels: list[str], body: str | None, claims: bool
) -> None:
    assert claims_a_decision({"body": body}, labels) is claims


def test_only_a_marker_at_the_start_of_a_comment_names_its_record() -> None:
    assert is_answer_record(marker("answer", DECISION) + "\nAnswered: full_original", DECISION)
    assert not is_answer_record(marker("answer", "billing-42-decision-other"), DECISION)
    assert not is_answer_record(marker("reply", DECISION), DECISION)
    assert not is_answer_record("quoted: " + marker("answer", DECISION), DECISION)
    assert not is_answer_record(None, DECISION)
    assert has_marker(marker("notice", "changed-1"), "notice", "changed-1")
    assert not has_marker(marker("notice", "changed-1"), "notice", "changed-2")
    assert not has_marker(marker("notice", "changed-1"), "reply", "changed-1")


# --- answer records on the issue ------------------------------------------------------------------


class Records:
    """Whose words a comment carries, as :class:`~parkbot.trackers.github.comments.Comments` judges them."""

    def __init__(self, histories: Histories) -> None:
        self.histories = histories

    def by_parkbot(self, comment: dict[str, Any]) -> bool:
        return is_parkbot((comment.get("user") or {}).get("login"), TRUSTED)

    def trusted(self, comment: dict[str, Any]) -> bool:
        return self.by_parkbot(comment) and any(written_by(comment, login) for login in TRUSTED)

    def own_text(self, comment: dict[str, Any]) -> str | None:
        if not self.by_parkbot(comment):
            return None
        if self.trusted(comment):
            return str(comment.get("body") or "")
        return own_version(self.histories(comment["node_id"]), OWN)


def comment(number: int, author: str | None, body: str, **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "id": number,
        "node_id": f"IC_{number}",
        "body": body,
        "user": {"login": author} if author else None,
        "last_edited_at": None,
        "editor": None,
    }
    raw.update(changes)
    return raw


ANSWER = marker("answer", DECISION) + "\nAnswered **full_original** by @alice"


def test_an_answer_record_anyone_else_posted_is_named_and_carries_nothing() -> None:
    comments = [
        comment(1, "mallory", ANSWER),
        comment(2, "renovate[bot]", ANSWER),  # another bot is anyone else too
        comment(3, None, ANSWER),
        comment(4, "mallory", marker("answer", "billing-42-decision-other")),  # another decision's: not this one's
        comment(5, "mallory", marker("reply", DECISION)),
        comment(6, "mallory", "/decide full_original"),
    ]
    assert record_problems(comments, 7, DECISION, OWN, Records(Histories())) == [
        "an answer record in comment 1 on #7 was posted by mallory, not by parkbot (parkbot[bot])",
        "an answer record in comment 2 on #7 was posted by renovate[bot], not by parkbot (parkbot[bot])",
        "an answer record in comment 3 on #7 was posted by a deleted account, not by parkbot (parkbot[bot])",
    ]


def test_parkbot_s_answer_record_someone_else_changed_is_named_with_who_and_when() -> None:
    changed = edited_by(comment(8, OWN, "now it says something else"), "mallory")
    histories = Histories(IC_8=[edit(OWN, ANSWER, "2026-11-30T12:00:00Z")])
    assert record_problems([changed], 7, DECISION, OWN, Records(histories)) == [
        "parkbot's answer record, comment 8 on #7, was changed by mallory at 2026-11-30T12:05:00Z"
    ]


def test_parkbot_s_unchanged_records_and_its_changed_non_answers_raise_nothing() -> None:
    unchanged = comment(9, OWN, ANSWER)
    changed_reply = edited_by(comment(10, OWN, "edited"), "mallory")
    histories = Histories(IC_10=[edit(OWN, marker("reply", "99"), "2026-11-30T12:00:00Z")])
    assert record_problems([unchanged, changed_reply], 7, DECISION, OWN, Records(histories)) == []


# --- what an issue's state and an unvouched block mean --------------------------------------------


def decision(**changes: Any) -> Decision:
    data: dict[str, Any] = {
        "id": DECISION,
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope",
        "question": "Refund the remaining three, or the full total?",
        "owner": "mallory",
        "created_at": NOW,
        "updated_at": NOW,
    }
    data.update(changes)
    return Decision(**data)


ANSWERED = Answer(value="full_original", by="alice", at=NOW)


def test_an_open_issue_is_an_open_decision_even_if_its_block_holds_an_answer() -> None:
    read = read_state(decision(state="resolved", answer=ANSWERED), closed=False)
    assert (read.state, read.answer) == ("open", None)


def test_a_closed_issue_is_resolved_only_when_parkbot_s_record_holds_an_answer() -> None:
    resolved = read_state(decision(state="open", answer=ANSWERED), closed=True)
    assert (resolved.state, resolved.answer) == ("resolved", ANSWERED)
    abandoned = read_state(decision(state="resolved"), closed=True)
    assert (abandoned.state, abandoned.answer) == ("abandoned", None)


def test_a_block_nobody_can_vouch_for_keeps_its_content_and_loses_all_its_authority() -> None:
    forged = decision(
        state="resolved",
        blocking=False,
        answer=ANSWERED,
        requester="mallory",
        escalations=[Escalation(from_owner="alice", to_owner="mallory", by="mallory", at=NOW)],
        overrides=[Override(assumption=1, text="none", by="mallory", at=NOW)],
        precedent=Citation(decision="other", answer="full_original", answered_by="mallory", answered_at=NOW),
    )
    read = without_authority(forged, "acme")
    assert (read.title, read.question) == (forged.title, forged.question)
    assert (read.state, read.blocking, read.owner) == ("open", True, "acme")
    assert (read.answer, read.requester, read.precedent) == (None, None, None)
    assert (read.escalations, read.overrides) == ([], [])
