"""What the backlog's commits vouch for: a fingerprint of each answer and escalation they record.

Every write that records an answer or an escalation names what it records in a trailer of its
commit, one line per record::

    Parkbot-Record: answer billing-42-decision-refund 9f2c…
    Parkbot-Record: escalation billing-42-decision-refund 41d0…

The fingerprint is a SHA-256 over the record's kind, the decision's id and the fields that carry
meaning (value, kind, who, when; for a hop also from and to), so a signed record copied to another
decision, or altered in any of those fields, names no signed commit. Whether a commit's signature
verifies is :mod:`~parkbot.trackers.git.signatures`' job, loaded only when answers must be signed.
"""

from __future__ import annotations

from datetime import UTC
from typing import Literal

from parkbot.core.models import Answer, Decision, Escalation
from parkbot.trackers.git.layout import digest

RECORD_TRAILER = "Parkbot-Record"
RecordKind = Literal["answer", "escalation", "nonblocking"]


def fingerprint(kind: RecordKind, decision_id: str, record: Answer | Escalation) -> str:
    """What a signed commit vouches for: this record, of this decision (see the module docstring)."""
    at = record.at.astimezone(UTC).isoformat() if record.at.tzinfo else record.at.isoformat()
    if isinstance(record, Answer):
        fields = [record.kind, record.value, record.by, at]
    else:
        fields = [record.kind, record.from_owner, record.to_owner, record.by, at]
    return digest("\0".join([kind, decision_id, *fields]))


def record_trailer(kind: RecordKind, decision_id: str, record: Answer | Escalation) -> str:
    return f"{RECORD_TRAILER}: {kind} {decision_id} {fingerprint(kind, decision_id, record)}"


def nonblocking_fingerprint(decision: Decision) -> str:
    """What a signed filing of ``blocking: false`` vouches for: this decision, with this content, at this version.

    The question and options (their digest) and ``updated_at`` are in it, so the vouching commit of an
    earlier, optional version does not vouch for a later version an agent made blocking.
    """
    at = (
        decision.updated_at.astimezone(UTC).isoformat()
        if decision.updated_at.tzinfo
        else decision.updated_at.isoformat()
    )
    fields = ["nonblocking", decision.id, decision.content_digest(), at]
    return digest("\0".join(fields))


def nonblocking_trailer(decision: Decision) -> str:
    return f"{RECORD_TRAILER}: nonblocking {decision.id} {nonblocking_fingerprint(decision)}"
