"""Keeping the object database small without anyone running ``git gc``.

Each write leaves about ten loose objects, and git's own ``gc --auto`` waits for about 6,700 of
them (27 MB of loose files) before it packs. :class:`Packer` counts the objects the backlog wrote
in a small shared file (``<git dir>/parkbot/loose``: one byte appended per object, so concurrent
writers add up without a lock) and, once :attr:`Packer.threshold` is reached, runs
``git repack -d -l --geometric=2``: git packs the loose objects into a new pack, rolls small packs
together so the number of packs stays logarithmic, and removes the loose copies. Unreachable
objects are kept (nothing is pruned), so this is safe next to any other git command. With git
older than 2.32 (no ``--geometric``) it runs ``git gc --auto`` instead.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from parkbot.trackers.git.process import Git, GitFailed

#: Loose objects the backlog may leave before it packs them (about 200 writes).
PACK_THRESHOLD = 2000
#: A lock older than this is a crashed packer's: taken over.
STALE_LOCK_SECONDS = 600


class Packer:
    """Packs the repository's loose objects every :attr:`threshold` objects the backlog wrote."""

    def __init__(self, git: Git, state_dir: Path, threshold: int = PACK_THRESHOLD) -> None:
        self.git = git
        self.threshold = threshold
        self.enabled = True
        self._counter = state_dir / "loose"
        self._lock = state_dir / "pack.lock"
        #: How many times this packer packed (for tests and the benchmark).
        self.packs = 0

    def wrote(self, objects: int) -> None:
        """Count ``objects`` new objects; pack once the count reaches the threshold."""
        if not self.enabled or objects <= 0:
            return
        try:
            self._counter.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, b"." * objects)
                count = os.fstat(fd).st_size
            finally:
                os.close(fd)
        except OSError:
            return  # a read-only or odd git dir: packing is an optimisation, never a reason to fail
        if count >= self.threshold:
            self.pack()

    def pack(self) -> bool:
        """Pack now, unless another process is packing; True when this call packed."""
        try:
            fd = os.open(self._lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - self._lock.stat().st_mtime > STALE_LOCK_SECONDS:
                    self._lock.unlink()
            return False
        except OSError:
            return False
        os.close(fd)
        try:
            with contextlib.suppress(OSError):
                os.truncate(self._counter, 0)
            try:
                self.git.run("repack", "-d", "-l", "-q", "--geometric=2")
            except GitFailed as exc:
                if "geometric" not in exc.stderr:
                    return False
                with contextlib.suppress(GitFailed):
                    self.git.run("gc", "--auto", "--quiet")
            self.packs += 1
            return True
        finally:
            with contextlib.suppress(OSError):
                self._lock.unlink()
