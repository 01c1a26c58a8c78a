"""How a pull request names the decisions it waits for, in its own text: ``Blocked by #N`` / ``Depends on #N``
lines in its body, ``Blocked-by: <decision-id>`` trailers in its commits, and ``#N`` dependents. Pure."""

from __future__ import annotations

import re
from typing import Any

#: A dependent that is a pull request of this repository: ``#12``.
PR_TARGET = re.compile(r"^#(\d+)$")
_BODY_LINK = re.compile(
    r"(?im)\b(?:blocked[ \t]*-?[ \t]*by|depends[ \t]*-?[ \t]*on)[ \t]*:?[ \t]*"
    r"(?P<refs>(?:(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/issues/\d+)"
    r"(?:[ \t]*(?:,|and|&)[ \t]*(?:(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/issues/\d+))*)"
)
_REF = re.compile(
    r"(?:(?P<repo>[\w.-]+/[\w.-]+)?#(?P<n>\d+))|(?:https?://\S+?/(?P<urlrepo>[\w.-]+/[\w.-]+)/issues/(?P<un>\d+))"
)
TRAILER = re.compile(r"(?im)^[ \t]*blocked-by[ \t]*:[ \t]*(?P<value>\S+)[ \t]*$")


def body_refs(text: str | None, repository: str) -> list[int]:
    """Issue numbers named in ``Blocked by`` / ``Depends on`` lines of ``text``, in ``repository`` only."""
    numbers: list[int] = []
    for match in _BODY_LINK.finditer(text or ""):
        for ref in _REF.finditer(match.group("refs")):
            repo = ref.group("repo") or ref.group("urlrepo")
            if repo and repo.casefold() != repository.casefold():
                continue
            numbers.append(int(ref.group("n") or ref.group("un")))
    return list(dict.fromkeys(numbers))


def head_branch(pull: dict[str, Any], repository: str) -> str | None:
    """The PR's head branch when it is a branch of ``repository`` (None for forks and deleted forks)."""
    head = pull.get("head") or {}
    ref = head.get("ref")
    head_repo = (head.get("repo") or {}).get("full_name")
    if not ref or not head_repo or head_repo.casefold() != repository.casefold():
        return None
    return str(ref)
