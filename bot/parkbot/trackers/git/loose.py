"""Reading the objects git keeps loose, straight from their files.

A write leaves each new object in a file of its own (``objects/<2 hex>/<rest>``: a zlib stream of
``<type> <size>\\0<content>``, git's "loose" format, see gitformat-loose) until the objects are packed,
so a small backlog is all loose files. ``git cat-file --batch`` opens each such file about three
times (for the header, then the content) and inflates it each time: reading a backlog of a hundred
decisions cost git several times what parkbot's own work on them cost. Read here, a file is opened
once and inflated once.

Only what git itself would read is read here: nothing when another object directory or replacement
objects are in play (:func:`loose_directory`), and an object that is not a well-formed loose file
(packed, in an alternate, damaged, or of a name that is not an object id) is left to ``git cat-file``,
which reads it or reports it as it always did.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

#: The types of object a loose file may hold.
_KINDS = frozenset({"blob", "tree", "commit", "tag"})
#: What one read of a file asks for; nearly every backlog object fits, a larger one is read on.
_FIRST_READ = 16 * 1024
#: Environment variables under which git reads objects from somewhere else, or replaces them.
_REDIRECTED = ("GIT_OBJECT_DIRECTORY", "GIT_REPLACE_REF_BASE")


def loose_directory(common: Path, *, replacements: bool) -> str | None:
    """The folder of the repository's loose objects, or None where reading it directly might not give
    what git gives: another object directory set for git (as in a ``pre-receive`` hook's quarantine), or
    replacement objects (``git replace``) that git reads in place of the objects they replace."""
    if any(name in os.environ for name in _REDIRECTED):
        return None
    if replacements and "GIT_NO_REPLACE_OBJECTS" not in os.environ:
        return None
    return os.fspath(common / "objects")


def read_loose(directory: str, oid: str) -> tuple[str, bytes] | None:
    """``(type, content)`` of the loose object ``oid`` in ``directory``; None unless it is one, whole."""
    if not oid.isalnum() or not oid.isascii():
        return None  # not an object id: no path is made from it
    try:
        fd = os.open(f"{directory}/{oid[:2]}/{oid[2:]}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, _FIRST_READ)
        if len(data) == _FIRST_READ:
            parts = [data]
            while chunk := os.read(fd, 1 << 20):
                parts.append(chunk)
            data = b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        raw = zlib.decompress(data)
    except zlib.error:
        return None
    nul = raw.find(b"\0", 0, 32)
    kind, _, size = raw[: max(nul, 0)].partition(b" ")
    text = kind.decode("ascii", "replace")
    if nul < 0 or text not in _KINDS or not size.isdigit() or int(size) != len(raw) - nul - 1:
        return None
    return text, raw[nul + 1 :]
