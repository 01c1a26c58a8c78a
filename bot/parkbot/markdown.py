"""Untrusted text made safe to show as Markdown: the one escaper every renderer uses.

Everything an agent or a commenter wrote is untrusted. Before it is shown in an issue, a comment, a
job summary or a report it goes through one of these functions so that it

* cannot ping anyone: ``@login`` and ``@org/team`` get a zero-width joiner after the ``@``
  (U+200D); a mention is only linked when a name character follows the ``@`` directly, so the text
  reads the same but notifies nobody. E-mail addresses are left intact: GitHub never links a mention
  whose ``@`` follows a letter or digit, so ``bob@example.com`` still copies as written
  (:func:`neutralize_mentions`);
* cannot inject HTML nor break out of a hidden ``<!-- ... -->`` block: ``&``, ``<`` and ``>`` are
  written as entities (:func:`escape_markdown`);
* cannot break a table cell or a code fence (:func:`table_cell`, :func:`code_block`);
* where it must show exactly as written (reports, job summaries), cannot use any Markdown syntax
  either: no emphasis, no link, no image (:func:`literal`).

All functions are pure and total: any ``str`` in, a ``str`` out.
"""

from __future__ import annotations

import re

ZWJ = "\u200d"
ELLIPSIS = "…"

# Every ``@`` that GitHub could take for the start of a mention: one not preceded by a letter or digit.
# GitHub links ``@name`` only where the ``@`` does not follow a word character; ``_`` counts as one
# for GitHub, but not here, because ``_x_@bob`` renders as emphasis followed by a bare ``@bob``. The
# joiner goes in even when no name follows yet, so that two escaped pieces joined later stay safe.
_MENTION = re.compile(f"(?<![A-Za-z0-9])@(?!{ZWJ})")
# Everything that starts Markdown syntax inside a line: emphasis, code, links, images, strikethrough,
# tables, math, headings. ``&``, ``<`` and ``>`` become entities instead; list markers matter only
# at the start of a line (:data:`_LIST_START`).
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|~$])")
_LIST_START = re.compile(r"^(?:(\d{1,9})([.)])|([-=]))")
_SAFE_URL = re.compile(r"^https?://[^\s<>()\[\]`\\\"']+$", re.IGNORECASE)


def neutralize_mentions(text: str) -> str:
    """``@alice`` -> ``@\u200dalice``: reads the same, notifies nobody (``@org/team`` too).

    ``bob@example.com`` is left as it is (GitHub does not link a mention inside a word), so e-mail
    addresses copy intact. Running it twice changes nothing more.
    """
    return _MENTION.sub("@" + ZWJ, text)


def escape_html(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities: no tag, no comment and no entity trick survives."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_markdown(text: str) -> str:
    """Untrusted text for a Markdown paragraph: no HTML, no mention. Markdown emphasis is kept."""
    return neutralize_mentions(escape_html(text))


def literal(text: str) -> str:
    """Untrusted text shown exactly as written, on one line: every Markdown character escaped too.

    Safe in a paragraph, a list item, a heading and a table cell: no emphasis, no link, no image, no
    HTML, no mention, no line break, no bare ``|``.
    """
    one = _MARKDOWN_PUNCTUATION.sub(r"\\\1", " ".join(text.split()))
    one = _LIST_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", one)
    return escape_markdown(one)


_URL = re.compile(r"(?i)\b(?:https?://|ftp://|www\.)\S+")


def inert(text: str) -> str:
    """Untrusted text in a body parkbot posts in its own name: read as written, nothing live in it.

    Lines are kept, but every Markdown character is escaped (no heading, emphasis, link, image or
    list), addresses GitHub would link by themselves go in code spans, and no HTML or mention survives:
    an agent's question cannot put a live link, an image or a heading under parkbot's name.
    """
    out = []
    for line in text.split("\n"):
        body = line.lstrip()
        pieces: list[str] = [line[: len(line) - len(body)]]
        last = 0
        for match in _URL.finditer(body):
            pieces.append(_inert_words(body[last : match.start()], start=last == 0))
            pieces.append(code_span(match.group(0)))
            last = match.end()
        pieces.append(_inert_words(body[last:], start=last == 0))
        out.append("".join(pieces))
    return "\n".join(out)


def _inert_words(text: str, *, start: bool) -> str:
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
    if start:  # a list marker counts only at the start of a line
        escaped = _LIST_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", escaped)
    return escape_markdown(escaped)


def link(label: str, url: str | None) -> str:
    """``[label](url)`` for an ``http(s)`` URL without spaces or brackets; ``label`` alone otherwise.

    ``label`` must already be safe Markdown (built with this module); the URL is not untrusted text
    but a backend's address, and anything that does not look like one is left out rather than escaped.
    """
    if not url or not _SAFE_URL.match(url):
        return label
    return f"[{label}]({url})"


def table_cell(text: str) -> str:
    """Untrusted text for one cell of a Markdown table: one line, ``|`` escaped."""
    one_line = " ".join(text.split())
    return escape_markdown(one_line).replace("\\", "\\\\").replace("|", "\\|")


def code_span(text: str) -> str:
    """Text in an inline code span (nothing inside renders or pings), on one line.

    The fence is one backtick longer than the longest run inside, as CommonMark requires; HTML is
    not interpreted inside a code span, so ``<`` needs no escaping.
    """
    one_line = " ".join(text.split()) or " "
    longest = max((len(m) for m in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"


def table_code(text: str) -> str:
    """:func:`code_span` for a table cell: GitHub ends a cell at any bare ``|``, even inside code, and
    reads ``\\|`` there as ``|``."""
    return code_span(text).replace("|", "\\|")


def code_block(text: str, lang: str = "") -> str:
    """A fenced code block that the content cannot close early (the fence outgrows any run)."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{lang}\n{body}{fence}"


def truncate(text: str, limit: int, note: str = ELLIPSIS) -> str:
    """At most ``limit`` characters; when cut, ends with ``note``."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    if len(note) >= limit:
        return note[:limit]
    cut = text[: limit - len(note)]
    # Never leave half of a surrogate pair or a dangling combining sequence start behind.
    if cut and "\ud800" <= cut[-1] <= "\udbff":
        cut = cut[:-1]
    return cut + note


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces and cut to ``limit`` (titles, status descriptions)."""
    return truncate(" ".join(text.split()), limit)
