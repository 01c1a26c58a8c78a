"""Derived identities: a decision's id, from facts that already exist.

Ids are derived from facts that already exist (the origin task and the question's key), never
generated, so a retried filing finds the same item instead of creating another. These functions
are pure and their output is a contract: changing them orphans every existing decision.

The one rule for letters (docs/agents.md says the same): an origin, a key and an option id are
ASCII letters, digits, ``.``, ``_`` and ``-``, starting and ending with a letter or digit, at most
:data:`MAX_NAME_LENGTH` characters. Upper-case ASCII letters are accepted and folded to lower case
(``Billing-42`` is ``billing-42``). Everything is checked *before* folding, so no other character
can fold into an allowed one (the Kelvin sign ``K`` U+212A lowercases to ``k``: it is an error, not
``k``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

#: What a name may look like as written (before folding); the published JSON Schema uses this pattern.
NAME_REGEX = r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$"
if TYPE_CHECKING:
    #: :data:`NAME_REGEX` compiled, on first use (``re`` keeps it): a command that checks no name compiles nothing.
    NAME_PATTERN: re.Pattern[str]
#: The characters a name or a decision id may have as written (before folding): a set, not a pattern, so
#: that nothing is compiled at import for the checks that pass.
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
MAX_NAME_LENGTH = 100
SEPARATOR = "-decision-"
#: The longest decision id: two names of the longest length around the separator.
MAX_ID_LENGTH = 2 * MAX_NAME_LENGTH + len(SEPARATOR)
ALPHABET_HINT = "use ASCII letters, digits, '.', '_' and '-' (upper case is folded to lower case)"


_ENDS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def is_name(value: str) -> bool:
    """Whether ``re.search(NAME_REGEX, value)`` finds a match (``$`` matching before one final newline, as
    it does), answered without compiling the pattern: a command that reads names checks them all this way."""
    written = value[:-1] if value.endswith("\n") else value
    return bool(written) and written[0] in _ENDS and written[-1] in _ENDS and _ALPHABET.issuperset(written)


def _fold(value: str) -> str:
    """ASCII-only lower case: the checks above guarantee nothing else is left to fold."""
    return value.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def normalize_name(value: str, *, what: str = "name") -> str:
    """Check ``value`` and fold it to lower case; anything outside the alphabet is an error, never rewritten.

    Rewriting would make two different origins share one identity, which is exactly the silent
    merge the derived id exists to prevent.
    """
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    written = value.strip()
    if not written:
        raise ValueError(f"{what} must not be empty")
    if len(written) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} is {len(written)} characters long; at most {MAX_NAME_LENGTH} allowed")
    if not is_name(written):
        bad = sorted({c for c in written if c not in _ALPHABET})
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" if not c.isascii() else repr(c) for c in bad)
        detail = f"characters {shown} are not allowed" if bad else "must start and end with a letter or digit"
        raise ValueError(f"{what} {value!r}: {detail}; {ALPHABET_HINT}")
    return _fold(written)


def decision_id(origin: str, key: str) -> str:
    """``<origin>-decision-<key>``, both parts normalized."""
    return f"{normalize_name(origin, what='origin')}{SEPARATOR}{normalize_name(key, what='key')}"


def check_decision_id(value: str) -> str:
    """Validate an id given on the command line or read back from a backend; the folded id."""
    written = value.strip()
    if SEPARATOR not in _fold(written):
        raise ValueError(f"{value!r} is not a decision id: expected '<origin>{SEPARATOR}<key>'")
    if len(written) > MAX_ID_LENGTH:
        raise ValueError(f"{value!r} is not a decision id: at most {MAX_ID_LENGTH} characters")
    if not written or not _ALPHABET.issuperset(written):
        raise ValueError(f"{value!r} is not a decision id: {ALPHABET_HINT}")
    return _fold(written)


def __getattr__(name: str) -> Any:
    if name == "NAME_PATTERN":
        pattern = globals()[name] = re.compile(NAME_REGEX)
        return pattern
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
