"""Whose decision issues and answer records count: the GitHub adapter's rules, without a request.

An issue is a decision's only when parkbot's own login opened it (authorship is the one fact about an
issue nobody can change afterwards); its hidden block counts only as parkbot last wrote it; an answer
record counts only when parkbot posted it and nobody changed it since. :class:`DecisionIssues
<parkbot.trackers.github.issues.DecisionIssues>` reads the issues and the edit histories; the rules
here decide what those facts are worth, so they are tested (and mutation-tested) one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from parkbot.core.models import Decision
from parkbot.trackers.github.labels import DECISION_LABEL, LABEL_PREFIX
from parkbot.trackers.github.render import ParseError, decision_payload, read_marker
from parkbot.trackers.github.trust import BOT_SUFFIX, author_of, change, is_parkbot, own_version, written_by

#: Who opened or changed a record when GitHub no longer knows the account.
DELETED_ACCOUNT = "a deleted account"


class OwnRecords(Protocol):
    """Whose words a comment carries (:class:`~parkbot.trackers.github.comments.Comments`)."""

    def by_parkbot(self, comment: dict[str, Any]) -> bool: ...

    def trusted(self, comment: dict[str, Any]) -> bool: ...

    def own_text(self, comment: dict[str, Any]) -> str | None: ...


@dataclass(frozen=True)
class BodyVerdict:
    """A decision issue's body as parkbot last wrote it (None: no version of parkbot's is left) and what
    someone else changed, in words for people."""

    own_body: str | None
    problems: tuple[str, ...] = ()


def opened_by_parkbot(raw: Mapping[str, Any], trusted: tuple[str, ...], guesses_own_login: bool) -> bool:
    """Whether parkbot's own login (or the other identity during a move) opened the issue.

    Anyone with write access can open an issue carrying a copy of a decision's hidden block and its
    labels. Only when parkbot's login is a guess (a person's token, no ``bot_login`` configured) does an
    issue any App opened count as possibly parkbot's own.
    """
    author = author_of(raw)
    if is_parkbot(author, trusted):
        return True
    return bool(author and author.casefold().endswith(BOT_SUFFIX) and guesses_own_login)


def body_verdict(
    raw: Mapping[str, Any],
    *,
    opened_by_parkbot: bool,
    trusted: tuple[str, ...],
    history: Callable[[str], Sequence[Mapping[str, Any]]],
) -> BodyVerdict:
    """The body of a decision issue as parkbot last wrote it, and what someone else changed.

    ``trusted`` starts with parkbot's own login; ``history`` reads a text's edit history by its node id
    (only asked when someone else wrote the body as it stands).
    """
    number = raw["number"]
    own = trusted[0]
    if not opened_by_parkbot:
        who = author_of(raw) or DELETED_ACCOUNT
        return BodyVerdict(None, (f"issue #{number} was opened by {who}, not by parkbot ({own}): it is no decision",))
    if any(written_by(raw, login) for login in trusted):
        return BodyVerdict(str(raw.get("body") or ""))
    where = f"the body of #{number}, parkbot's record of this decision,"
    node_id = raw.get("node_id")
    edits = history(node_id) if node_id else []
    own_body = next((text for login in trusted if (text := own_version(edits, login)) is not None), None)
    if own_body is not None:
        return BodyVerdict(own_body, (f"{where} was changed by {change(raw)}, not by parkbot ({own})",))
    return BodyVerdict(
        None,
        (
            f"{where} was written by {change(raw)}, not by parkbot ({own}), and no version by parkbot is left: "
            "it carries no authority (read as open and blocking, with no answer, escalation or requester)",
        ),
    )


def claims_a_decision(raw: Mapping[str, Any], labels: Iterable[str]) -> bool:
    """Whether an issue looks like a decision's: a decision label, or a hidden block (even a damaged one)."""
    names = {name.casefold() for name in labels}
    if DECISION_LABEL in names or any(name.startswith(LABEL_PREFIX) for name in names):
        return True
    try:
        return decision_payload(raw.get("body")) is not None
    except ParseError:
        return True


def is_answer_record(body: str | None, decision_id: str) -> bool:
    """Whether ``body`` carries the hidden marker of ``decision_id``'s answer record."""
    return has_marker(body, "answer", decision_id)


def has_marker(body: str | None, kind: str, key: str) -> bool:
    """Whether ``body`` carries the hidden marker ``kind``/``key``."""
    found = read_marker(body)
    return found is not None and found.kind == kind and found.key == key


def record_problems(
    comments: Iterable[dict[str, Any]], number: int, decision_id: str, own: str, records: OwnRecords
) -> list[str]:
    """Answer records on issue ``number`` that are not parkbot's own writing, in words for people.

    A marker posted by anyone else, another bot included, carries no authority; an answer record of
    parkbot's that someone else changed is read as parkbot wrote it (and put back by the next write).
    """
    problems: list[str] = []
    for comment in comments:
        where = f"comment {comment['id']} on #{number}"
        if not records.by_parkbot(comment):
            if is_answer_record(comment.get("body"), decision_id):
                who = author_of(comment) or DELETED_ACCOUNT
                problems.append(f"an answer record in {where} was posted by {who}, not by parkbot ({own})")
        elif not records.trusted(comment) and is_answer_record(records.own_text(comment), decision_id):
            problems.append(f"parkbot's answer record, {where}, was changed by {change(comment)}")
    return problems


def read_state(decision: Decision, closed: bool) -> Decision:
    """The decision's state from the issue's: open while the issue is; closed, resolved only when parkbot's
    own record holds an answer (a label says nothing), abandoned otherwise."""
    if not closed:
        return decision.model_copy(update={"state": "open", "answer": None})
    if decision.answer is not None:
        return decision.model_copy(update={"state": "resolved"})
    return decision.model_copy(update={"state": "abandoned"})


def without_authority(decision: Decision, fallback_owner: str) -> Decision:
    """A decision read from a block nobody can vouch for: its content, none of its authority.

    Open and blocking, with no answer, escalation, override, requester or precedent; the owner it
    names is replaced by the backend's default (the core takes owners from the configuration anyway).
    """
    cleared: dict[str, Any] = {"answer": None, "escalations": [], "overrides": [], "requester": None, "precedent": None}
    return decision.model_copy(update={**cleared, "state": "open", "blocking": True, "owner": fallback_owner})
