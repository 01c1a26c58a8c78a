"""What parkbot writes on GitHub, and how it reads its own writing back. Pure functions, no I/O.

Decision issue body (top to bottom): the question, the options as a table with the exact command to
type for each, how to answer otherwise, ``work_so_far`` folded in ``<details>`` as a fenced JSON
block, a table with origin, run, guess, owner chain and id, and last a hidden machine-readable block::

    <!-- parkbot:decision {"v":1,"id":"...",...} -->

The block holds the whole :class:`~parkbot.core.models.Decision` (``parse_decision(render_decision(d).body) ==
d``); the visible part is for people and is never parsed. Untrusted text is made safe by
``parkbot.trackers.github.text`` (no mention pings, no HTML, no way out of the hidden block).

Size: a body holds at most 65,536 characters. When the full rendering does not fit, the visible
``work_so_far`` is cut (with a note saying where the rest is) and the hidden block keeps the full
work compressed (zlib + base64); when even that is too big, the compressed work goes to numbered
follow-up comments (``<!-- parkbot:work <sha>.<i>.<n> -->``) and the block records their count and
checksum. :func:`parse_decision` reassembles it from those comments.

Bot comments start with a hidden marker ``<!-- parkbot:<kind> <key> [json] -->`` so a re-run finds
and edits its earlier comment instead of adding a second one. Kinds: ``answer`` (the resolution
record, key = decision id), ``pointer`` (on a dependent PR, key = decision id), ``reply`` (answer to
a command comment, key = that comment's id), ``notice`` (records someone else changed, key = a digest
of what was found), ``work`` (overflow chunks).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from parkbot.core.models import Answer, Decision
from parkbot.markdown import code_block, code_span, escape_markdown, inert, one_line, table_cell, truncate
from parkbot.trackers.github.gate_text import (  # noqa: F401 - the gate's text, named here too
    CHECK_NAME,
    CHECK_SUMMARY_LIMIT,
    CHECK_TITLE_LIMIT,
    STATUS_CONTEXT,
    CheckOutput,
    check_failure,
    check_output,
    gate_description,
    gate_state,
    linked_summary,
)
from parkbot.trackers.github.text import SAFE_BODY_LIMIT as BODY_LIMIT
from parkbot.trackers.github.text import TITLE_LIMIT, chunks, hidden_json, pack, unpack

BLOCK_VERSION = 1
#: Size of one overflow comment's payload (well under GitHub's comment limit).
CHUNK_SIZE = 60_000
#: Keep at least this much of the visible work_so_far preview when space is short.
MIN_PREVIEW = 2_000

_MARKER = re.compile(r"<!-- parkbot:(?P<kind>[a-z_]+) (?P<key>[^\s<>{}]+)(?: (?P<data>\{[^<>]*\}))? -->")
_DECISION_BLOCK = re.compile(r"<!-- parkbot:decision (?P<data>\{[^<>]*\}) -->")


class ParseError(ValueError):
    """A hidden block or marker is missing or damaged."""


# --- markers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Marker:
    kind: str
    key: str
    data: dict[str, Any] = field(default_factory=dict)


def marker(kind: str, key: str, data: dict[str, Any] | None = None) -> str:
    """``<!-- parkbot:<kind> <key> [json] -->`` (the key must be one token without ``<>{}``)."""
    if not re.fullmatch(r"[a-z_]+", kind) or not re.fullmatch(r"[^\s<>{}]+", key):
        raise ValueError(f"invalid marker {kind!r} {key!r}")
    payload = f" {hidden_json(data)}" if data is not None else ""
    return f"<!-- parkbot:{kind} {key}{payload} -->"


def read_marker(body: str | None) -> Marker | None:
    """The marker a bot comment starts with, or None (a marker elsewhere in a comment is ignored)."""
    if not body:
        return None
    match = _MARKER.match(body.lstrip("\ufeff"))
    if not match:
        return None
    data: dict[str, Any] = {}
    if match.group("data"):
        try:
            loaded = json.loads(match.group("data"))
        except json.JSONDecodeError:
            return None
        if not isinstance(loaded, dict):
            return None
        data = loaded
    return Marker(match.group("kind"), match.group("key"), data)


def is_bot_comment(body: str | None) -> bool:
    return read_marker(body) is not None


# --- the decision issue ----------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedDecision:
    """An issue title and body, plus the overflow comments the body refers to (usually none)."""

    title: str
    body: str
    overflow: tuple[str, ...] = ()
    storage: str = "inline"  # inline | packed | comments


def issue_title(decision: Decision) -> str:
    return one_line(decision.title, TITLE_LIMIT)


def _payload(decision: Decision) -> dict[str, Any]:
    data = decision.model_dump(mode="json")
    return {"v": BLOCK_VERSION, **data}


def _block(payload: dict[str, Any]) -> str:
    return f"<!-- parkbot:decision {hidden_json(payload)} -->"


def _status_section(decision: Decision) -> str:
    """A banner for a closed decision, and the precedent the bot found, if any."""
    lines: list[str] = []
    answer = decision.current_answer  # a corrected answer replaces the first; the history below keeps both
    if decision.with_planner:
        lines.append(
            "> [!NOTE]\n> **With the planner** until "
            f"{decision.planner.until.isoformat() if decision.planner else ''}: it may answer from cited "
            "sources; then, or when it passes, the owner is assigned."
        )
    if decision.state == "resolved" and answer is not None:
        flag = " (an explicit default: an assumption, not a decision)" if answer.assumption else ""
        if answer.kind == "planner":
            flag = " by the planner, from cited sources (the owner reviews it: `/accept` or `/override <option>`)"
        lines.append(
            f"> [!NOTE]\n> **Answered{flag}:**{_answer_text(decision, answer).replace(chr(10), chr(10) + '> ')}"
            f"\n> by {code_span(answer.by)} at {answer.at.isoformat()}"
        )
    elif decision.state == "abandoned":
        lines.append("> [!NOTE]\n> **Closed without an answer.** Dependents stay blocked.")
    for change in decision.corrections:
        verb = "Corrected" if change.kind == "correct" else "Overridden"
        why = f": {escape_markdown(one_line(change.reason, 200))}" if change.reason else ""
        lines.append(
            f"{verb} by {code_span(change.by)} at {change.at.isoformat()}: {code_span(change.previous.value)} → "
            f"{code_span(change.answer.value)}{why}"
        )
    if decision.precedent is not None:
        p = decision.precedent
        where = f" ({escape_markdown(p.location)})" if p.location else ""
        lines.append(
            f"A previous answer to the same question: {code_span(p.answer)} in {code_span(p.decision)}, "
            f"by {code_span(p.answered_by)} at {p.answered_at.isoformat()}{where}."
        )
    return "\n\n".join(lines)


def _options_section(decision: Decision) -> str:
    lines: list[str] = []
    if decision.kind == "review":
        for n, assumption in enumerate(decision.assumptions, start=1):
            done = next((o for o in decision.overrides if o.assumption == n), None)
            note = f" — overridden: {inert(one_line(done.text, 500))}" if done else ""
            lines.append(f"{n}. {inert(one_line(assumption.text, 1000))}{note}")
        lines.append("")
        lines.append("Accept them all: `/accept`; override one: `/override <n> <what it should be>`.")
        lines.append("Commands must start a line of a new comment; only the owners below can answer.")
        return "\n".join(lines)
    if decision.options:
        lines += ["| Option | | To choose it, comment |", "| --- | --- | --- |"]
        for option in decision.options:
            note = "agent's guess" if option.id == decision.guess else ""
            lines.append(f"| {code_span(option.id)} | {_inert_cell(option.label)} {note} | `/decide {option.id}` |")
        lines.append("")
    how = []
    if decision.free_text_allowed:
        how.append("answer in words: `/answer <your answer>`")
    if decision.options:
        how.append("answer with an explicit default, recorded as an assumption: `/default <option-id>`")
    how.append("pass it up the hierarchy: `/escalate`")
    lines.append("Or " + "; ".join(how) + ".")
    lines.append("Commands must start a line of a new comment; only the owners below can answer.")
    return "\n".join(lines)


def _inert_cell(text: str) -> str:
    """Agent text in a table cell of parkbot's own issue: :func:`~parkbot.markdown.inert`, on one line,
    with no bare ``|`` left (GitHub ends a cell at one even inside a code span)."""
    return re.sub(r"(?<!\\)\|", r"\\|", inert(" ".join(text.split())))


def _meta_section(decision: Decision) -> str:
    chain = " → ".join(code_span(o) for o in decision.chain())
    rows = [
        ("Decision id", code_span(decision.id)),
        ("Origin", code_span(decision.origin)),
        ("Run", code_span(decision.run) if decision.run else "—"),
        ("Agent's guess", code_span(decision.guess) if decision.guess else "—"),
        ("Owner", chain),
        ("Blocking", "yes" if decision.blocking else "no"),
    ]
    if decision.dependents:
        rows.append(("Dependents", ", ".join(table_cell(d) for d in decision.dependents)))
    if decision.assumptions:
        rows.append(("Assumptions", "<br>".join(_inert_cell(a.text) for a in decision.assumptions)))
    out = ["| | |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows)]
    return "\n".join(out)


def _work_section(decision: Decision, budget: int | None, where: str) -> str:
    if decision.work_so_far is None:
        return ""
    text = json.dumps(decision.work_so_far, indent=2, ensure_ascii=False, sort_keys=True)
    # Valid JSON escapes, so the preview holds no tag, comment delimiter or mention even as code.
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("@", "\\u0040")):
        text = text.replace(char, escaped)
    summary = "<details><summary>Work so far</summary>\n\n"
    note = ""
    if budget is not None and len(text) > budget:
        shown = max(budget, 0)
        note = (
            f"\n\n_Cut for display: {shown:,} of {len(text):,} characters shown. "
            f"The full work is kept {where} and is returned verbatim on resume._"
        )
        text = truncate(text, shown, "\n…")
    return f"{summary}{code_block(text, 'json')}{note}\n\n</details>"


def render_decision(decision: Decision, *, limit: int = BODY_LIMIT) -> RenderedDecision:
    """The issue title, body and overflow comments for a decision (see the module docstring)."""
    status = _status_section(decision)
    head = (status + "\n\n" if status else "") + inert(decision.question.strip())
    head += "\n\n" + _options_section(decision)
    meta = _meta_section(decision)
    title = issue_title(decision)

    def assemble(work: str, block: str) -> str:
        parts = [head, work, meta, block]
        return "\n\n".join(p for p in parts if p) + "\n"

    full_block = _block(_payload(decision))
    body = assemble(_work_section(decision, None, ""), full_block)
    if len(body) <= limit:
        return RenderedDecision(title, body)

    # Too big: the hidden block keeps everything, the visible preview is cut to what is left.
    slim = _payload(decision)
    work = slim.pop("work_so_far")
    fixed = len(assemble("", "")) + 400  # the <details> wrapper and the truncation note
    candidates: list[tuple[str, str, tuple[str, ...], str]] = [("inline", full_block, (), "in this issue")]
    packed = pack(work)
    candidates.append(("packed", _block({**slim, "_work": {"z": packed}}), (), "compressed in this issue"))
    digest = hashlib.sha256(packed.encode("ascii")).hexdigest()[:16]
    pieces = chunks(packed, CHUNK_SIZE)
    overflow = tuple(
        f"{marker('work', f'{digest}.{i}.{len(pieces)}')}\n"
        f"Part {i} of {len(pieces)} of the work saved with this decision (compressed; read by parkbot).\n\n"
        f"<details><summary>data</summary>\n\n{piece}\n\n</details>\n"
        for i, piece in enumerate(pieces, start=1)
    )
    candidates.append(
        (
            "comments",
            _block({**slim, "_work": {"chunks": len(pieces), "sha256": digest}}),
            overflow,
            "in the follow-up comments marked `parkbot:work`",
        )
    )
    for storage, block, extra, where in candidates:
        budget = limit - fixed - len(block)
        if budget >= MIN_PREVIEW or storage == "comments":
            body = assemble(_work_section(decision, budget, where), block)
            if len(body) > limit:  # the preview estimate was off: drop the preview entirely
                body = assemble("", block)
            if len(body) <= limit:
                return RenderedDecision(title, body, extra, storage)
    raise ValueError("the decision does not fit in an issue even without its work")  # pragma: no cover


@dataclass(frozen=True)
class WorkRef:
    """The hidden block says the work lives in ``chunks`` overflow comments."""

    chunks: int
    sha256: str


def decision_payload(body: str | None) -> dict[str, Any] | None:
    """The raw hidden block of an issue body, or None when there is none (not a decision issue)."""
    if not body:
        return None
    found = _DECISION_BLOCK.findall(body)
    if not found:
        return None
    try:
        data = json.loads(found[-1])
    except json.JSONDecodeError as exc:
        raise ParseError(f"the hidden decision block is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ParseError("the hidden decision block is not an object")
    return data


def overflow_ref(body: str | None) -> WorkRef | None:
    """Whether the body's work lives in overflow comments (the caller must fetch them)."""
    data = decision_payload(body)
    work = (data or {}).get("_work")
    if isinstance(work, dict) and "chunks" in work:
        return WorkRef(int(work["chunks"]), str(work["sha256"]))
    return None


def parse_decision(body: str | None, overflow: Iterable[str] = ()) -> Decision:
    """The decision stored in an issue body (and its overflow comments, where it needed them)."""
    data = decision_payload(body)
    if data is None:
        raise ParseError("no parkbot decision block in this issue")
    data = dict(data)
    version = data.pop("v", None)
    if version != BLOCK_VERSION:
        raise ParseError(f"unsupported decision block version {version!r}")
    work = data.pop("_work", None)
    if isinstance(work, dict):
        if "z" in work:
            data["work_so_far"] = unpack(str(work["z"]))
        elif "chunks" in work:
            data["work_so_far"] = _reassemble(int(work["chunks"]), str(work["sha256"]), overflow)
    try:
        return Decision.model_validate(data)
    except ValueError as exc:
        raise ParseError(f"the hidden decision block does not hold a valid decision: {exc}") from exc


_CHUNK_DATA = re.compile(r"<details><summary>data</summary>\s*(?P<data>[A-Za-z0-9+/=]*)\s*</details>")


def _reassemble(count: int, digest: str, overflow: Iterable[str]) -> Any:
    parts: dict[int, str] = {}
    for body in overflow:
        found = read_marker(body)
        if found is None or found.kind != "work":
            continue
        prefix, _, rest = found.key.partition(".")
        index, _, total = rest.partition(".")
        if prefix != digest or total != str(count) or not index.isdigit():
            continue
        match = _CHUNK_DATA.search(body)
        if match:
            parts[int(index)] = match.group("data")
    if sorted(parts) != list(range(1, count + 1)):
        raise ParseError(f"the work of this decision is split over {count} comments; some are missing")
    packed = "".join(parts[i] for i in range(1, count + 1))
    if hashlib.sha256(packed.encode("ascii")).hexdigest()[:16] != digest:
        raise ParseError("the work saved in the overflow comments does not match its checksum")
    return unpack(packed)


def work_chunk_key(body: str | None) -> str | None:
    """The ``<sha>.<i>.<n>`` key of an overflow comment, or None."""
    found = read_marker(body)
    return found.key if found and found.kind == "work" else None


# --- bot comments ----------------------------------------------------------------------------


def _answer_text(decision: Decision, answer: Answer) -> str:
    label = next((o.label for o in decision.options if o.id == answer.value), None)
    if answer.kind == "free_text":
        what = "\n\n" + "\n".join("> " + line for line in escape_markdown(answer.value).splitlines())
    else:
        what = f" {code_span(answer.value)}" + (f" ({escape_markdown(one_line(label, 200))})" if label else "")
    return what


def render_answer_comment(decision: Decision, answer: Answer) -> str:
    """Resolution step (a): the durable record of who answered what, when, from which comment."""
    data = answer.model_dump(mode="json", exclude_none=True)
    lines = [marker("answer", decision.id, data)]
    if answer.assumption:
        lines.append(f"**Answered with an explicit default:**{_answer_text(decision, answer)}")
        lines.append("")
        lines.append("> [!WARNING]\n> This is an assumption, not a decision: it is flagged as such in every record.")
    elif answer.kind == "planner":
        lines.append(f"**Answered by the planner, from cited sources:**{_answer_text(decision, answer)}")
        lines.append("")
        lines.extend(_cited_sources(answer))
        lines.append("The owner reviews it: `/accept` keeps it, `/override <option> [why]` replaces it.")
    else:
        lines.append(f"**Answered:**{_answer_text(decision, answer)}")
    lines.append("")
    via = f" via {escape_markdown(answer.source)}" if answer.source else ""
    lines.append(f"By {code_span(answer.by)} at {answer.at.isoformat()}{via}.")
    lines.append("")
    lines.append("Dependents are being unblocked; this issue closes when they are.")
    return "\n".join(lines) + "\n"


def _cited_sources(answer: Answer) -> list[str]:
    """Each cited source, visibly: a file's lines quoted verbatim with the commit, or a person's answer."""
    lines: list[str] = []
    for cited in answer.sources:
        if cited.decision is not None:
            lines.append(
                f"- {code_span(cited.decision)}: answered {code_span(cited.answer or '')} by "
                f"{code_span(cited.answered_by or '')}"
            )
            continue
        lines.append(f"- {code_span(cited.source)} at {code_span((cited.commit or '')[:12])}:")
        lines.append("")
        lines.append(code_block(cited.quote or ""))
    lines.append("")
    return lines


def parse_answer_comment(body: str | None, decision_id: str) -> Answer | None:
    """The answer recorded in a resolution comment for this decision, or None."""
    found = read_marker(body)
    if found is None or found.kind != "answer" or found.key != decision_id:
        return None
    try:
        return Answer.model_validate(found.data)
    except ValueError:
        return None


def render_pointer_comment(decision: Decision, answer: Answer, *, issue_number: int | None, url: str | None) -> str:
    """Resolution step (b): one comment per dependent PR pointing at the answer."""
    data: dict[str, Any] = {"answer": answer.value, "kind": answer.kind}
    if issue_number is not None:
        data["issue"] = issue_number
    ref = f"#{issue_number}" if issue_number is not None else code_span(decision.id)
    link = f" ([answer]({url}))" if url else ""
    lines = [
        marker("pointer", decision.id, data),
        f"Decision {ref} ({code_span(decision.id)}) is answered:{_answer_text(decision, answer)}{link}",
    ]
    if answer.assumption:
        lines.append("")
        lines.append("_Answered with an explicit default: treat it as an assumption._")
    return "\n".join(lines) + "\n"


def render_notice(key: str, problems: Sequence[str], own_login: str) -> str:
    """The one notice on a decision issue whose records someone other than parkbot changed.

    ``problems`` say what was changed and by whom (plain text, escaped here).
    """
    lines = [
        marker("notice", key),
        "> [!WARNING]",
        "> **parkbot found changes it did not make to its records of this decision, and ignores them:**",
        ">",
        *(f"> - {escape_markdown(one_line(problem, 1000))}" for problem in problems),
        ">",
        f"> Only parkbot ({code_span(own_login)}) writes these records, and only an owner's own command answers "
        "this question: until one does, the decision stays open and blocks its dependents. parkbot writes its "
        "own version back with its next change to this issue.",
    ]
    return "\n".join(lines) + "\n"


def render_reply(key: str, text: str) -> str:
    """A reply to a command comment (key: that comment's id). ``text`` is Markdown that the caller
    built with untrusted parts already escaped (``escape_markdown``/``code_span``)."""
    return f"{marker('reply', key)}\n{text}\n"
