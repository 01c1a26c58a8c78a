"""What an owner can do on a decision, in the order to try them: the acts, not any surface's words.

Each surface words them in its own commands (GitHub: ``/decide <option>`` rows of ``/help``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from parkbot.core.config import Config
from parkbot.core.models import Decision

Act = Literal["decide", "answer", "default", "escalate", "return", "accept", "override"]


@dataclass(frozen=True)
class PossibleAct:
    """One act open to the owner. ``arg`` is the option id (decide, default) or the assumption's number
    (override); ``about`` what it stands for (the option's label, the assumption's text, the requester)."""

    act: Act
    arg: str | None = None
    about: str | None = None


def possible_acts(decision: Decision, config: Config) -> list[PossibleAct]:
    """The acts open on ``decision``: a review is accepted or has an assumption overridden; a question is
    answered (an option, words where allowed, an explicit default), escalated, or returned to a requester the
    configuration allows."""
    if decision.kind == "review":
        acts = [PossibleAct("accept")]
        acts += [PossibleAct("override", str(n), a.text) for n, a in enumerate(decision.assumptions, 1)]
        return acts
    acts = [PossibleAct("decide", o.id, o.label) for o in decision.options]
    if decision.free_text_allowed:
        acts.append(PossibleAct("answer"))
    acts += [PossibleAct("default", o.id) for o in decision.options[:1]]
    acts.append(PossibleAct("escalate"))
    if decision.requester and config.may_request(decision.requester):
        acts.append(PossibleAct("return", about=decision.requester))
    return acts
