"""The backlog's ref: read like git reads it, advanced only by compare-and-swap, retried when lost.

The ref is advanced with ``git update-ref <ref> <new> <old>`` semantics (one transaction per write
on a long-lived ``git update-ref --stdin``, so a write costs no process start). When the ref moved,
:class:`_CasLost` is raised and the writer re-reads and re-applies its mutation (:func:`retrying`:
tenacity, jittered exponential backoff, at most 50 attempts / 30 s). The ref is re-read on every
attempt: reads never cache a ref's value past a change of its file.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import weakref
from pathlib import Path

import git
from git.exc import GitCommandError
from tenacity import (
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

from bot.core.errors import BackendFailure

ZERO_SHA = "0" * 40
#: Bounds of the compare-and-swap retry loop.
CAS_ATTEMPTS = 50
CAS_SECONDS = 30.0
_SHA = re.compile(r"^[0-9a-f]{40}$")
_BAD_REF = re.compile(r"(\.\.|[\s~^:?*\[\\]|@\{|//|/\.|\.lock$|/$|\.$)")


class _CasLost(Exception):
    """The ref moved between our read and our write (or another writer held its lock)."""


def retrying(attempts: int, seconds: float) -> Retrying:
    """Retry on a lost compare-and-swap: jittered exponential backoff, at most ``attempts`` / ``seconds``."""
    return Retrying(
        stop=stop_after_attempt(attempts) | stop_after_delay(seconds),
        wait=wait_random_exponential(multiplier=0.005, max=0.5),
        retry=retry_if_exception_type(_CasLost),
    )


class _RefReader:
    """Refs of one repository, read like git does: the loose file, else ``packed-refs`` (never cached stale)."""

    def __init__(self, common: Path) -> None:
        self._common = common
        self._packed: tuple[tuple[int, int, int], dict[str, str]] | None = None

    def sha(self, ref: str, depth: int = 0) -> str | None:
        """A ref's commit (None when there is no such ref); symbolic refs are followed."""
        try:
            text = (self._common / ref).read_text(encoding="utf-8").strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            text = ""
        if text.startswith("ref: ") and depth < 5:
            return self.sha(text[5:].strip(), depth + 1)
        if _SHA.match(text):
            return text
        return self._packed_refs().get(ref)

    def _packed_refs(self) -> dict[str, str]:
        """``packed-refs``, parsed again whenever the file is replaced (git rewrites it by rename)."""
        path = self._common / "packed-refs"
        try:
            stat = path.stat()
        except FileNotFoundError:
            return {}
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if self._packed is None or self._packed[0] != key:
            refs: dict[str, str] = {}
            for line in path.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if _SHA.match(sha) and name:
                    refs[name.strip()] = sha
            self._packed = (key, refs)
        return self._packed[1]


class _RefUpdater:
    """Compare-and-swap of refs through one long-lived ``git update-ref --stdin``.

    Each swap is one transaction (``start``/``update <ref> <new> <old>``/``prepare``/``commit``):
    exactly ``git update-ref <ref> <new> <old>``, atomic under git's ref lock, without starting a
    process per write. git ends the process when a transaction fails; the next swap starts a new
    one. Where ``--stdin`` transactions are unavailable, each swap runs ``git update-ref`` instead.
    """

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        self._proc: subprocess.Popen[bytes] | None = None
        self._transactions = True
        self._finalizer: weakref.finalize | None = None

    def swap(self, ref: str, new: str, old: str | None) -> None:
        """Set ``ref`` to ``new`` if it is ``old`` (None: whatever it is); raise _CasLost if it is not."""
        if not self._transactions:
            self._swap_once(ref, new, old)
            return
        proc = self._process()
        update = f"update {ref} {new} {old}" if old else f"update {ref} {new}"
        stdin, stdout = proc.stdin, proc.stdout
        if stdin is None or stdout is None:  # pragma: no cover - Popen was given pipes
            raise BackendFailure("git update-ref has no pipes")
        try:
            stdin.write(f"start\n{update}\nprepare\ncommit\n".encode())
            stdin.flush()
            replies = [stdout.readline() for _ in range(3)]
        except OSError:
            replies = []
        if replies == [b"start: ok\n", b"prepare: ok\n", b"commit: ok\n"]:
            return
        error = self._end()
        if "cannot lock ref" in error:
            raise _CasLost(error)
        if not any(replies) and "unknown command" in error:  # git older than 2.27: no transactions
            self._transactions = False
            self._swap_once(ref, new, old)
            return
        raise BackendFailure(f"cannot update {ref}: {error or 'git update-ref ended unexpectedly'}")

    def _swap_once(self, ref: str, new: str, old: str | None) -> None:
        try:
            self.repo.git.update_ref("-m", "parkbot", ref, new, *([old] if old else []))
        except GitCommandError as exc:
            if "cannot lock ref" in str(exc.stderr):
                raise _CasLost(str(exc.stderr)) from exc
            raise BackendFailure(f"cannot update {ref}: {exc.stderr or exc}") from exc

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git", "update-ref", "-m", "parkbot", "--stdin"],
                cwd=self.repo.git_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "GIT_DIR": self.repo.git_dir},
            )
            self._finalizer = weakref.finalize(self, _stop_and_close, self._proc)
        return self._proc

    def _end(self) -> str:
        """Wait for a failed process to exit and return what it said."""
        proc, self._proc = self._proc, None
        if proc is None:
            return ""
        if self._finalizer is not None:
            self._finalizer.detach()
        _stop(proc)
        if proc.stderr is None:  # pragma: no cover - Popen was given pipes
            return ""
        with proc.stderr:
            return proc.stderr.read().decode("utf-8", "replace").strip()

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None


def _stop_and_close(proc: subprocess.Popen[bytes]) -> None:
    _stop(proc)
    if proc.stderr:
        proc.stderr.close()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End an ``update-ref --stdin`` process: closing its input makes it exit cleanly."""
    with contextlib.suppress(OSError):
        if proc.stdin:
            proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout:
        proc.stdout.close()
