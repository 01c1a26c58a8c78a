"""The embedded git backlog: decisions stored on a ref of the repository itself.

Decisions live on their own ref (``refs/parkbot/backlog`` by default), never on a branch. Every
change is one commit on that ref, built in-process (blobs, trees and the commit are written as
loose objects, byte for byte as git writes them; objects are read through GitPython's odb, one
persistent ``git cat-file --batch``) and published with a compare-and-swap of the ref. The
working tree, the index and ``HEAD`` are never touched, so parking works in a dirty checkout, in
the middle of a rebase, or in a bare repository.

Tree layout of the backlog ref::

    decisions/<h2(id)>/<id>.json     the Decision (Decision.to_json()); ``answer`` set once closed
    answers/<h2(id)>/<id>.json       the Answer recorded by resolution step (a), kept after (d)
    links/<h2(t)>/<h16(t)>.json      {"target": t, "decisions": [ids]}: the blocking edges of one
                                     dependent t (``#12`` or ``branch:<name>``); (c) removes them
    notes/<h2(t)>/<h16(t)>.json      {"target": t, "notes": {id: note}}: step (b), one note per
                                     decision a dependent waited for, pointing at its answer
    origins/<h2(o)>/<o>.json         {"origin": o, "decisions": [ids]}  } for the question budgets
    runs/<h2(r)>/<h16(r)>.json       {"run": r, "decisions": [ids]}     } (open_decisions)
    log/<seq // 256>/<seq>.jsonl     the question log, one LogEntry per line, in segments of at
                                     most 64 lines / 32 KiB, so an append rewrites a bounded blob
    precedents/<h2(k)>/<h16(k)>.jsonl  the "resolved" log lines again, indexed by ``key:<key>`` and
                                     ``text:<normalized question>``: the precedent candidates

``h2(x)``/``h16(x)`` are the first 2/16 hex digits of ``sha256(x)``. The two-level fan-out keeps
every tree small (256 buckets; ~40 entries each at 10,000 decisions), so ``find`` reads four small
trees and one blob however large the backlog grows, a gate reads the same plus one ``git log``, and
a write rewrites only the trees on its paths. Nothing lists the backlog except ``iter_decisions``
and ``iter_log``, which are listings by definition.

Modules, one job each: :mod:`~bot.trackers.git.layout` (the ref and the paths on it),
:mod:`~bot.trackers.git.objects` (loose-object writing, tree building, cached reads),
:mod:`~bot.trackers.git.refs` (reading the ref, compare-and-swap updates, retries),
:mod:`~bot.trackers.git.tracker` (:class:`GitTracker`: the tracker protocol, history, gates) and
:mod:`~bot.trackers.git.sync` (fetch, merge per file, push).
"""

from __future__ import annotations

from bot.trackers.git.layout import DEFAULT_REF, decision_path, links_path, notes_path
from bot.trackers.git.refs import _CasLost

# LOG_SEGMENT_* are read where GitTracker is defined: monkeypatch bot.trackers.git.tracker, not this package.
from bot.trackers.git.tracker import LOG_SEGMENT_BYTES, LOG_SEGMENT_LINES, UNKNOWN_TITLE, GitTracker

__all__ = [
    "DEFAULT_REF",
    "LOG_SEGMENT_BYTES",
    "LOG_SEGMENT_LINES",
    "UNKNOWN_TITLE",
    "GitTracker",
    "_CasLost",
    "decision_path",
    "links_path",
    "notes_path",
]
