"""Untrusted text made safe to show as Markdown: the one escaper every renderer uses.

Everything an agent or a commenter wrote is untrusted. Before it is shown in an issue, a comment, a
job summary or a report it goes through one of these functions so that it

* cannot ping anyone: ``@login`` and ``@org/team`` get a zero-width joiner after the ``@``
  (U+200D); a mention is only linked when a name character follows the ``@`` directly, so the text
  reads the same but notifies nobody (:func:`neutralize_mentions`);
* cannot inject HTML nor break out of a hidden ``<!-- ... -->`` block: ``&``, ``<`` and ``>`` are
  written as entities (:func:`escape_markdown`);
* cannot break a table cell or a code fence (:func:`table_cell`, :func:`code_block`).

All functions are pure and total: any ``str`` in, a ``str`` out.
"""

from __future__ import annotations

import re

ZWJ = "\u200d"
ELLIPSIS = "…"

# ``@`` directly followed by a character GitHub accepts at the start of a login.
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")


def neutralize_mentions(text: str) -> str:
    """``@alice`` -> ``@\u200dalice``: reads the same, notifies nobody (``@org/team`` too).

    Every ``@`` followed by a name character is neutralized, also inside words (``a@b``): GitHub's
    rule for where a mention starts is not documented precisely, and an invisible joiner in an
    e-mail address costs nothing.
    """
    return _MENTION.sub("@" + ZWJ, text)


def escape_html(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities: no tag, no comment and no entity trick survives."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_markdown(text: str) -> str:
    """Untrusted text for a Markdown paragraph: no HTML, no mention. Markdown emphasis is kept."""
    return neutralize_mentions(escape_html(text))


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
