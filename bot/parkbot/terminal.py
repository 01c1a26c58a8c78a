"""Text for terminals: what an agent wrote is shown, never obeyed.

Questions, titles, options and answers are agent text. Printed as is, an escape sequence in them could
recolour or clear the screen, rewrite what was printed before (a carriage return), set the window title
or plant a hyperlink (OSC 8) that reads as something else, and a bidirectional override can make text
read backwards. :func:`printable` is the one helper every text output goes through (``list``, ``show``,
``resume``, ``gate``, ``report``, error messages): it shows each such character escaped (``\\x1b``), and
keeps newlines and tabs. JSON output needs nothing: JSON escapes control characters itself.

Hand-written rather than a library's: it is one translation table over fixed code points.
"""

from __future__ import annotations

#: C0 controls but tab and newline, DEL, C1 controls (CSI ``\x9b``, OSC ``\x9d``...), and the Unicode
#: bidirectional embeddings, overrides and isolates.
_ESCAPED = [
    *(c for c in range(0x20) if c not in (0x09, 0x0A)),
    *range(0x7F, 0xA0),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
_TABLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _ESCAPED}


def printable(text: str) -> str:
    """``text`` with every control character shown escaped (see the module docstring)."""
    return text.translate(_TABLE)
