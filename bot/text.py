"""Untrusted text made safe to show on GitHub.

Everything an agent or a commenter wrote is untrusted. Before it is shown in an issue or a comment
it goes through one of these functions so that it

* cannot ping anyone: ``@login`` and ``@org/team`` get a zero-width joiner after the ``@``
  (U+200D); GitHub only links a mention when a name character follows the ``@`` directly, so the
  text reads the same but notifies nobody (:func:`neutralize_mentions`);
* cannot inject HTML nor break out of a hidden ``<!-- ... -->`` block: ``&``, ``<`` and ``>`` are
  written as entities in Markdown (:func:`escape_markdown`) and as ``\\u`` escapes inside the JSON
  of a hidden block (:func:`hidden_json`), so ``-->`` and ``<!--`` can never appear;
* cannot break a table cell or a code fence (:func:`table_cell`, :func:`code_block`);
* fits GitHub's limits: an issue body or a comment holds at most 65,536 characters
  (:data:`GITHUB_BODY_LIMIT`). :func:`truncate` cuts visible text with a note. Full data that does
  not fit is kept retrievable by the renderer (``bot.render``): compressed (zlib + base64,
  :func:`pack`) inside the hidden block, or, when even that is too big, in numbered follow-up
  comments (:func:`chunks`).

All functions are pure and total: any ``str`` in, a ``str`` out.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import Any

#: GitHub refuses issue bodies and comments longer than this (characters).
GITHUB_BODY_LIMIT = 65_536
#: What the renderer aims for: a margin below the limit for GitHub's own normalisation (CRLF etc.).
SAFE_BODY_LIMIT = GITHUB_BODY_LIMIT - 1_536
#: GitHub's limit on a commit status description.
STATUS_DESCRIPTION_LIMIT = 140
#: GitHub's limit on an issue title.
TITLE_LIMIT = 256

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


# --- hidden, machine-readable JSON ----------------------------------------------------------

_HIDDEN_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "@": "\\u0040"}


def hidden_json(data: Any) -> str:
    """Compact JSON safe inside ``<!-- ... -->``: no ``<``, ``>``, ``&`` or ``@`` anywhere.

    Those characters can only occur inside JSON strings, where the ``\\uXXXX`` escape is exact, so
    ``json.loads`` returns the original data. Line breaks are escaped by JSON already.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    for char, escaped in _HIDDEN_ESCAPES.items():
        text = text.replace(char, escaped)
    # U+2028/U+2029 are legal in JSON strings; escape them so the block stays on one line.
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def pack(data: Any) -> str:
    """JSON -> zlib -> base64 (ASCII letters, digits, ``+/=``): for data too big to keep inline."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def unpack(text: str) -> Any:
    """The inverse of :func:`pack`; raises ``ValueError`` on anything else."""
    try:
        return json.loads(zlib.decompress(base64.b64decode(text.encode("ascii"), validate=True)).decode("utf-8"))
    except (ValueError, zlib.error, UnicodeError) as exc:
        raise ValueError(f"not a packed parkbot payload: {exc}") from exc


def chunks(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters (at least one piece)."""
    if size <= 0:
        raise ValueError("size must be positive")
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
