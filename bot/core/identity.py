"""Derived identities: a decision's id, from facts that already exist.

Ids are derived from facts that already exist (the origin task and the question's key), never
generated, so a retried filing finds the same item instead of creating another. These functions
are pure and their output is a contract: changing them orphans every existing decision.
"""

from __future__ import annotations

import re

#: Characters allowed in an origin, a key and an option id, after lowercasing.
NAME_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$")
MAX_NAME_LENGTH = 100
SEPARATOR = "-decision-"


def normalize_name(value: str, *, what: str = "name") -> str:
    """Lowercase and check ``value``; anything outside ``[a-z0-9._-]`` is an error, never rewritten.

    Rewriting would make two different origins share one identity, which is exactly the silent
    merge the derived id exists to prevent.
    """
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    normalized = value.strip().lower()
    if not normalized:
        raise ValueError(f"{what} must not be empty")
    if len(normalized) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} is {len(normalized)} characters long; at most {MAX_NAME_LENGTH} allowed")
    if not NAME_PATTERN.match(normalized):
        bad = sorted({c for c in normalized if not re.match(r"[a-z0-9._-]", c)})
        detail = f"characters {''.join(bad)!r} are not allowed" if bad else "must start and end with a letter or digit"
        raise ValueError(f"{what} {value!r}: {detail}; use lowercase letters, digits, '.', '_' and '-'")
    return normalized


def decision_id(origin: str, key: str) -> str:
    """``<origin>-decision-<key>``, both parts normalized."""
    return f"{normalize_name(origin, what='origin')}{SEPARATOR}{normalize_name(key, what='key')}"


def check_decision_id(value: str) -> str:
    """Validate an id given on the command line or read back from a backend."""
    normalized = value.strip().lower()
    if SEPARATOR not in normalized:
        raise ValueError(f"{value!r} is not a decision id: expected '<origin>{SEPARATOR}<key>'")
    if len(normalized) > 2 * MAX_NAME_LENGTH + len(SEPARATOR) or not re.fullmatch(r"[a-z0-9._-]+", normalized):
        raise ValueError(f"{value!r} is not a decision id: use lowercase letters, digits, '.', '_' and '-'")
    return normalized
