"""Loose objects written by parkbot itself, as git writes them.

A write of the backlog adds about ten objects; handing them to ``git hash-object`` costs three
process starts per command. An object is ``<type> <size>\\0<content>``, named by its hash in the
repository's format (SHA-1 or SHA-256) and stored zlib-compressed at ``objects/<2 hex>/<rest>``.
It is written the way git writes it: to a ``tmp_obj_*`` file (mode 0444, less the umask) in that
folder, then hard-linked to its name, so a reader never sees half an object and two writers of the
same object both succeed; an object already there is kept and freshened (its time set to now, so a
``gc`` running meanwhile does not prune it before the ref names it). The hash is Python's own
(git's SHA-1 also refuses input crafted for a known collision attack: the backlog's blobs are text
parkbot serialized, never bytes an agent chose).

Only what git itself would accept is written here (:func:`plain_tree`, :func:`plain_commit`, at
least as strict as ``git hash-object``'s and ``git fsck --strict``'s checks); anything else, and
repositories this module does not handle (``core.sharedRepository``, ``GIT_OBJECT_DIRECTORY``),
is left to ``git hash-object``: see :class:`~parkbot.trackers.git.objects.ObjectStore`.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from collections.abc import Mapping

from parkbot.trackers.git.layout import builtin_hash
from parkbot.trackers.git.process import git_true

#: git's modes parkbot writes directly (symbolic links and submodules are left to git's own checks).
_PLAIN_MODES = frozenset((0o100644, 0o100755, 0o040000))
#: Printable ASCII but ``/``: a name outside it (Unicode that HFS+ ignores, say) is left to git's checks.
_PLAIN_NAME = frozenset(chr(c) for c in range(0x20, 0x7F)) - {"/"}


def plain_tree(entries: Mapping[str, tuple[int, str]], hex_length: int) -> bool:
    """Whether git would take this tree as it is, even ``fsck --strict``: ordinary modes, object ids
    of the repository's length and not all zeros, and names that are not ``.``, ``..`` nor anything
    git checks specially (``.git`` and what a case-insensitive or NTFS/HFS+ file system reads as it,
    ``.gitmodules`` and its kin: every name starting ``.git`` or ``git~``)."""
    zero = "0" * hex_length
    for name, (mode, oid) in entries.items():
        if mode not in _PLAIN_MODES or len(oid) != hex_length or oid == zero:
            return False
        if not name or name in (".", "..") or not _PLAIN_NAME.issuperset(name):
            return False
        folded = name.lower()
        if folded.startswith((".git", "git~")):
            return False
    return True


def _names_object(line: bytes, field: bytes, hex_length: int) -> bool:
    """``<field> <object id>``, the id in lower-case hex of the repository's length."""
    oid = line.removeprefix(field + b" ")
    return len(oid) == hex_length and len(line) > hex_length and not oid.strip(b"0123456789abcdef")


def _person(line: bytes, field: bytes) -> bool:
    """``<field> <name> <<e-mail>> <seconds> <+hhmm>`` as ``git fsck --strict`` wants it: one ``<``
    and one ``>``, a space before the e-mail, seconds unpadded, a four-digit time zone."""
    if not line.startswith(field + b" "):
        return False
    rest = line[len(field) + 1 :]
    opening, closing = rest.find(b"<"), rest.find(b">")
    if rest.count(b"<") != 1 or rest.count(b">") != 1 or not 1 <= opening < closing or rest[opening - 1] != 0x20:
        return False
    when = rest[closing + 1 :].split(b" ")
    if len(when) != 3 or when[0] != b"":
        return False
    seconds, zone = when[1], when[2]
    if not (seconds.isdigit() and len(seconds) <= 12 and (seconds == b"0" or not seconds.startswith(b"0"))):
        return False
    return len(zone) == 5 and zone[:1] in (b"+", b"-") and zone[1:].isdigit()


def plain_commit(body: bytes, hex_length: int) -> bool:
    """Whether ``body`` is an unsigned commit git takes as it is: its tree, parents, author and committer
    (nothing else in the header, no NUL), a blank line and then the message, which git does not check."""
    header, blank, _ = body.partition(b"\n\n")
    if not blank or b"\0" in header:
        return False
    lines = header.split(b"\n")
    if len(lines) < 3 or not _names_object(lines[0], b"tree", hex_length):
        return False
    if not all(_names_object(line, b"parent", hex_length) for line in lines[1:-2]):
        return False
    return _person(lines[-2], b"author") and _person(lines[-1], b"committer")


class LooseObjects:
    """Writes objects into one object directory, as git does (see the module's docstring)."""

    def __init__(self, objects_dir: str, object_format: str, *, level: int = 1, fsync: bool = False) -> None:
        self.objects_dir = objects_dir
        self.hex_length = 64 if object_format == "sha256" else 40
        self._hash = builtin_hash(object_format)
        #: ``core.looseCompression`` (git's default: 1, the fastest).
        self.level = level
        #: Flush each object to disk before naming it (``core.fsync``/``core.fsyncObjectFiles`` asked for it).
        self.fsync = fsync

    def object_id(self, kind: str, content: bytes) -> str:
        hasher = self._hash(b"%s %d\0" % (kind.encode("ascii"), len(content)))
        hasher.update(content)
        oid: str = hasher.hexdigest()
        return oid

    def path(self, oid: str) -> str:
        return os.path.join(self.objects_dir, oid[:2], oid[2:])

    def write(self, kind: str, content: bytes) -> str:
        """Write one object (a no-op but for its time when it is there already) and return its id.

        An :class:`OSError` (a read-only repository, a full disk) leaves no temporary file behind.
        """
        oid = self.object_id(kind, content)
        final = self.path(oid)
        try:
            os.utime(final)  # there already: freshened, as git does, and kept
            return oid
        except OSError:
            pass  # not there (or not ours to touch: then the link below finds it)
        packer = zlib.compressobj(self.level)
        data = packer.compress(b"%s %d\0" % (kind.encode("ascii"), len(content)))
        data += packer.compress(content) + packer.flush()
        fd, temporary = self._temporary(os.path.dirname(final))
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(temporary, final)
            except FileExistsError:
                pass  # another writer wrote the same object first: the same bytes
            except OSError:
                os.rename(temporary, final)  # a file system without hard links: git renames too
        finally:
            with contextlib.suppress(FileNotFoundError):  # renamed
                os.unlink(temporary)
        return oid

    @staticmethod
    def _temporary(folder: str) -> tuple[int, str]:
        """A new ``tmp_obj_*`` file in the object's folder (made when missing), as git names its own."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        while True:
            path = os.path.join(folder, f"tmp_obj_{os.urandom(6).hex()}")
            try:
                return os.open(path, flags, 0o444), path
            except FileExistsError:  # pragma: no cover - 48 random bits taken already
                continue
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):  # another writer made it meanwhile
                    os.mkdir(folder, 0o777)  # the umask applies, as to git's own


def compression_level(values: Mapping[str, str]) -> int | None:
    """``core.looseCompression``, else ``core.compression``, else 1 (git's default for loose objects);
    None when the setting is not a level git accepts (git then refuses, and says why)."""
    text = values.get("core.loosecompression", values.get("core.compression", "1")).strip()
    try:
        level = int(text)
    except ValueError:
        return None
    return level if -1 <= level <= 9 else None


def loose_writer(objects_dir: str, object_format: str, values: Mapping[str, str]) -> LooseObjects | None:
    """A writer for the repository's objects, or None where git must write them itself.

    ``values`` are the repository's settings (lower-case keys). git writes by itself where objects are
    shared with a group (``core.sharedRepository``: their modes), kept somewhere else
    (``GIT_OBJECT_DIRECTORY``, as in a ``pre-receive`` hook's quarantine), or mapped to a second format
    (``extensions.compatObjectFormat``), and when a compression level is not one it accepts.
    """
    if os.environ.get("GIT_OBJECT_DIRECTORY") or "core.sharedrepository" in values:
        return None
    if "extensions.compatobjectformat" in values or not os.path.isdir(objects_dir):
        return None
    level = compression_level(values)
    if level is None:
        return None
    fsync = "core.fsync" in values or git_true(values.get("core.fsyncobjectfiles"))
    return LooseObjects(objects_dir, object_format, level=level, fsync=fsync)
