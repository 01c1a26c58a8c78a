"""Where the git backlog keeps things: its ref, and the path of every file on it (see the package docstring).

``h2(x)``/``h16(x)`` are the first 2/16 hex digits of ``sha256(x)`` (:func:`digest`; the paths do not
depend on the repository's object format). Ids are checked before they become a file name;
dependents are normalized before they are hashed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from parkbot.core.errors import InvalidInput
from parkbot.core.models import parse_dependent

DEFAULT_REF = "refs/parkbot/backlog"
_ID_START = "abcdefghijklmnopqrstuvwxyz0123456789"
_ID_CHARACTERS = _ID_START + "._-"

#: Marks a backlog written in layout 2; a non-empty backlog without it is layout 1 (read, then migrated).
LAYOUT_FILE = "LAYOUT"
LAYOUT_MARK = b"parkbot backlog layout 2 (docs/git-backlog.md)\n"
DECISIONS = "decisions"
ANSWERS = "answers"
#: Answers that lost a sync to an earlier, different answer, per decision, until an owner confirms one.
CONFLICTS = "conflicts"
#: Index buckets sit in the ``decisions`` tree beside the decision buckets: a write rewrites one tree fewer.
INDEX_PREFIX = "index-"
NOTES = "notes"
LOG_ARCHIVE = "log"
LOG_TAIL = "log.jsonl"
PRECEDENTS = "precedents"
#: Layout 1's indexes, folded into ``decisions/index-*.json`` by the migration.
LEGACY_INDEXES = ("links", "origins", "runs")


def builtin_hash(name: str) -> Callable[[bytes], Any]:
    """The interpreter's own ``sha1`` (``_sha1``) or ``sha256`` (``_sha2``, ``_sha256`` before Python 3.12):
    the same digests as :mod:`hashlib`'s, without loading OpenSSL's binding, which ``import hashlib`` does
    (~2 ms at every start). :mod:`hashlib` where a build has neither."""
    sha256 = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    try:
        found: Callable[[bytes], Any] = getattr(__import__(sha256 if name == "sha256" else "_sha1"), name)
    except (ImportError, AttributeError):
        import hashlib

        return getattr(hashlib, name)  # type: ignore[no-any-return]
    return found


_SHA256 = builtin_hash("sha256")


def digest(value: str) -> str:
    """The SHA-256 of ``value`` (UTF-8), in hex."""
    hexdigest: str = _SHA256(value.encode("utf-8")).hexdigest()
    return hexdigest


def is_decision_id(text: str) -> bool:
    """Lowercase letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit: what the pattern
    ``^[a-z0-9][a-z0-9._-]*$`` matched (its ``$`` allowed a trailing newline, and so does this). String tests,
    not a pattern: compiling one at import costs every command."""
    name = text.removesuffix("\n")
    return name[:1] != "" and name[0] in _ID_START and not name.strip(_ID_CHARACTERS)


def check_id(decision_id: str) -> str:
    if not is_decision_id(decision_id):
        raise InvalidInput(f"{decision_id!r} is not a decision id: use lowercase letters, digits, '.', '_' and '-'")
    return decision_id


def _bucketed(folder: str, decision_id: str) -> str:
    """``folder/<first two hex digits of the id's hash>/<id>.json``: one file per decision, 256 buckets."""
    return f"{folder}/{digest(decision_id)[:2]}/{check_id(decision_id)}.json"


def decision_path(decision_id: str) -> str:
    """Where a decision's record lives on the backlog ref."""
    return _bucketed(DECISIONS, decision_id)


def answer_path(decision_id: str) -> str:
    """Where the answer recorded by resolution step (a) lives."""
    return _bucketed(ANSWERS, decision_id)


def conflicts_path(decision_id: str) -> str:
    """The answers that conflicted with the one that stands (written by ``sync``, cleared by a confirmation)."""
    return _bucketed(CONFLICTS, decision_id)


def notes_path(target: str) -> str:
    """The answer notes of one dependent (resolution step (b))."""
    hashed = digest(target)
    return f"{NOTES}/{hashed[:2]}/{hashed[:16]}.json"


def precedent_paths(entry_key: str | None, question: str | None) -> list[str]:
    """Where a resolution is indexed for the precedent lookup: by key, and by normalized question."""
    from parkbot.core.questions import normalize_question  # writes and precedent lookups only

    keys = ([f"key:{entry_key}"] if entry_key else []) + ([f"text:{normalize_question(question)}"] if question else [])
    return [f"{PRECEDENTS}/{(hashed := digest(k))[:2]}/{hashed[2:18]}.jsonl" for k in keys]


def log_segment_path(seq: int) -> str:
    """One sealed segment of the question log: ``log/<seq>.jsonl`` (layout 1: ``log/<seq // 256>/<seq>.jsonl``)."""
    return f"{LOG_ARCHIVE}/{seq:08d}.jsonl"


# -- the index: origin, run and dependent sets in 256 bucket files beside the decision buckets ----------


def origin_key(origin: str) -> str:
    """Index key of the open decisions an origin task raised (the question budgets; ``list --state open``)."""
    return f"origin:{origin}"


def run_key(run: str) -> str:
    """Index key of the open decisions a run raised."""
    return f"run:{run}"


def links_key(target: str) -> str:
    """Index key of the decisions a dependent (``#12``, ``branch:<name>``) is blocked by."""
    return f"links:{target}"


def index_path(key: str) -> str:
    """The bucket file that holds ``key``: ``decisions/index-<h2(key)>.json``."""
    return f"{DECISIONS}/{INDEX_PREFIX}{digest(key)[:2]}.json"


def is_index_path(path: str) -> bool:
    return path.startswith(f"{DECISIONS}/{INDEX_PREFIX}") and path.count("/") == 1


def dump_index(bucket: dict[str, list[str]]) -> bytes:
    """A bucket file: one sorted key per line, so a change rewrites one line and diffs read well."""
    lines = [f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(sorted(ids))}" for key, ids in sorted(bucket.items())]
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")


# -- layout 1 (read until the first write migrates it) ---------------------------------------------------


def legacy_links_path(target: str) -> str:
    hashed = digest(target)
    return f"links/{hashed[:2]}/{hashed[:16]}.json"


def legacy_origin_path(origin: str) -> str:
    return f"origins/{digest(origin)[:2]}/{check_id(origin)}.json"


def legacy_run_path(run: str) -> str:
    hashed = digest(run)
    return f"runs/{hashed[:2]}/{hashed[:16]}.json"


def normalize_target(target: str) -> str:
    """``#N`` or ``branch:<name>``, as dependents are stored (``refs/heads/`` dropped)."""
    try:
        return parse_dependent(target)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
