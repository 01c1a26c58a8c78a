"""Comment commands, parsed from untrusted comment text as its reader sees it rendered. Pure: no I/O.

A command is a line of a top-level paragraph that starts with one of::

    /decide <option-id>       answer with one of the options
    /answer <free text>       answer in words (only where the decision allows free text)
    /default <option-id>      answer with an explicit default, flagged as an assumption
    /escalate [to]            move the question one level up the hierarchy
    /return                   hand the question back to the requester of an interactive run
    /accept                   accept a review item's stated assumptions
    /override <n> <text>      override assumption number n of a review item
    /override <option> [why]  replace a planner's answer with the owner's
    /correct <option> <why>   correct a resolved decision's answer (whoever answered, or an owner above)
    /cite <option> <source>…  the planner answers from cited sources (only the configured planner)
    /pass [why]               the planner hands the question to its owner now
    /help                     list this decision's options and the exact commands to type

Rules:

* What counts is decided on the rendered structure of the comment, by a CommonMark parser
  (markdown-it-py, with GitHub's tables): a line inside a list, a table, a block quote, a heading, a
  code block or fence, an HTML block or an HTML comment is never a command, exactly as the owner sees
  it rendered. Quoting someone's ``/decide`` must not decide anything. Neither is a line whose text
  does not start the line visibly (inside code, emphasis or a link).
* Command names are case-insensitive; option ids are passed on as typed (the lifecycle matches them
  case-insensitively against the decision's options).
* ``/answer`` and ``/override`` take the rest of their line plus the following lines of the same
  paragraph, up to another command line (a blank line, a quote or a fence ends the paragraph).
* **Multiple commands in one comment: the first one wins.** The rest are reported by :func:`parse_all`
  but never acted on, so a comment cannot do two things at once.
* An unknown ``/word`` is not a command (people write paths like ``/usr/bin``), unless it is a near miss
  of one (``/decid``): then :func:`parse` returns it as ``unknown`` with ``meant`` naming the closest
  command, so the owner learns what to type. A known command with a malformed argument comes back with
  ``error`` set: a :class:`CommandProblem` (a reason code and what was typed), which each surface words in its
  own commands (GitHub: :func:`parkbot.events.replies.command_problem`).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

CommandName = Literal[
    "decide",
    "answer",
    "default",
    "escalate",
    "return",
    "accept",
    "override",
    "help",
    "correct",
    "cite",
    "pass",
    "unknown",
]
COMMAND_NAMES: tuple[CommandName, ...] = tuple(name for name in get_args(CommandName) if name != "unknown")
#: The commands only the configured planner gives.
PLANNER_COMMANDS = ("cite", "pass")
#: Commands that answer a decision, and how each answers (they go through ``parkbot.core.lifecycle.resolve``).
ANSWERING: dict[str, Literal["decide", "answer", "default"]] = {
    "decide": "decide",
    "answer": "answer",
    "default": "default",
}
_NAMES: dict[str, CommandName] = {name: name for name in COMMAND_NAMES}
#: How alike a ``/word`` must be to a command to be taken for a misspelling of it (difflib's ratio).
NEAR_MISS = 0.75

_COMMAND_LINE = re.compile(r"^/(?P<name>[A-Za-z]+)(?=\s|$)(?P<rest>.*)$", re.S)
_TOKEN = re.compile(r"^\S+$")

ProblemReason = Literal["missing_argument", "missing_text", "extra_arguments"]


@dataclass(frozen=True)
class CommandProblem:
    """Why a known command's argument is malformed: a reason code and what was typed, in no surface's words.

    ``missing_argument``: the command needs an argument it did not get (``decide``'s or ``default``'s option,
    ``answer``'s text, ``cite``'s option, ``correct``'s option and why, ``override``'s number or option);
    ``missing_text``: a numbered ``override`` without the replacement text; ``extra_arguments``: more than the
    command takes (``typed``: everything after the command's name, as typed).
    """

    reason: ProblemReason
    typed: str | None = None


@dataclass(frozen=True)
class Command:
    """One parsed command. ``line`` is 1-based in the comment as received."""

    name: CommandName
    arg: str | None = None
    number: int | None = None
    line: int = 1
    #: Why the argument is malformed (each surface words it); None for a well-formed command.
    error: CommandProblem | None = None
    #: ``/cite``'s sources.
    sources: tuple[str, ...] = ()
    #: Why, for ``/override <option> [why]``, ``/correct`` and ``/pass``.
    reason: str | None = None
    #: For a near miss (name ``unknown``): the command it most likely meant. Each surface words the refusal.
    meant: CommandName | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.name != "unknown"

    def render(self) -> str:
        """The command as a person would type it (for replies)."""
        if self.name == "unknown":
            return self.arg or "/"
        parts = [f"/{self.name}"]
        if self.number is not None:
            parts.append(str(self.number))
        if self.arg:
            parts.append(self.arg)
        parts.extend(self.sources)
        if self.reason:
            parts.append(self.reason)
        return " ".join(parts)


_BREAKS = ("softbreak", "hardbreak")
#: An inline HTML tag as markdown-it hands it over whole: ``<a href="...">``, ``</a>``, ``<br/>``.
_HTML_TAG = re.compile(r"<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9-]*)\b[^>]*?(?P<empty>/?)>\Z", re.S)
#: The inline HTML elements that render their text as a link, emphasis or code, as Markdown's own markup does
#: (a ``<span>`` or ``<br>`` changes nothing a reader sees at the start of a line).
_MARKING = frozenset(
    {
        "a",
        "abbr",
        "b",
        "cite",
        "code",
        "del",
        "dfn",
        "em",
        "i",
        "ins",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "strike",
        "strong",
        "sub",
        "sup",
        "tt",
        "u",
        "var",
    }
)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import escape, newline

    parser = MarkdownIt("commonmark").enable("table")
    # Line breaks are the only inline tokens that say where a line starts; markdown-it keeps no
    # source positions, so the two rules that make them note the offset of their newline.
    parser.inline.ruler.at("newline", _noting_newlines(newline))
    parser.inline.ruler.at("escape", _noting_newlines(escape))
    return parser


def _noting_newlines(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """``rule``, also writing on each line break it makes the offset of its newline (``meta["newline"]``)."""

    def noting(state: StateInline, silent: bool) -> bool:
        start, pushed = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        for token in state.tokens[pushed:]:
            if token.type in _BREAKS:
                token.meta["newline"] = state.src.index("\n", start)
        return True

    return noting


@dataclass(frozen=True)
class _Line:
    number: int  # 1-based in the comment
    text: str  # as written (markup kept), leading whitespace removed
    starts_visibly: bool  # the rendered line begins with plain text (not code, emphasis, a link, HTML)


def _paragraph_lines(body: str) -> Iterator[list[_Line]]:
    """The lines of each top-level paragraph, in order (nothing nested in a list, quote or table)."""
    tokens = _parser().parse(body)
    for opener, token in itertools.pairwise(tokens):
        if opener.type != "paragraph_open" or opener.level != 0:
            continue  # (markdown-it puts a paragraph's inline token right after its paragraph_open)
        start = token.map[0] if token.map else 0
        starts = _line_starts(token.content, token.children or [])
        yield [_Line(start + n + 1, text.strip(), starts[n]) for n, text in enumerate(token.content.split("\n"))]


def _line_starts(content: str, children: list[Token]) -> list[bool]:
    """For each line of an inline token, whether it begins with plain text outside emphasis and links.

    A line starts visibly only after a line break outside any emphasis or link; a line that continues
    a code span, an image, an HTML tag or a link's title has no break before it and is never one.
    """
    line_after = {newline.start(): n for n, newline in enumerate(re.finditer("\n", content), start=1)}
    starts = [False] * (len(line_after) + 1)
    if children:
        starts[0] = children[0].type == "text"
    depth = 0
    html = 0  # marking elements opened by inline HTML tags (``<a href>``…``</a>``), which markdown-it leaves flat
    for child, following in itertools.pairwise(children):
        depth += child.nesting
        html = max(html + _html_nesting(child), 0)
        if child.type in _BREAKS and depth == 0 and html == 0:
            starts[line_after[child.meta["newline"]]] = following.type == "text"
    return starts


def _html_nesting(token: Token) -> int:
    """+1 for an inline HTML tag that opens a marking element (:data:`_MARKING`), -1 for one that closes it."""
    tag = _HTML_TAG.match(token.content) if token.type == "html_inline" else None
    if tag is None or tag["empty"] or tag["name"].lower() not in _MARKING:
        return 0
    return -1 if tag["close"] else 1


def _build(name: CommandName, rest: str, line: int, continuation: list[str]) -> Command:
    """The command from its line; ``continuation`` (the paragraph's next lines) counts for /answer and /override."""
    args = rest.strip()
    if name in ("decide", "default"):
        token = args.split()[0] if args else ""
        if not token:
            return Command(name, line=line, error=CommandProblem("missing_argument"))
        if len(args.split()) > 1:
            return Command(name, arg=token, line=line, error=CommandProblem("extra_arguments", args))
        return Command(name, arg=token, line=line)
    if name == "answer":
        text = "\n".join([args, *continuation]).strip()
        if not text:
            return Command(name, line=line, error=CommandProblem("missing_argument"))
        return Command(name, arg=text, line=line)
    if name == "escalate":
        if not args:
            return Command(name, line=line)
        if not _TOKEN.match(args):
            return Command(name, line=line, error=CommandProblem("extra_arguments", args))
        return Command(name, arg=args, line=line)
    if name == "cite":
        tokens = args.split()
        if not tokens:
            return Command(name, line=line, error=CommandProblem("missing_argument"))
        return Command(name, arg=tokens[0], sources=tuple(tokens[1:]), line=line)
    if name == "pass":
        why = "\n".join([args, *continuation]).strip()
        return Command(name, line=line, reason=why or None)
    if name == "correct":
        option, _, why = args.partition(" ")
        reason = "\n".join([why.strip(), *continuation]).strip()
        if not option or not reason:
            return Command(name, arg=option or None, line=line, error=CommandProblem("missing_argument"))
        return Command(name, arg=option, reason=reason, line=line)
    if name in ("return", "accept", "help"):
        if args:
            return Command(name, arg=args, line=line, error=CommandProblem("extra_arguments", args))
        return Command(name, line=line)
    # override <n> <text>
    first, _, text = args.partition(" ")
    if first and not first.isdigit():  # /override <option> [why]: a planner's answer replaced
        why = "\n".join([text.strip(), *continuation]).strip()
        return Command(name, arg=first, reason=why or None, line=line)
    if not first.isdigit():
        return Command(name, line=line, error=CommandProblem("missing_argument"))
    full = "\n".join([text.strip(), *continuation]).strip()
    if not full:
        return Command(name, number=int(first), line=line, error=CommandProblem("missing_text"))
    return Command(name, number=int(first), arg=full, line=line)


def _command_start(line: _Line) -> re.Match[str] | None:
    return _COMMAND_LINE.match(line.text) if line.starts_visibly else None


def _scan(body: str) -> Iterator[tuple[_Line, str, str, list[str]]]:
    """Every command-shaped line: (line, name as typed, rest of the line, continuation lines)."""
    for lines in _paragraph_lines(body):  # markdown-it reads \r\n and a lone \r as line ends
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            match = _command_start(line)
            if match is None:
                continue
            continuation: list[str] = []
            while index < len(lines) and _command_start(lines[index]) is None:
                continuation.append(lines[index].text)
                index += 1
            yield line, match.group("name"), match.group("rest"), continuation


def parse_all(body: str) -> list[Command]:
    """Every command in the comment, in order (only the first one is ever acted on)."""
    commands: list[Command] = []
    for line, typed, rest, continuation in _scan(body or ""):
        name = typed.lower()
        if name not in _NAMES:
            continue
        commands.append(_build(_NAMES[name], rest, line.number, continuation))
    return commands


def closest_command(word: str) -> CommandName | None:
    """The command a misspelt ``/word`` most likely meant, if it is close enough to mean one."""
    found = difflib.get_close_matches(word.lower(), COMMAND_NAMES, n=1, cutoff=NEAR_MISS)
    return _NAMES[found[0]] if found else None


def _near_miss(body: str) -> Command | None:
    """The first ``/word`` that looks like a misspelt command, as an ``unknown`` command naming the one it most
    likely ``meant`` (for a body with no command); the surface says so in its own words."""
    for line, typed, _, _ in _scan(body or ""):
        meant = closest_command(typed)
        if meant is not None:
            return Command("unknown", arg=f"/{typed}", line=line.number, meant=meant)
    return None


def parse(body: str) -> Command | None:
    """The comment's command: the first one; else a near miss of one (``unknown``, with ``meant``); else None."""
    found = parse_all(body)
    return found[0] if found else _near_miss(body)
