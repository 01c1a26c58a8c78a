"""Comment commands, parsed from untrusted comment text. Pure: no I/O, no GitHub.

A command is a line that starts (after at most three spaces) with one of::

    /decide <option-id>       answer with one of the options
    /answer <free text>       answer in words (only where the decision allows free text)
    /default <option-id>      answer with an explicit default, flagged as an assumption
    /escalate [to]            move the question one level up the hierarchy
    /return                   (policy, later) hand the question back down
    /accept                   (policy, later) accept a reviewed assumption
    /override <n> <text>      (policy, later) override assumption number n

Rules:

* Lines inside fenced code blocks (```` ``` ```` or ``~~~``), indented code blocks (four spaces or a
  tab), ``>`` block quotes and HTML comments are never commands: quoting someone's ``/decide``
  must not decide anything.
* Command names are case-insensitive; option ids are passed on as typed (the lifecycle matches
  them case-insensitively against the decision's options).
* ``/answer`` takes the rest of its line plus the following lines of the same paragraph (up to a
  blank line, a quote, a fence or another command line).
* **Multiple commands in one comment: the first one wins.** The rest are reported by
  :func:`parse_all` but never acted on, so a comment cannot do two things at once and the
  outcome never depends on the order in which steps happen to succeed.
* An unknown ``/word`` is not a command (people write paths like ``/usr/bin``). A known command with
  a malformed argument is returned with ``error`` set, so the bot can say what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

CommandName = Literal["decide", "answer", "default", "escalate", "return", "accept", "override"]
COMMAND_NAMES: tuple[CommandName, ...] = ("decide", "answer", "default", "escalate", "return", "accept", "override")
#: Commands that answer a decision (they go through ``bot.core.lifecycle.resolve``).
ANSWERING: frozenset[str] = frozenset({"decide", "answer", "default"})

_COMMAND_LINE = re.compile(r"^ {0,3}/(?P<name>[A-Za-z]+)(?=\s|$)(?P<rest>.*)$")
_FENCE_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_QUOTE = re.compile(r"^ {0,3}>")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_TOKEN = re.compile(r"^\S+$")


@dataclass(frozen=True)
class Command:
    """One parsed command. ``line`` is 1-based in the comment as received."""

    name: CommandName
    arg: str | None = None
    number: int | None = None
    line: int = 1
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def render(self) -> str:
        """The command as a person would type it (for replies)."""
        parts = [f"/{self.name}"]
        if self.number is not None:
            parts.append(str(self.number))
        if self.arg:
            parts.append(self.arg)
        return " ".join(parts)


def _visible_lines(body: str) -> list[tuple[int, str | None]]:
    """(line number, text) where text is None for lines that cannot hold a command."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    # HTML comments are invisible on GitHub: blank them but keep the line numbering.
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n") + " ", text)
    out: list[tuple[int, str | None]] = []
    fence: str | None = None
    previous_blank = True
    for number, line in enumerate(text.split("\n"), start=1):
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None
            out.append((number, None))
            previous_blank = False
            continue
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened.group("fence")[0] == "`" and "`" in opened.group("info")):
            fence = opened.group("fence")
            out.append((number, None))
            previous_blank = False
            continue
        if _QUOTE.match(line) or (_INDENTED.match(line) and previous_blank):
            out.append((number, None))
            previous_blank = False
            continue
        out.append((number, line))
        previous_blank = not line.strip()
    return out


def _build(name: str, rest: str, line: int, continuation: list[str]) -> Command:
    cname: CommandName = name  # type: ignore[assignment]
    args = rest.strip()
    if cname in ("decide", "default"):
        token = args.split()[0] if args else ""
        if not token:
            return Command(cname, line=line, error=f"/{cname} needs an option id, e.g. `/{cname} <option-id>`")
        if len(args.split()) > 1:
            return Command(cname, arg=token, line=line, error=f"/{cname} takes exactly one option id, got {args!r}")
        return Command(cname, arg=token, line=line)
    if cname == "answer":
        text = "\n".join([args, *continuation]).strip()
        if not text:
            return Command(cname, line=line, error="/answer needs the answer text, e.g. `/answer ship it on Monday`")
        return Command(cname, arg=text, line=line)
    if cname == "escalate":
        if not args:
            return Command(cname, line=line)
        if not _TOKEN.match(args):
            return Command(cname, line=line, error="/escalate takes at most one name: `/escalate` or `/escalate <to>`")
        return Command(cname, arg=args, line=line)
    if cname in ("return", "accept"):
        if args:
            return Command(cname, arg=args, line=line, error=f"/{cname} takes no argument")
        return Command(cname, line=line)
    # override <n> <text>
    first, _, text = args.partition(" ")
    if not first.isdigit():
        return Command(cname, line=line, error="/override needs an assumption number and text: `/override <n> <text>`")
    full = "\n".join([text.strip(), *continuation]).strip()
    if not full:
        return Command(cname, number=int(first), line=line, error="/override needs the replacement text")
    return Command(cname, number=int(first), arg=full, line=line)


def parse_all(body: str) -> list[Command]:
    """Every command in the comment, in order (only the first one is ever acted on)."""
    lines = _visible_lines(body or "")
    commands: list[Command] = []
    index = 0
    while index < len(lines):
        number, text = lines[index]
        index += 1
        if text is None:
            continue
        match = _COMMAND_LINE.match(text)
        if not match or match.group("name").lower() not in COMMAND_NAMES:
            continue
        name = match.group("name").lower()
        continuation: list[str] = []
        if name in ("answer", "override"):
            while index < len(lines):
                _, following = lines[index]
                if following is None or not following.strip() or _COMMAND_LINE.match(following):
                    break
                continuation.append(following.strip())
                index += 1
        commands.append(_build(name, match.group("rest"), number, continuation))
    return commands


def parse(body: str) -> Command | None:
    """The comment's command: the first one, or None when there is none."""
    found = parse_all(body)
    return found[0] if found else None
