"""Who may answer a decision, and which stored answers and escalations carry authority.

parkbot exists so that an agent never answers its own question: the decision's owner does. The rules
here take authority only from what the backend can vouch for:

* the **actor** is who performed the act as the backend verified it (:class:`Actor`): on GitHub the
  event's sender, never a field of an editable comment; bots never answer;
* the **owners** are computed from the configuration and the decision's escalations (which the
  backend returns only as far as it could verify them), never from the ``owner`` text of a record
  anyone could have edited: the origin's configured owner, else the owner the decision was filed
  for, then each escalation's new owner, then everyone above in the hierarchy;
* the author of a dependent (a pull request waiting for the answer) never answers, whatever else
  they are: that is the agent's own change asking for its own answer;
* with ``answers.require_signed``, an answer or escalation counts only when the backend proved who
  signed it (:class:`~parkbot.core.models.Proof`) and the signer is an owner at that point
  (:func:`verified`); otherwise the decision reads as open, with the reason in ``problems``. The same
  holds for every state change that would open a gate: ``resolved`` counts only with such an answer
  (never without one), and ``blocking: false`` only when a signed filing vouches for it
  (:attr:`~parkbot.core.models.Decision.blocking_proof`); otherwise the decision reads as blocking.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

from parkbot.core.config import Config
from parkbot.core.errors import Refused
from parkbot.core.models import Answer, Decision, Escalation, Proof
from parkbot.core.tracker import Role, Tracker

#: Repository roles, lowest first (what ``repository_permission_resolves`` compares against).
ROLE_RANK: dict[Role, int] = {"read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}


class Actor(NamedTuple):
    """Who performed an act, as the backend verified it: a GitHub login or a git e-mail.

    A ``NamedTuple``, not a dataclass: every command loads this module, and a dataclass compiles its methods.
    """

    login: str
    bot: bool = False


@runtime_checkable
class SignedRecords(Protocol):
    """A backend that proves who wrote answers and escalations (the git backlog with signed commits)."""

    def verifies_signatures(self) -> bool:
        """Whether records read from this backend carry a :class:`~parkbot.core.models.Proof`."""
        ...


def first_owner(decision: Decision, config: Config) -> str:
    """The owner the question started with: the origin's configured owner, else the one it was filed for."""
    configured = config.owner_for(decision.origin)
    if configured:
        return configured
    return decision.escalations[0].from_owner if decision.escalations else decision.owner


def current_owner(decision: Decision, config: Config) -> str:
    """The owner now: the first owner, moved by each escalation (the backend returns verified ones only)."""
    owner = first_owner(decision, config)
    for hop in decision.escalations:
        owner = hop.to_owner
    return owner


def owners(decision: Decision, config: Config) -> list[str]:
    """Everyone who may answer as an owner: the current owner, then each level above, nearest first."""
    owner = current_owner(decision, config)
    return [owner, *config.chain_above(owner)]


def _refuse(message: str) -> Refused:
    return Refused(message, reason="not_authorized")


def authorize(tracker: Tracker, config: Config, decision: Decision, actor: Actor) -> None:
    """Only an owner's own act answers (see the module docstring); raise :class:`Refused` otherwise."""
    if actor.bot:
        raise _refuse(f"{actor.login} is a bot; only a human owner can answer a decision")
    if actor.login.casefold() in tracker.dependent_authors(decision):
        raise _refuse(
            f"{actor.login} authored a pull request that waits for {decision.id}; the author of a dependent "
            "never answers the question it waits for (ask an owner above)"
        )
    principals = owners(decision, config)
    if any(tracker.is_member(actor.login, principal) for principal in principals):
        return
    needed = config.repository_permission_resolves
    if needed != "none":
        role = tracker.permission_of(actor.login)
        if role is not None and ROLE_RANK[role] >= ROLE_RANK[needed]:
            return
    raise _refuse(f"{actor.login} may not answer {decision.id}: its owners are {', '.join(principals)}")


def _signed_by_owner(proof: Proof | None, principals: list[str]) -> bool:
    if proof is None or not proof.good or not proof.signer:
        return False
    return proof.signer.casefold() in {p.casefold() for p in principals}


def _who(proof: Proof | None, fallback: str) -> str:
    if proof is None:
        return f"{fallback} (unsigned)"
    if not proof.good:
        return f"{proof.signer or fallback} ({proof.detail or 'signature does not verify'})"
    return f"{proof.signer} (not an owner)"


def _vouched(proof: Proof | None) -> bool:
    """A state change that opens a gate counts when a listed key signed the commit that made it."""
    return proof is not None and proof.good and bool(proof.signer)


def _why(proof: Proof | None) -> str:
    if proof is None:
        return "no signed commit vouches for it"
    return proof.detail or "signature does not verify"


def requires_signatures(tracker: Tracker, config: Config) -> bool:
    """Whether this backend's records must prove their signer (``answers.require_signed`` where it applies)."""
    return config.answers.require_signed and isinstance(tracker, SignedRecords) and tracker.verifies_signatures()


def recorded_answer(tracker: Tracker, config: Config, decision: Decision) -> Answer | None:
    """The answer resolution step (a) recorded, if it carries authority (signed by an owner where required).

    An unverified record is not "the recorded answer": it neither blocks an owner's own answer as a
    conflict nor lets a re-run finish a resolution nobody entitled started.
    """
    answer = tracker.recorded_answer(decision)
    if answer is None or not requires_signatures(tracker, config):
        return answer
    signers = owners(decision, config)
    if answer.kind == "planner" and config.planner is not None:
        signers = [config.planner.by]  # a planner's answer counts when the configured planner signed it
    return answer if _signed_by_owner(answer.proof, signers) else None


def verified(decision: Decision, config: Config) -> Decision:
    """The decision with only the authority its signed records prove.

    Escalations count in order while each is signed by an owner at its level (a broken one ends the
    chain: later hops depended on it); the answer counts when signed by an owner of the resulting
    chain. What does not count is dropped, and the decision reads as open, saying why in ``problems``.
    """
    problems = list(decision.problems)
    owner = first_owner(decision, config)
    kept: list[Escalation] = []
    for hop in decision.escalations:
        if not _signed_by_owner(hop.proof, [owner, *config.chain_above(owner)]):
            problems.append(f"unverified escalation by {_who(hop.proof, hop.by)}: {hop.from_owner} -> {hop.to_owner}")
            break
        kept.append(hop)
        owner = hop.to_owner
    result = decision
    if kept != decision.escalations:
        result = result.model_copy(update={"escalations": kept, "owner": owner})
    answer = result.answer
    signers = [owner, *config.chain_above(owner)]
    if answer is not None and answer.kind == "planner" and config.planner is not None:
        signers = [config.planner.by]  # a planner's answer counts when the configured planner signed it
    if result.corrections:  # not verifiable yet: the first answer stands (parkbot correct is refused here)
        problems.append("corrections are not verified with answers.require_signed; the first answer stands")
        result = result.model_copy(update={"corrections": []})
    if answer is not None and not _signed_by_owner(answer.proof, signers):
        problems.append(f"unverified answer by {_who(answer.proof, answer.by)}")
        result = result.model_copy(update={"state": "open", "answer": None})
    elif answer is None and result.state == "resolved":
        problems.append(
            "unverified resolution: marked resolved without an answer (only an owner's signed answer resolves it)"
        )
        result = result.model_copy(update={"state": "open"})
    if (
        result.kind == "decision"
        and result.state != "resolved"
        and not result.blocking
        and not _vouched(result.blocking_proof)
    ):
        problems.append(f"unverified blocking: false ({_why(result.blocking_proof)}): it blocks until answered")
        result = result.model_copy(update={"blocking": True})
    return result.with_problems(problems) if problems != list(decision.problems) else result


def named_in_config(config: Config, login: str) -> bool:
    """Whether ``login`` may own a question by the configuration alone: named as an owner or in the
    hierarchy, or the configuration names a team (membership is then only known by asking).

    A commenter with no association to the repository who is not named here cannot answer anything
    (no role, not an owner), so its command is ignored before anything is read or written.
    """
    named: list[str | None] = [config.owners.default, *config.owners.origins.values()]
    named += [*config.hierarchy.keys(), *config.hierarchy.values()]
    wanted = login.casefold().lstrip("@")
    return any(n.casefold().lstrip("@") == wanted or "/" in n for n in named if n)
