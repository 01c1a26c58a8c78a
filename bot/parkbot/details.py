"""Every field of a result, as text: what ``--json`` shows, the text output shows too.

A command's text starts with a few lines written for people (the decision's title, its options, the
answer); :func:`detail_lines` then prints every other non-empty field of the very object ``--json``
prints, so a field added to a result (a correction, a citation, an override) can never be missing from
the text: nothing has to remember to print it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

#: Fields a headline shows: a name, or a name and the sub-fields it shows (the rest are printed below it).
Shown = Mapping[str, "Collection[str] | None"]


def empty(value: Any) -> bool:
    """Nothing to show: no value, an empty text or collection, or a false flag."""
    return value is None or value is False or (isinstance(value, str | list | dict) and not value)


def scalar(value: Any) -> str:
    """One JSON value as text: ``yes`` for a true flag, the text itself, numbers as written."""
    if value is True:
        return "yes"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def detail_lines(data: Mapping[str, Any], shown: Shown | None = None, indent: str = "  ") -> list[str]:
    """``key: value`` for every non-empty field of ``data`` a headline did not show (``shown``), nested
    objects and lists of objects indented below their key."""
    shown = shown or {}
    lines: list[str] = []
    for key, value in data.items():
        if key in shown:
            parts = shown[key]
            if parts is not None and isinstance(value, Mapping):  # the rest of it as ``answer.source: ...``
                for part, inner in value.items():
                    if part not in parts and not empty(inner):
                        lines += _field(f"{key}.{part}", inner, indent)
            continue
        if empty(value):
            continue
        lines += _field(key, value, indent)
    return lines


def _field(key: str, value: Any, indent: str) -> list[str]:
    if isinstance(value, Mapping):
        return [f"{indent}{key}:", *detail_lines(value, None, indent + "  ")]
    if isinstance(value, list):
        if not any(isinstance(item, Mapping | list) for item in value):
            return [f"{indent}{key}: {', '.join(scalar(item) for item in value)}"]
        lines = [f"{indent}{key}:"]
        for item in value:
            inner = detail_lines(item, None, indent + "    ") if isinstance(item, Mapping) else []
            if not isinstance(item, Mapping):
                inner = [f"{indent}    {scalar(item)}"]
            if inner:
                first = inner[0]
                lines.append(f"{indent}  - {first[len(indent) + 4 :]}")
                lines += inner[1:]
        return lines
    text = scalar(value)
    if "\n" in text:
        return [f"{indent}{key}: " + text.replace("\n", "\n" + indent + "  ")]
    return [f"{indent}{key}: {text}"]
