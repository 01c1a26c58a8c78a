"""The planner's sources: what a planner's answer may cite, and the check that each citation holds.

A source is a file range of the default branch at its current commit (``path#L3-L9``: the lines are quoted
verbatim, so a later change of the file does not change what was cited) or another resolved decision. Every
check is a rule of the planner (:mod:`parkbot.core.planner`), kept apart so each module reads in one sitting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from parkbot.core import lifecycle
from parkbot.core.config import Config, Planner
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.identity import check_decision_id
from parkbot.core.models import MAX_CITED_LINES, PERSON_ANSWER_KINDS, CitedSource, Decision
from parkbot.core.tracker import Tracker

#: How many sources one answer may cite.
MAX_SOURCES = 10


@runtime_checkable
class SourceFiles(Protocol):
    """Files of the default branch at its current commit: what a planner may cite (a fact, no rule)."""

    def default_branch_commit(self) -> str | None:
        """The default branch's current commit, or None when there is none."""
        ...

    def file_at(self, commit: str, path: str) -> str | None:
        """The text of ``path`` at ``commit``, or None when it is not a file there."""
        ...


_RANGE = re.compile(r"^(?P<path>[^#]+)#L(?P<start>[0-9]{1,7})(?:-L?(?P<end>[0-9]{1,7}))?$")


@dataclass(frozen=True)
class FileRange:
    path: str
    start: int
    end: int


def parse_source(text: str) -> FileRange | str:
    """``docs/refunds.md#L10-L14`` (or ``#L10``) as a file range, else a decision id; else :class:`InvalidInput`."""
    source = text.strip()
    match = _RANGE.match(source)
    if match is not None:
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        if start < 1 or end < start:
            raise InvalidInput(f"source {source}: the line range must run from line 1 on, first line first")
        if end - start + 1 > MAX_CITED_LINES:
            raise InvalidInput(
                f"source {source}: cite at most {MAX_CITED_LINES} lines (the answer quotes them); cite the lines "
                "that answer the question"
            )
        return FileRange(match.group("path").strip(), start, end)
    hint = f"source {source}: cite a file with its line range (docs/refunds.md#L10-L14) or a decision id"
    if "/" in source or "#" in source:
        raise InvalidInput(hint)
    try:
        return check_decision_id(source)
    except ValueError:
        raise InvalidInput(hint) from None


def path_allowed(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` matches one of ``patterns``: ``**`` crosses folders, ``*`` and ``?`` do not."""
    return any(_glob(pattern).fullmatch(path) for pattern in patterns)


def _glob(pattern: str) -> re.Pattern[str]:
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
        elif pattern.startswith("**", index):
            out += ".*"
            index += 2
        elif pattern[index] == "*":
            out += "[^/]*"
            index += 1
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out)


def _safe_path(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and "\\" not in path and all(p not in ("", ".", "..") for p in parts)


def check_source(
    tracker: Tracker, config: Config, planner: Planner, decision: Decision, source: str, files: SourceFiles | None
) -> CitedSource:
    """One cited source, checked; :class:`Refused` naming the source when it does not hold."""
    parsed = parse_source(source)
    if isinstance(parsed, str):
        return _check_decision_source(tracker, config, decision, source, parsed)
    path = parsed.path
    if not _safe_path(path) or not path_allowed(path, planner.sources):
        allowed = ", ".join(planner.sources) or "none (planner.sources is empty)"
        raise Refused(
            f"source {source}: {path} is outside the files the planner may cite (planner.sources: {allowed})",
            reason="source_out_of_scope",
        )
    commit = files.default_branch_commit() if files is not None else None
    if files is None or commit is None:
        raise Refused(
            f"source {source}: this backend cannot read the default branch's files, so it cannot be checked",
            reason="source_missing",
        )
    text = files.file_at(commit, path)
    if text is None:
        raise Refused(
            f"source {source}: {path} is not a file on the default branch at {commit[:12]}", reason="source_missing"
        )
    lines = text.splitlines()
    if parsed.end > len(lines):
        raise Refused(
            f"source {source}: {path} has {len(lines)} line(s) at {commit[:12]}; lines {parsed.start}-{parsed.end} "
            "are not there",
            reason="source_missing",
        )
    quote = "\n".join(lines[parsed.start - 1 : parsed.end])
    return CitedSource(source=source, path=path, commit=commit, start=parsed.start, end=parsed.end, quote=quote)


def _check_decision_source(
    tracker: Tracker, config: Config, decision: Decision, source: str, cited_id: str
) -> CitedSource:
    if cited_id == decision.id:
        raise Refused(f"source {source}: a question cannot cite itself", reason="source_invalid")
    found = tracker.find(cited_id)
    cited = lifecycle.verify(tracker, config, found) if found is not None else None
    if cited is None:
        raise Refused(f"source {source}: no decision {cited_id} in this backlog", reason="source_missing")
    answer = cited.current_answer
    if cited.state != "resolved" or answer is None:
        raise Refused(f"source {source}: {cited_id} is not answered", reason="source_unanswered")
    if answer.kind not in PERSON_ANSWER_KINDS:
        what = {"planner": "a planner", "default": "an explicit default", "precedent": "a precedent"}
        raise Refused(
            f"source {source}: {cited_id} was answered by {what.get(answer.kind, answer.kind)}, not by a person; "
            "only a person's answer may be cited",
            reason="source_not_a_person",
        )
    return CitedSource(source=source, decision=cited_id, answer=answer.value, answered_by=answer.by)
