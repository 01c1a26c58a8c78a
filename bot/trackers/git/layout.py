"""Where the git backlog keeps things: its ref, and the path of every file on it (see the package docstring).

``h2(x)``/``h16(x)`` are the first 2/16 hex digits of ``sha256(x)`` (:func:`_digest`). Ids are checked
before they become a file name; dependents are normalized before they are hashed.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from bot.core.errors import InvalidInput
from bot.core.models import parse_dependent
from bot.core.questions import normalize_question

DEFAULT_REF = "refs/parkbot/backlog"
_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def _check_id(decision_id: str) -> str:
    if not _ID_PATTERN.match(decision_id):
        raise InvalidInput(f"{decision_id!r} is not a decision id: use lowercase letters, digits, '.', '_' and '-'")
    return decision_id


def decision_path(decision_id: str) -> str:
    """Where a decision's record lives on the backlog ref."""
    return f"decisions/{_digest(decision_id)[:2]}/{_check_id(decision_id)}.json"


def answer_path(decision_id: str) -> str:
    """Where the answer recorded by resolution step (a) lives."""
    return f"answers/{_digest(decision_id)[:2]}/{_check_id(decision_id)}.json"


def links_path(target: str) -> str:
    """The blocking edges of one dependent."""
    digest = _digest(target)
    return f"links/{digest[:2]}/{digest[:16]}.json"


def notes_path(target: str) -> str:
    """The answer notes of one dependent (resolution step (b))."""
    digest = _digest(target)
    return f"notes/{digest[:2]}/{digest[:16]}.json"


def origin_path(origin: str) -> str:
    """The ids of every decision an origin task raised (for the question budgets)."""
    return f"origins/{_digest(origin)[:2]}/{_check_id(origin)}.json"


def precedent_paths(entry_key: str | None, question: str | None) -> list[str]:
    """Where a resolution is indexed for the precedent lookup: by key, and by normalized question."""
    keys = ([f"key:{entry_key}"] if entry_key else []) + ([f"text:{normalize_question(question)}"] if question else [])
    return [f"precedents/{(digest := _digest(k))[:2]}/{digest[2:18]}.jsonl" for k in keys]


def run_path(run: str) -> str:
    """The ids of every decision a run raised (for the question budgets)."""
    digest = _digest(run)
    return f"runs/{digest[:2]}/{digest[:16]}.json"


def log_segment_path(seq: int) -> str:
    """One segment of the question log: ``log/<group>/<seq>.jsonl``, 256 segments per group."""
    return f"log/{seq // 256:06d}/{seq:08d}.jsonl"


def normalize_target(target: str) -> str:
    """``#N`` or ``branch:<name>``, as dependents are stored (``refs/heads/`` dropped)."""
    try:
        return parse_dependent(target)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _dump(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
