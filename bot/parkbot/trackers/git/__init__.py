"""The embedded git backlog: decisions stored on a ref of the repository itself.

Decisions live on their own ref (``refs/parkbot/backlog`` by default), never on a branch. Every
change is one commit on that ref, its objects written as git writes them (loose objects in the
repository's format; ``hash-object`` and ``commit-tree`` where git must; read through one
``cat-file --batch``), published with a compare-and-swap of the ref. The working tree, the index
and ``HEAD`` are never touched, so parking works in a dirty checkout, in the middle of a rebase, or
in a bare repository; SHA-1 and SHA-256 repositories work alike.

Tree layout of the backlog ref (layout 2)::

    LAYOUT                           marks layout 2 (a backlog without it is layout 1, see below)
    decisions/<h2(id)>/<id>.json     the Decision (Decision.to_json()); ``answer`` set once closed
    answers/<h2(id)>/<id>.json       the Answer recorded by resolution step (a), kept after (d)
    decisions/index-<h2(key)>.json   {key: [ids]}, one key per line, for three kinds of key:
                                       ``origin:<o>``  the open decisions of origin o (budgets, and
                                                       together: every open decision)
                                       ``run:<r>``     the open decisions of run r (budgets)
                                       ``links:<t>``   the decisions dependent t (``#12`` or
                                                       ``branch:<name>``) waits for; (c) removes them
    notes/<h2(t)>/<h16(t)>.json      {"target": t, "notes": {id: note}}: step (b), one note per
                                     decision a dependent waited for, pointing at its answer
    log.jsonl                        the tail of the question log, one LogEntry per line; sealed
                                     at 64 lines / 32 KiB into
    log/<seq, 8 digits>.jsonl        the sealed segments (sealing moves the blob: nothing new)
    precedents/<h2(k)>/<h[2:18](k)>.jsonl  the "resolved" log lines again, by ``key:<key>`` and
                                     ``text:<normalized question>``: the precedent candidates

``h2(x)``/``h16(x)`` are the first 2/16 hex digits of ``sha256(x)``. A park changes one decision
file, up to three index buckets and the log tail: its commit adds about ten objects (the blobs,
their folders, the root tree, the commit), however large the backlog grows. ``find`` reads three
small trees and one blob, a gate the same plus one index bucket and one ``git log``; the open
decisions are listed from the index without reading closed ones.

Layout 1 (before the index) kept ``links/<h2>/<h16>.json``, ``origins/<h2>/<o>.json`` and
``runs/<h2>/<h16>.json`` and the whole log under ``log/``. It is read as it is; the first write
folds those indexes into ``decisions/index-*.json`` and writes ``LAYOUT``, in the same commit as the change.

Modules, one job each: :mod:`~parkbot.trackers.git.process` (finding the repository, running git
and its long-lived helpers), :mod:`~parkbot.trackers.git.objects` (object I/O, trees, snapshots, transactions),
:mod:`~parkbot.trackers.git.layout` (the paths), :mod:`~parkbot.trackers.git.view` and
:mod:`~parkbot.trackers.git.edit` (reading and editing the files in either layout),
:mod:`~parkbot.trackers.git.refs` (compare-and-swap, retries),
:mod:`~parkbot.trackers.git.repository` (commits, signing, writes) and :mod:`~parkbot.trackers.git.change`
(what a write commits), :mod:`~parkbot.trackers.git.packing` (bounded disk),
:mod:`~parkbot.trackers.git.fingerprints`, :mod:`~parkbot.trackers.git.signatures` and
:mod:`~parkbot.trackers.git.proofs` (who signed an answer), :mod:`~parkbot.trackers.git.sync` (fetch, merge
by meaning, push) and :mod:`~parkbot.trackers.git.tracker` (:class:`GitTracker`: a facade over the parts
that implement the tracker protocol: :mod:`~parkbot.trackers.git.reads`, :mod:`~parkbot.trackers.git.writes`,
:mod:`~parkbot.trackers.git.question_log`, :mod:`~parkbot.trackers.git.facts`,
:mod:`~parkbot.trackers.git.dependents` (links and gates), :mod:`~parkbot.trackers.git.sources`; the
writing, question-log and source parts are made, and their modules imported, when first used).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The doorway: what the rest of parkbot (the translators, the CLI, parkbot.backends) may import from this
# adapter; tests/project/test_architecture.py holds them to it.
from parkbot.trackers.git.layout import DEFAULT_REF, decision_path, index_path, links_key, notes_path
from parkbot.trackers.git.process import find_repository
from parkbot.trackers.git.refs import CasLost
from parkbot.trackers.git.repository import LOG_SEGMENT_BYTES, LOG_SEGMENT_LINES
from parkbot.trackers.git.tracker import UNKNOWN_TITLE, GitTracker

if TYPE_CHECKING:
    from parkbot.trackers.git.clone import NoWorkingTree, origin_url, working_tree
    from parkbot.trackers.git.commits import COMMIT_ID, CommitUnavailable, open_repo, read_filed

#: Loaded on first use: what the event translators read from a commit (the result files of a push: the
#: commands that only read the backlog never load the result schema or the filing rules), and the local
#: clone as ``parkbot init`` and the GitHub backend see it (no command on the backlog asks).
_LATER = {
    **dict.fromkeys(("COMMIT_ID", "CommitUnavailable", "open_repo", "read_filed"), "parkbot.trackers.git.commits"),
    **dict.fromkeys(("NoWorkingTree", "origin_url", "working_tree"), "parkbot.trackers.git.clone"),
}

__all__ = [
    "COMMIT_ID",
    "DEFAULT_REF",
    "LOG_SEGMENT_BYTES",
    "LOG_SEGMENT_LINES",
    "UNKNOWN_TITLE",
    "CasLost",
    "CommitUnavailable",
    "GitTracker",
    "NoWorkingTree",
    "decision_path",
    "find_repository",
    "index_path",
    "links_key",
    "notes_path",
    "open_repo",
    "origin_url",
    "read_filed",
    "working_tree",
]


def __getattr__(name: str) -> Any:
    if name in _LATER:
        return getattr(importlib.import_module(_LATER[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
