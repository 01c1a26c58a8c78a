"""``list``: the decisions a query selects (:mod:`parkbot.core.listing`), as a result or as printed text."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from parkbot.api.results.decisions import DecisionItem, DecisionList
from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.engine import to_json
from parkbot.core.listing import ListQuery
from parkbot.core.models import Decision
from parkbot.core.tracker import BacklogHints, Tracker

__all__ = ["PrintedList", "decision_list", "printed_list"]


def _holds_float(value: Any) -> bool:
    """Whether a JSON value holds a float anywhere (pydantic writes some, e.g. ``1e-05``, differently)."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, float):
            return True
        if isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


#: pydantic-core writes a decision inside ``[[...]]`` at the depth ``list --json`` prints it at (its lines
#: indented 4), so no line of it is indented again; these are what it writes around the decision's body.
_OPEN, _CLOSE = "[\n  [\n    ", "\n    }\n  ]\n]"


def _json_list(values: Iterable[str]) -> str:
    """A list of strings as ``json.dumps(indent=2)`` writes it at the depth of a listed decision's field."""
    listed = ",\n        ".join(json.dumps(v) for v in values)
    return f"[\n        {listed}\n      ]" if listed else "[]"


class _ItemWriter:
    """A decision's entry in ``list --json``, exactly as ``json.dumps(indent=2)`` writes a :class:`DecisionItem`
    inside the list, but written by pydantic-core with the decision's own serializer (no second model, no dict
    of its fields). Its ``chain`` and ``problems`` close the entry; the few distinct ones are written once."""

    def __init__(self) -> None:
        self.tails: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}

    def __call__(self, decision: Decision) -> str:
        if _holds_float(decision.work_so_far):
            item = json.dumps(DecisionItem.of(decision).model_dump(mode="json"), indent=2, default=str)
            return item.replace("\n", "\n    ")
        body = to_json([[decision]], indent=2)
        if not body.isascii():  # escaped as json.dumps escapes (most records need no escaping, and skip it)
            body = to_json([[decision]], indent=2, ensure_ascii=True)
        key = (tuple(decision.chain()), decision.problems)
        tail = self.tails.get(key)
        if tail is None:
            tail = f',\n      "chain": {_json_list(key[0])},\n      "problems": {_json_list(key[1])}\n    }}'
            self.tails[key] = tail
        return body[len(_OPEN) : -len(_CLOSE)].decode("ascii") + tail


def _list_row(decision: Decision) -> str:
    return f"{decision.state:<9} {decision.id}  {decision.title}  (owner {decision.owner})"


class PrintedList:
    """``list`` as the command line prints it: each decision kept as its printed text, not as a model.

    Ten thousand decisions take about 100 MB as models and 13 MB as their JSON, so a decision's
    entry is rendered as it is read and the decision is dropped. :meth:`json_parts` joined is
    exactly ``json.dumps(DecisionList.model_dump(mode="json"), indent=2)``.
    """

    def __init__(self, rows: list[str], items: list[str], empty: str) -> None:
        self.rows = rows
        self.items = items
        self.empty = empty

    @property
    def count(self) -> int:
        return len(self.rows)

    def text(self) -> str:
        return "\n".join(self.rows) if self.rows else self.empty

    def json_parts(self) -> Iterator[str]:
        """The ``--json`` object in pieces: its head, one piece per decision, its tail."""
        if not self.items:
            yield '{\n  "decisions": [],\n  "count": 0\n}'
            return
        separator = '{\n  "decisions": [\n    '
        for item in self.items:  # each already indented as it sits in the list
            yield separator + item
            separator = ",\n    "
        yield f'\n  ],\n  "count": {len(self.items)}\n}}'


def decision_list(tracker: Tracker, config: Config, query: ListQuery) -> DecisionList:
    """Every decision ``query`` selects, oldest first, as ``list`` returns them."""
    decisions = sorted(_listed(tracker, config, query), key=query.order)
    items = [DecisionItem.of(d) for d in decisions]
    rows = [_list_row(d) for d in decisions]
    listed = DecisionList(decisions=items, count=len(items))
    return listed._told(
        "\n".join(rows) if rows else _nothing_listed(tracker, query), {"decisions": None, "count": None}
    )


def printed_list(tracker: Tracker, config: Config, query: ListQuery, *, as_json: bool = False) -> PrintedList:
    """:func:`decision_list` as the command line prints it (its JSON only ``as_json``), read in the memory its
    text takes."""
    item = _ItemWriter() if as_json else None
    found = [(query.order(d), _list_row(d), item(d) if item else "") for d in _listed(tracker, config, query)]
    found.sort(key=lambda entry: entry[0])
    empty = _nothing_listed(tracker, query) if not found else ""
    return PrintedList([row for _, row, _ in found], [item for _, _, item in found] if as_json else [], empty)


def _listed(tracker: Tracker, config: Config, query: ListQuery) -> Iterator[Decision]:
    return query.select(lifecycle.decisions(tracker, config, query.stored_state))


def _nothing_listed(tracker: Tracker, query: ListQuery) -> str:
    hint = tracker.missing_hint() if isinstance(tracker, BacklogHints) else None
    return query.empty() + (f"; {hint}" if hint else "")
