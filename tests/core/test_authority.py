"""Signed answers (``answers.require_signed``): only what an owner provably signed carries authority.

No backend verifies signatures yet, so the rules of parkbot.core.authority are held here on an in-memory
tracker that claims the capability (:class:`~parkbot.core.authority.SignedRecords`) and signs each record
with whatever key the test hands it, as a backend that checked a commit's signature would report it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from parkbot.core import authority, lifecycle, planner
from parkbot.core.authority import Actor, named_in_config
from parkbot.core.config import Answers, Config, Owners, Planner
from parkbot.core.errors import NotFound, Refused
from parkbot.core.models import Answer, Decision, Escalation, LogEntry, Proof
from parkbot.core.tracker import Location, PollToken
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"
SIGNED = Config(
    owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"}, answers=Answers(require_signed=True)
)
UNSIGNED = SIGNED.model_copy(update={"answers": Answers()})


def signed_by(signer: str | None, *, good: bool = True, detail: str = "") -> Proof:
    return Proof(good=good, signer=signer, detail=detail)


class SignedTracker(MemoryTracker):
    """Remembers the proof of each record it writes: the answer, and each escalation (by its hop)."""

    def __init__(self) -> None:
        super().__init__()
        self.signing: Proof | None = signed_by("alice")
        self.answer_proofs: dict[str, Proof | None] = {}
        self.hop_proofs: dict[tuple[str, str, str], Proof | None] = {}
        self.filing_proofs: dict[str, Proof | None] = {}  # what vouches for a filing of blocking: false
        self.verifying = True

    def verifies_signatures(self) -> bool:
        return self.verifying

    def _proved(self, decision: Decision) -> Decision:
        hops = [
            h.with_proof(self.hop_proofs.get((decision.id, h.from_owner, h.to_owner))) for h in decision.escalations
        ]
        answer = decision.answer.with_proof(self.answer_proofs.get(decision.id)) if decision.answer else None
        proved = decision.model_copy(update={"escalations": hops, "answer": answer})
        return proved.with_blocking_proof(self.filing_proofs.get(decision.id))

    def find(self, decision_id: str) -> Decision | None:
        found = super().find(decision_id)
        return self._proved(found) if found is not None else None

    def linked_decisions(self, target: str) -> list[Decision]:
        return [self._proved(d) if d.id in self.items else d for d in super().linked_decisions(target)]

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        """For ``open``, the decisions stored as resolved too: their resolution may not count (the git backlog)."""
        also = ("resolved",) if state == "open" else ()
        return iter([self._proved(d) for d in self.items.values() if state is None or d.state in (state, *also)])

    def recorded_answer(self, decision: Decision) -> Answer | None:
        answer = super().recorded_answer(decision)
        return answer.with_proof(self.answer_proofs.get(decision.id)) if answer is not None else None

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        for hop in decision.escalations:
            self.hop_proofs.setdefault((decision.id, hop.from_owner, hop.to_owner), self.signing)
        return super().update(decision, log)

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        """A new commit replaces an answer nobody provably signed; a proved one stays (or conflicts)."""
        proof = self.answer_proofs.get(decision.id)
        if proof is None or not proof.good:
            self.answers.pop(decision.id, None)
        if decision.id not in self.answers:
            self.answer_proofs[decision.id] = self.signing
        super().record_answer(decision, answer)

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        """Closing again replaces a close nobody provably signed (it read as open)."""
        self.log.append(log)
        self.items[decision.id] = self.items[decision.id].model_copy(update={"state": "resolved", "answer": answer})


class Edited(SignedTracker):
    """A backend that found the stored record edited by someone else."""

    def find(self, decision_id: str) -> Decision | None:
        found = super().find(decision_id)
        return found.with_problems(["edited by mallory"]) if found is not None else None


def parked(config: Config = SIGNED) -> SignedTracker:
    tracker = SignedTracker()
    lifecycle.park(tracker, result(), config, now=NOW)
    return tracker


def resolve(tracker: SignedTracker, by: str, value: str = "full_original", config: Config = SIGNED) -> object:
    return lifecycle.resolve(tracker, config, DID, value, Actor(by), now=NOW)


def shown(tracker: SignedTracker, config: Config = SIGNED) -> Decision:
    """The decision as ``parkbot show`` and ``wait`` read it."""
    return lifecycle.answer_of(tracker, config, DID)


# --- the answer ----------------------------------------------------------------------------------


def test_an_answer_signed_by_an_owner_or_anyone_above_resolves() -> None:
    for signer in ("alice", "Dana"):  # logins and e-mails compare without case
        tracker = parked()
        tracker.signing = signed_by(signer)
        resolve(tracker, signer.lower())
        decision = shown(tracker)
        assert (decision.state, decision.answer.value, decision.problems) == ("resolved", "full_original", ())


@pytest.mark.parametrize(
    ("proof", "problem"),
    [
        (None, "unverified answer by alice (unsigned)"),
        (
            signed_by("erin", good=False, detail="no principal matched"),
            "unverified answer by erin (no principal matched)",
        ),
        (signed_by(None, good=False), "unverified answer by alice (signature does not verify)"),
        (signed_by("alice", good=False, detail="key expired"), "unverified answer by alice (key expired)"),
        (signed_by("mallory"), "unverified answer by mallory (not an owner)"),
    ],
    ids=["unsigned", "bad-signature", "bad-signature-no-signer", "owners-bad-signature", "not-an-owner"],
)
def test_an_answer_nobody_entitled_signed_reads_as_open_and_says_why(proof: Proof | None, problem: str) -> None:
    tracker = parked()
    tracker.signing = proof
    resolve(tracker, "alice")
    decision = shown(tracker)
    assert (decision.state, decision.answer, decision.problems) == ("open", None, (problem,))


def test_an_unverified_answer_neither_conflicts_with_an_owners_answer_nor_finishes_a_rerun() -> None:
    tracker = parked()
    tracker.signing = None
    tracker.answers[DID] = Answer(value="remaining_three", by="mallory", at=NOW)  # recorded, never closed
    assert lifecycle.recorded_answer(tracker, SIGNED, shown(tracker)) is None
    tracker.signing = signed_by("alice")
    outcome = resolve(tracker, "alice")
    assert outcome.action == "resolved"  # recorded anew, not "completed" from mallory's record
    assert shown(tracker).answer.value == "full_original"


def test_a_signed_recorded_answer_is_the_one_a_rerun_finishes_and_a_different_one_conflicts_with() -> None:
    tracker = parked()
    tracker.answers[DID] = Answer(value="remaining_three", by="alice", at=NOW)
    tracker.answer_proofs[DID] = signed_by("alice")
    assert lifecycle.recorded_answer(tracker, SIGNED, shown(tracker)).value == "remaining_three"
    with pytest.raises(Refused) as info:
        resolve(tracker, "alice")
    assert info.value.reason == "conflicting_answer"
    assert resolve(tracker, "alice", "remaining_three").action == "completed"


def test_signatures_count_only_when_configured_and_the_backend_verifies_them() -> None:
    unverifying = parked()
    unverifying.verifying = False
    unverifying.signing = None
    resolve(unverifying, "alice")
    assert shown(unverifying).state == "resolved"  # this backend proves nothing, so nothing is required
    plain = parked(UNSIGNED)
    plain.signing = None
    resolve(plain, "alice", config=UNSIGNED)
    assert shown(plain, UNSIGNED).state == "resolved"
    plain.answers[DID] = Answer(value="full_original", by="alice", at=NOW)
    assert lifecycle.recorded_answer(plain, UNSIGNED, shown(plain, UNSIGNED)) is not None


def test_problems_the_backend_found_are_kept_and_an_unverified_answer_adds_its_own() -> None:
    for proof, problems in [
        (signed_by("alice"), ("edited by mallory",)),
        (None, ("edited by mallory", "unverified answer by alice (unsigned)")),
    ]:
        tracker = Edited()
        lifecycle.park(tracker, result(), SIGNED, now=NOW)
        tracker.signing = proof
        resolve(tracker, "alice")
        assert shown(tracker).problems == problems


# --- escalations -----------------------------------------------------------------------------------


def escalate(tracker: SignedTracker, by: str, proof: Proof | None) -> None:
    tracker.signing = proof
    lifecycle.escalate(tracker, SIGNED, DID, Actor(by), now=NOW)


def test_escalations_signed_by_each_levels_owner_move_the_question() -> None:
    tracker = parked()
    escalate(tracker, "alice", signed_by("alice"))
    escalate(tracker, "carol", signed_by("carol"))
    decision = shown(tracker)
    assert (decision.owner, decision.chain(), decision.problems) == ("dana", ["alice", "carol", "dana"], ())


def test_an_unverified_escalation_ends_the_chain_there_and_the_owner_below_answers_again() -> None:
    tracker = parked()
    escalate(tracker, "alice", signed_by("alice"))
    escalate(tracker, "carol", signed_by("mallory"))
    decision = shown(tracker)
    assert decision.owner == "carol"
    assert decision.chain() == ["alice", "carol"]
    assert decision.problems == ("unverified escalation by mallory (not an owner): carol -> dana",)
    with pytest.raises(Refused) as info:
        resolve(tracker, "alice")
    assert info.value.message == f"alice may not answer {DID}: its owners are carol, dana"


def test_a_later_hop_signed_by_its_owner_does_not_count_after_a_broken_one() -> None:
    tracker = parked()
    hops = [
        Escalation(from_owner="alice", to_owner="carol", by="alice", at=NOW),
        Escalation(from_owner="carol", to_owner="dana", by="carol", at=NOW),
    ]
    tracker.items[DID] = tracker.items[DID].model_copy(update={"owner": "dana", "escalations": hops})
    tracker.hop_proofs[(DID, "alice", "carol")] = None
    tracker.hop_proofs[(DID, "carol", "dana")] = signed_by("carol")
    decision = shown(tracker)
    assert (decision.owner, decision.escalations) == ("alice", [])
    assert decision.problems == ("unverified escalation by alice (unsigned): alice -> carol",)


def test_an_answer_counts_when_its_signer_owns_the_question_where_the_verified_chain_ends() -> None:
    for signer, state, problems in [
        ("carol", "resolved", ()),
        ("alice", "open", ("unverified answer by alice (not an owner)",)),  # she signed after it moved above her
    ]:
        tracker = parked()
        escalate(tracker, "alice", signed_by("alice"))
        tracker.signing = signed_by(signer)
        resolve(tracker, "carol")
        decision = shown(tracker)
        assert (decision.state, decision.problems) == (state, problems)


# --- every read of a decision is verified ---------------------------------------------------------------


class PollingSigned(SignedTracker):
    """Signed records, read through the cheap-poll capability (as ``parkbot wait`` reads them)."""

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        return self.find(decision_id), PollToken(decision_id, validator="etag")


def test_waiting_reads_an_unverified_answer_as_no_answer_yet() -> None:
    tracker = PollingSigned()
    lifecycle.park(tracker, result(), SIGNED, now=NOW)
    tracker.signing = None
    resolve(tracker, "alice")
    decision, token = lifecycle.poll_answer(tracker, SIGNED, DID)
    assert (decision.state, decision.problems, token.validator) == (
        "open",
        ("unverified answer by alice (unsigned)",),
        "etag",
    )
    with pytest.raises(NotFound) as info:
        lifecycle.poll_answer(tracker, SIGNED, "billing-42-decision-other")
    assert info.value.message == (f"no decision billing-42-decision-other in this backlog; did you mean {DID!r}?")


def test_a_gate_stays_blocked_by_a_question_whose_answer_nobody_entitled_signed() -> None:
    tracker = SignedTracker()
    lifecycle.park(tracker, result(dependents=["#7"]), SIGNED, now=NOW)
    tracker.signing = signed_by("mallory")
    resolve(tracker, "alice")
    assert lifecycle.gate(tracker, SIGNED, "#7").state == "blocked"
    assert [d.id for d in lifecycle.linked(tracker, SIGNED, "#7")] == [DID]
    assert lifecycle.recorded_answer(tracker, SIGNED, tracker.find(DID)) is None


def test_listing_reads_each_decision_with_only_the_authority_its_records_prove() -> None:
    tracker = parked()
    lifecycle.park(tracker, result(key="scope", title="Scope"), SIGNED, now=NOW)
    other = "billing-42-decision-scope"
    resolve(tracker, "alice")
    tracker.signing = None
    lifecycle.resolve(tracker, SIGNED, other, "full_original", Actor("alice"), now=NOW)  # stored resolved, unsigned
    assert [d.id for d in lifecycle.decisions(tracker, SIGNED, "resolved")] == [DID]
    (unverified,) = lifecycle.decisions(tracker, SIGNED, "open")
    assert (unverified.id, unverified.problems) == (other, ("unverified answer by alice (unsigned)",))


def test_an_answer_that_lost_a_sync_is_not_named_while_no_answer_that_counts_stands() -> None:
    """Saying "the earlier answer stands" would be wrong: the stored one carries no authority."""
    tracker = SignedTracker()
    lifecycle.park(tracker, result(), SIGNED, now=NOW)
    tracker.signing = None
    resolve(tracker, "alice")
    tracker.conflicts = [Answer(value="remaining_three", by="carol", at=NOW)]
    decision = shown(tracker)
    assert (decision.state, decision.answer, decision.problems) == (
        "open",
        None,
        ("unverified answer by alice (unsigned)",),
    )


def test_resolving_reports_a_dependent_blocked_while_another_of_its_questions_has_no_answer_that_counts() -> None:
    """The gates an answer publishes read the other questions of each dependent as ``parkbot gate`` does."""
    tracker = SignedTracker()
    lifecycle.park(tracker, result(dependents=["#7"]), SIGNED, now=NOW)
    lifecycle.park(tracker, result(key="scope", title="Scope", dependents=["#7"]), SIGNED, now=NOW)
    other = "billing-42-decision-scope"
    tracker.signing = None
    lifecycle.resolve(tracker, SIGNED, other, "full_original", Actor("alice"), now=NOW)  # stored resolved, unsigned
    tracker.signing = signed_by("alice")
    outcome = resolve(tracker, "alice")
    (published,) = outcome.gates  # type: ignore[attr-defined]
    assert (published.state, [d.id for d in published.blocking]) == ("blocked", [other])
    assert tracker.published["#7"] == published
    checked = lifecycle.gate(tracker, SIGNED, "#7")
    assert (checked.state, [d.id for d in checked.blocking]) == ("blocked", [other])


def test_filing_reports_a_dependent_blocked_by_an_older_question_whose_answer_nobody_entitled_signed() -> None:
    tracker = SignedTracker()
    lifecycle.park(tracker, result(key="scope", title="Scope", dependents=["#7"]), SIGNED, now=NOW)
    other = "billing-42-decision-scope"
    tracker.signing = None
    lifecycle.resolve(tracker, SIGNED, other, "full_original", Actor("alice"), now=NOW)  # stored resolved, unsigned
    filed = lifecycle.park(tracker, result(dependents=["#7"]), SIGNED, now=NOW)
    (published,) = filed.gates
    assert sorted(d.id for d in published.blocking) == sorted([DID, other])


class SharedCommitSigned(SignedTracker):
    """Signed records, with gates published on commits that ``#7`` and ``#8`` share."""

    def sharing_commit(self, target: str) -> list[str]:
        return [t for t in ("#7", "#8") if t != target]


def test_a_commit_stays_blocked_while_a_neighbour_waits_for_a_question_whose_answer_nobody_entitled_signed() -> None:
    tracker = SharedCommitSigned()
    lifecycle.park(tracker, result(dependents=["#7"]), SIGNED, now=NOW)
    lifecycle.park(tracker, result(key="scope", title="Scope", dependents=["#8"]), SIGNED, now=NOW)
    other = "billing-42-decision-scope"
    resolve(tracker, "alice")
    tracker.signing = None
    lifecycle.resolve(tracker, SIGNED, other, "full_original", Actor("alice"), now=NOW)  # stored resolved, unsigned
    checked = lifecycle.gate(tracker, SIGNED, "#7")
    assert ([d.id for d in checked.blocking], checked.same_commit) == ([other], ("#8",))
    assert tracker.published["#7"] == checked


# --- blocking: false counts only when a signed filing vouches for it ------------------------------------


def parked_optional(proof: Proof | None) -> SignedTracker:
    """A question filed with ``blocking: false``, its filing proved by ``proof``."""
    tracker = SignedTracker()
    lifecycle.park(tracker, result(blocking=False, dependents=["#7"]), SIGNED, now=NOW)
    tracker.filing_proofs[DID] = proof
    return tracker


@pytest.mark.parametrize(
    ("proof", "why"),
    [
        (None, "no signed commit vouches for it"),
        (signed_by("mallory", good=False, detail="key not in allowed signers"), "key not in allowed signers"),
        (signed_by("alice", good=False), "signature does not verify"),
        (signed_by(None, good=False), "signature does not verify"),
    ],
    ids=["unsigned", "bad-signature-with-signer", "owners-bad-signature", "bad-signature-no-signer"],
)
def test_blocking_false_nobody_provably_signed_blocks_its_dependents_and_says_why(
    proof: Proof | None, why: str
) -> None:
    tracker = parked_optional(proof)
    decision = shown(tracker)
    assert (decision.blocking, decision.problems) == (
        True,
        (f"unverified blocking: false ({why}): it blocks until answered",),
    )
    assert lifecycle.gate(tracker, SIGNED, "#7").state == "blocked"


def test_blocking_false_a_listed_key_signed_blocks_nothing() -> None:
    tracker = parked_optional(signed_by("alice"))
    decision = shown(tracker)
    assert (decision.blocking, decision.problems) == (False, ())
    assert lifecycle.gate(tracker, SIGNED, "#7").state != "blocked"


def test_an_optional_question_answered_by_an_owner_reports_no_unverified_blocking_false() -> None:
    """Once a signed answer resolved it, whether it blocked no longer opens anything: nothing to report."""
    tracker = parked_optional(None)
    resolve(tracker, "alice")
    decision = shown(tracker)
    assert (decision.state, decision.blocking, decision.problems) == ("resolved", False, ())


# --- a planner's answer counts when the configured planner signed it ------------------------------------


WITH_PLANNER = SIGNED.model_copy(update={"planner": Planner(by="planner", sources=["docs/**"])})


def test_with_a_planner_configured_an_owner_s_signed_answer_still_counts_and_is_the_recorded_one() -> None:
    tracker = parked(WITH_PLANNER)
    resolve(tracker, "alice", config=WITH_PLANNER)
    decision = shown(tracker, WITH_PLANNER)
    assert (decision.state, decision.answer.value, decision.problems) == ("resolved", "full_original", ())
    recorded = lifecycle.recorded_answer(tracker, WITH_PLANNER, decision)
    assert recorded is not None
    assert recorded.value == "full_original"


@pytest.mark.parametrize(("signer", "counts"), [("planner", True), ("alice", False), ("mallory", False)])
def test_a_recorded_planner_answer_counts_only_when_the_configured_planner_signed_it(signer: str, counts: bool) -> None:
    """Even an owner's signature does not vouch for words given as the planner's."""
    tracker = parked(WITH_PLANNER)
    tracker.answers[DID] = Answer(value="full_original", kind="planner", by="planner", at=NOW)
    tracker.answer_proofs[DID] = signed_by(signer)
    recorded = lifecycle.recorded_answer(tracker, WITH_PLANNER, shown(tracker, WITH_PLANNER))
    assert (recorded is not None and recorded.value == "full_original") is counts


# --- corrections ------------------------------------------------------------------------------------------


def test_a_correction_is_not_verified_with_signed_answers_so_the_first_answer_stands_and_says_so() -> None:
    tracker = parked()
    resolve(tracker, "alice")
    # corrected while answers.require_signed was off; turning it on cannot vouch for the correction
    planner.correct(tracker, UNSIGNED, DID, "remaining_three", Actor("alice"), reason="wrong option", now=NOW)
    assert shown(tracker, UNSIGNED).current_answer.value == "remaining_three"
    decision = shown(tracker)
    assert (decision.state, decision.current_answer.value, decision.corrections, decision.problems) == (
        "resolved",
        "full_original",
        [],
        ("corrections are not verified with answers.require_signed; the first answer stands",),
    )


def test_an_origin_configured_with_an_empty_owner_keeps_an_escalation_its_first_owner_signed() -> None:
    """An empty owner names nobody: the chain starts with whom the question was filed for, so that owner's
    signed escalation counts (starting from the owner it escalated to would refuse it)."""
    config = SIGNED.model_copy(update={"owners": Owners(default="alice", origins={"billing-*": ""})})
    filed = lifecycle.build_decision(result(), "alice", NOW)
    hop = Escalation(from_owner="alice", to_owner="carol", by="alice", at=NOW).with_proof(signed_by("alice"))
    escalated = filed.model_copy(update={"owner": "carol", "escalations": [hop]})
    checked = authority.verified(escalated, config)
    assert (checked.owner, checked.escalations, checked.problems) == ("carol", [hop], ())


# --- who the configuration alone names as a possible owner (named_in_config) ------------------------------


CONFIG = Config(owners=Owners(default="alice", origins={"billing-*": "@Bob"}), hierarchy={"carol": "dana"})


@pytest.mark.parametrize(
    ("login", "named"),
    [
        ("alice", True),  # the default owner
        ("ALICE", True),  # logins ignore case
        ("@alice", True),
        ("bob", True),  # an origin's owner, written with an @
        ("carol", True),  # in the hierarchy, below ...
        ("dana", True),  # ... and above
        ("mallory", False),
        ("alice@", False),  # only a leading @ is dropped
        ("", False),
    ],
)
def test_a_login_is_named_as_an_owner_or_in_the_hierarchy(login: str, named: bool) -> None:
    assert named_in_config(CONFIG, login) is named


def test_a_configured_team_may_hold_anyone_so_everyone_is_heard() -> None:
    teams = Config(owners=Owners(default="acme/billing"))
    assert named_in_config(teams, "mallory")
    assert not named_in_config(Config(owners=Owners(default="alice")), "mallory")


def test_a_login_named_only_in_the_hierarchy_s_values_or_keys_counts() -> None:
    assert named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "erin")
    assert named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "frank")
    assert not named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "@@frank@")
