"""The backlog's ref: read like git reads it, advanced only by compare-and-swap, retried when lost.

The ref is advanced with ``git update-ref <ref> <new> <old>`` semantics (one transaction per write
on a long-lived ``git update-ref --stdin``, so a write costs no process start). When the ref moved,
:class:`CasLost` is raised and the writer re-reads and re-applies its mutation (:func:`attempts`:
tenacity, jittered exponential backoff, at most 50 attempts / 30 s). The ref is re-read on every
attempt: reads never cache a ref's value past a change of its file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType

from parkbot.core.errors import BackendFailure, InvalidInput
from parkbot.trackers.git.process import Git, GitFailed

#: Bounds of the compare-and-swap retry loop.
CAS_ATTEMPTS = 50
CAS_SECONDS = 30.0
_HEX = "0123456789abcdef"
#: What git refuses in a ref name (``git check-ref-format``), or parkbot does: anywhere, and at the end.
_BAD_CHARACTERS = "~^:?*[\\"
_BAD_PARTS = ("..", "@{", "//", "/.")
_BAD_ENDINGS = (".lock", "/", ".")
#: Namespaces git and people write to: a backlog there would commit onto a branch, a tag or a remote's copy.
RESERVED_NAMESPACES = {"refs/heads/": "a branch", "refs/tags/": "a tag", "refs/remotes/": "a remote-tracking ref"}
#: Where ``sync`` keeps the last fetched value of each remote's backlog.
TRACKING_NAMESPACE = "refs/parkbot-remotes/"


class CasLost(Exception):
    """The ref moved between our read and our write (or another writer held its lock)."""


class RetriesExhausted(Exception):
    """Every attempt lost its compare-and-swap, or the time for them ran out."""


def is_object_id(text: str) -> bool:
    """Whether ``text`` is a SHA-1 or SHA-256 object id in lowercase hex (a trailing newline allowed, as a
    regular expression's ``$`` allows it). String tests, not a pattern: compiling one costs every command."""
    hex_digits = text.removesuffix("\n")
    return len(hex_digits) in (40, 64) and not hex_digits.strip(_HEX)


def _bad_ref_name(ref: str) -> bool:
    """A space or a character git refuses anywhere in the name, ``..``, ``@{``, ``//`` or ``/.`` in it, or
    ``.lock``, ``/`` or ``.`` at its end."""
    return (
        any(c.isspace() or c in _BAD_CHARACTERS for c in ref)
        or any(part in ref for part in _BAD_PARTS)
        or ref.endswith(_BAD_ENDINGS)
    )


def check_backlog_ref(ref: str, default: str) -> str:
    """``ref`` if a backlog may live there; an :class:`InvalidInput` saying why not otherwise."""
    if not ref.startswith("refs/") or _bad_ref_name(ref):
        raise InvalidInput(f"{ref!r} is not a usable ref name; use a full ref such as {default}")
    for prefix, what in RESERVED_NAMESPACES.items():
        if ref.startswith(prefix):
            raise InvalidInput(
                f"backlog_ref {ref!r} is {what}: parkbot would commit its backlog onto it. "
                f"Use a ref of its own, such as {default}"
            )
    if ref.startswith(TRACKING_NAMESPACE):
        raise InvalidInput(f"backlog_ref {ref!r} is where `parkbot sync` keeps remote backlogs; use {default}")
    return ref


class _FirstAttempt(AbstractContextManager[None]):
    """The first attempt: a lost compare-and-swap is noted, for :func:`attempts` to retry; anything else propagates."""

    lost = False

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool:
        self.lost = kind is not None and issubclass(kind, CasLost)
        return self.lost


def attempts(count: int, seconds: float) -> Iterator[AbstractContextManager[None]]:
    """Attempts at a write that may lose its compare-and-swap, at most ``count`` in ``seconds``::

        for attempt in attempts(CAS_ATTEMPTS, CAS_SECONDS):
            with attempt:
                return write()  # raises CasLost when another writer moved the ref

    A lost attempt is retried after a jittered exponential backoff (tenacity); when none is left,
    :class:`RetriesExhausted`. The first attempt runs on its own and tenacity is imported only once
    it is lost: most writes win at once, and every command would pay for the import at start-up.
    """
    started = time.monotonic()
    first = _FirstAttempt()
    yield first
    if not first.lost:
        return
    from tenacity import (
        RetryError,
        Retrying,
        retry_if_exception_type,
        stop_after_attempt,
        stop_after_delay,
        wait_random_exponential,
    )

    retrying = Retrying(
        stop=stop_after_attempt(count) | stop_after_delay(seconds - (time.monotonic() - started)),
        wait=wait_random_exponential(multiplier=0.005, max=0.5),
        retry=retry_if_exception_type(CasLost),
    )
    replayed = False
    try:
        for attempt in retrying:
            if not replayed:  # tenacity's first attempt is the one already lost: it counts, and is waited after
                replayed = True
                with attempt:
                    raise CasLost("the first attempt lost")
                continue
            yield attempt
    except RetryError as exc:
        raise RetriesExhausted(f"lost {count} compare-and-swap attempt(s) in {seconds:g} s") from exc


class RefReader:
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
        if is_object_id(text):
            return text
        return self._packed_refs().get(ref)

    def has_replacements(self) -> bool:
        """Whether the repository has replacement objects (``git replace``), which git reads in place of others."""
        try:
            if any(os.scandir(self._common / "refs" / "replace")):
                return True
        except OSError:
            pass
        return any(name.startswith("refs/replace/") for name in self._packed_refs())

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
                if is_object_id(sha) and name:
                    refs[name.strip()] = sha
            self._packed = (key, refs)
        return self._packed[1]


class RefUpdater:
    """Compare-and-swap of refs through one long-lived ``git update-ref --stdin``.

    Each swap is one transaction (``start``/``update <ref> <new> <old>``/``prepare``/``commit``):
    exactly ``git update-ref <ref> <new> <old>``, atomic under git's ref lock, without starting a
    process per write. git ends the process when a transaction fails; the next swap starts a new
    one. Where ``--stdin`` transactions are unavailable, each swap runs ``git update-ref`` instead.
    """

    def __init__(self, git: Git, zero: str) -> None:
        self._git = git
        self._zero = zero
        self._pipe = git.pipe("update-ref", "-m", "parkbot", "--stdin")
        self.transactions = True

    def swap(self, ref: str, new: str, old: str | None) -> None:
        """Set ``ref`` to ``new`` if it is ``old`` (None: if it does not exist); raise CasLost if not."""
        self._update(ref, new, old or self._zero)

    def set(self, ref: str, new: str) -> None:
        """Set ``ref`` to ``new`` whatever it was (a tracking ref only this tracker writes)."""
        self._update(ref, new, None)

    def _update(self, ref: str, new: str, expected: str | None) -> None:
        if not self.transactions:
            self._swap_once(ref, new, expected)
            return
        replies: list[bytes] = []
        update = f"update {ref} {new} {expected}" if expected else f"update {ref} {new}"
        try:
            self._pipe.send(f"start\n{update}\nprepare\ncommit\n".encode())
            replies = [self._pipe.readline() for _ in range(3)]
        except GitFailed as exc:
            error = exc.stderr
            if "cannot lock ref" in error:
                raise CasLost(error) from exc
            if not replies and "unknown command" in error:  # git older than 2.27: no transactions
                self.transactions = False
                self._swap_once(ref, new, expected)
                return
            raise BackendFailure(f"cannot update {ref}: {error or exc}") from exc
        if replies != [b"start: ok\n", b"prepare: ok\n", b"commit: ok\n"]:  # pragma: no cover - git's protocol
            self._pipe.close()
            raise BackendFailure(f"cannot update {ref}: git update-ref answered {replies!r}")

    def _swap_once(self, ref: str, new: str, old: str | None) -> None:
        try:
            self._git.run("update-ref", "-m", "parkbot", ref, new, *([old] if old else []))
        except GitFailed as exc:
            if "cannot lock ref" in exc.stderr:
                raise CasLost(exc.stderr) from exc
            raise BackendFailure(f"cannot update {ref}: {exc.stderr or exc}") from exc

    def close(self) -> None:
        self._pipe.close()
