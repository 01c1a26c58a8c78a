"""GitHub's limits on text, and the hidden machine-readable JSON parkbot keeps in issues and comments.

* an issue body or a comment holds at most 65,536 characters (:data:`GITHUB_BODY_LIMIT`); full data
  that does not fit is kept retrievable by the renderer (:mod:`parkbot.trackers.github.render`):
  compressed (zlib + base64, :func:`pack`) inside the hidden block, or, when even that is too big, in
  numbered follow-up comments (:func:`chunks`);
* a commit status description holds 140 characters, an issue title 256;
* :func:`hidden_json` writes JSON that can never close the ``<!-- ... -->`` it sits in.

Escaping untrusted text for display is :mod:`parkbot.markdown`.
"""

from __future__ import annotations

import base64
import json
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
