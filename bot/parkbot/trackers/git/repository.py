"""The backlog ref of one repository: snapshots, commits, and writes that never lose an update.

A write is a function of the tree it read (:meth:`BacklogRepository.mutate`): it stages changes on a
:class:`~parkbot.trackers.git.edit.BacklogEdit`, the new tree and commit are written by git, and the
ref moves by compare-and-swap; when another writer moved it meanwhile, the change is re-read and
re-applied (bounded), then :class:`~parkbot.core.errors.BackendFailure` says it is safe to run again.

Objects are written as loose objects by :class:`~parkbot.trackers.git.objects.ObjectStore` (no
process start; ``git hash-object`` where it cannot); commits are written that way unsigned, or when
they must be signed or the user's ``commit.gpgSign`` asks for it, by ``git commit-tree``, which signs
with the user's own setup (``gpg.format``, ``user.signingkey``). Author and committer are the git
user (``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` respected), else ``parkbot <parkbot@localhost>``.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from parkbot.core.errors import BackendFailure, InvalidInput
from parkbot.trackers.git.layout import DEFAULT_REF
from parkbot.trackers.git.loose import loose_directory
from parkbot.trackers.git.objects import ObjectStore, Snapshot, Transaction
from parkbot.trackers.git.process import Git, GitFailed, Repository, RepositoryPaths, git_true
from parkbot.trackers.git.refs import CAS_ATTEMPTS, CAS_SECONDS, RefReader, RefUpdater, RetriesExhausted, attempts

if TYPE_CHECKING:  # the writing side: loaded by the first write, never by a command that only reads
    from parkbot.trackers.git.change import Change, UserSettings
    from parkbot.trackers.git.edit import BacklogEdit
    from parkbot.trackers.git.loose_writes import LooseObjects
    from parkbot.trackers.git.packing import Packer

FALLBACK_IDENTITY = ("parkbot", "parkbot@localhost")
#: A log tail is sealed into the archive at this many lines or bytes, so an append rewrites a bounded blob.
LOG_SEGMENT_LINES = 64
LOG_SEGMENT_BYTES = 32 * 1024


def signing_help(detail: str, allowed_signers: str) -> str:
    return (
        f"could not sign the commit ({detail or 'git gave no reason'}). Answers on this backlog must be signed "
        "with your own git signing key. Set it up with `git config gpg.format ssh` and "
        "`git config user.signingkey ~/.ssh/id_ed25519.pub`, and list that key for your e-mail in "
        f"{allowed_signers} on the default branch (see docs/git-backlog.md)."
    )


class BacklogRepository:
    """One repository's backlog ref: reading snapshots, writing commits, compare-and-swap."""

    def __init__(self, repo: RepositoryPaths, ref: str = DEFAULT_REF) -> None:
        self.repo = repo
        self.ref = ref
        self.git = Git(os.fspath(repo.git_dir), os.fspath(repo.working_tree_dir) if repo.working_tree_dir else None)
        self.common = Path(repo.common_dir)
        found = repo.object_format if isinstance(repo, Repository) else None  # asked when it was found
        self.object_format = found or self._object_format()
        self.ref_reader = RefReader(self.common)
        loose = loose_directory(self.common, replacements=self.ref_reader.has_replacements())
        self.store = ObjectStore(self.git, self.object_format, loose)
        owner = weakref.ref(self)  # the store does not keep its repository alive (no cycle to collect)

        def loose_writer() -> LooseObjects | None:
            repository = owner()
            return repository._loose_writer() if repository is not None else None

        self.store.loose_writer = loose_writer
        self.refs = RefUpdater(self.git, self.store.zero)
        self.state_dir = self.common / "parkbot"
        self.cas_attempts = CAS_ATTEMPTS
        self.cas_seconds = CAS_SECONDS
        self.segment_lines = LOG_SEGMENT_LINES
        self.segment_bytes = LOG_SEGMENT_BYTES
        #: Where signing instructions point (the allowed-signers file users must list their key in).
        self.allowed_signers_name = ".github/allowed_signers"
        #: Whether writes that record answers or escalations must be signed (``answers.require_signed``).
        self.sign_answers = False
        self._settings: UserSettings | None = None
        self._config: dict[str, str] | None = None
        self._counted = 0

    @cached_property
    def packer(self) -> Packer:
        """Counts what the writes leave and packs it (made by the first write, or to switch it off)."""
        from parkbot.trackers.git.packing import Packer

        return Packer(self.git, self.state_dir)

    def _object_format(self) -> str:
        done = self.git.run("rev-parse", "--show-object-format", check=False)
        found = done.stdout.decode("ascii", "replace").strip()
        if done.returncode == 0 and found in ("sha1", "sha256"):
            return found
        if done.returncode == 0 and found:
            raise InvalidInput(f"this repository uses the object format {found!r}; parkbot supports sha1 and sha256")
        return "sha1"  # git older than 2.25 knows nothing else

    def close(self) -> None:
        self.refs.close()
        self.store.close()

    # -- the user's settings ------------------------------------------------------------------------

    def config(self) -> dict[str, str]:
        """The settings a write depends on (lower-case keys), read by one ``git config``.

        The git user's (``user.name``, ``user.email``, ``commit.gpgSign``, ``gpg.format``,
        ``user.signingKey``) and those that say how git writes objects
        (:func:`~parkbot.trackers.git.loose_writes.loose_writer`).
        """
        if self._config is None:
            done = self.git.run(
                "config", "-z", "--get-regexp",
                r"^(user\.(name|email|signingkey)|commit\.gpgsign|gpg\.format"
                r"|core\.(sharedrepository|compression|loosecompression|fsync|fsyncobjectfiles)"
                r"|extensions\.compatobjectformat)$",
                check=False,
            )  # fmt: skip
            values: dict[str, str] = {}
            for record in done.stdout.decode("utf-8", "replace").split("\0"):
                key, _, value = record.partition("\n")
                if key:
                    values[key.lower()] = value.strip()
            self._config = values
        return self._config

    def settings(self) -> UserSettings:
        """``user.name``, ``user.email``, ``commit.gpgSign``, ``gpg.format``, ``user.signingKey``."""
        if self._settings is None:
            from parkbot.trackers.git.change import UserSettings

            values = self.config()
            self._settings = UserSettings(
                name=values.get("user.name") or None,
                email=values.get("user.email") or None,
                gpg_sign=git_true(values.get("commit.gpgsign")),
                signing_format=values.get("gpg.format") or "openpgp",
                signing_key=values.get("user.signingkey") or None,
            )
        return self._settings

    def _loose_writer(self) -> LooseObjects | None:
        """How the store writes objects itself: into the objects every worktree shares (None: git writes them)."""
        from parkbot.trackers.git.loose_writes import loose_writer

        return loose_writer(os.fspath(self.common / "objects"), self.object_format, self.config())

    def identity(self, role: str) -> tuple[str, str]:
        """Name and e-mail of the author or committer (``role``: ``AUTHOR``/``COMMITTER``)."""
        settings = self.settings()
        clean = str.maketrans("", "", "<>\n")
        name = os.environ.get(f"GIT_{role}_NAME") or settings.name or FALLBACK_IDENTITY[0]
        email = os.environ.get(f"GIT_{role}_EMAIL") or settings.email or FALLBACK_IDENTITY[1]
        return name.translate(clean).strip(), email.translate(clean).strip()

    def _person(self, role: str) -> str:
        name, email = self.identity(role)
        offset = datetime.now().astimezone().utcoffset()
        minutes = int(offset.total_seconds() // 60) if offset else 0
        sign = "-" if minutes < 0 else "+"
        tz = f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
        return f"{name} <{email}> {int(datetime.now(UTC).timestamp())} {tz}"

    # -- reading ------------------------------------------------------------------------------------

    def ref_sha(self, ref: str) -> str | None:
        return self.ref_reader.sha(ref)

    def tip(self) -> str | None:
        return self.ref_reader.sha(self.ref)

    def snapshot(self, commit: str | None = None) -> Snapshot:
        return Snapshot(self.store, commit if commit is not None else self.tip())

    # -- writing ------------------------------------------------------------------------------------

    def write_commit(self, tree: str, parents: list[str], message: str, *, sign: bool = False) -> str:
        """A commit of ``tree``; signed when ``sign`` (required) or when ``commit.gpgSign`` asks for it."""
        message = message.rstrip("\n") + "\n"
        if sign or self.settings().gpg_sign:
            return self._commit_tree(tree, parents, message, sign=sign)
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
        lines += [f"author {self._person('AUTHOR')}", f"committer {self._person('COMMITTER')}"]
        commit = self.store.write_commit(("\n".join(lines) + "\n\n" + message).encode("utf-8"))
        self.store.remember_commit(commit, tree)
        return commit

    def _commit_tree(self, tree: str, parents: list[str], message: str, *, sign: bool) -> str:
        """A signed commit, by ``git commit-tree -S`` (the user's ``gpg.format`` and ``user.signingKey``).

        ``sign`` says the signature is required by ``answers.require_signed``; otherwise the user's
        ``commit.gpgSign`` asked for it. (``commit-tree`` itself does not read ``commit.gpgSign``.)
        """
        (author, author_email), (committer, committer_email) = self.identity("AUTHOR"), self.identity("COMMITTER")
        env = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": author_email,
            "GIT_COMMITTER_NAME": committer,
            "GIT_COMMITTER_EMAIL": committer_email,
        }
        args = ["commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-S", "-F", "-"]
        try:
            done = self.git.run(*args, input=message.encode("utf-8"), env=env)
        except GitFailed as exc:
            if sign:
                raise InvalidInput(signing_help(exc.stderr, self.allowed_signers_name)) from exc
            raise InvalidInput(
                f"your git configuration asks for signed commits (commit.gpgSign), but signing failed: "
                f"{exc.stderr or exc}. Fix the signing setup, or set commit.gpgSign to false for this repository."
            ) from exc
        commit = done.stdout.decode("ascii").strip()
        self.store.written += 1
        self.store.remember_commit(commit, tree)
        return commit

    def swap(self, old: str | None, new: str) -> None:
        """Compare-and-swap the backlog ref: atomic in git, fails if another writer moved it."""
        self.refs.swap(self.ref, new, old)
        self.packer.wrote(self.store.written - self._counted)
        self._counted = self.store.written

    def retrying(self, count: int | None = None) -> Iterator[AbstractContextManager[None]]:
        """Attempts at a write, retried when another writer moved the ref (see ``refs.attempts``)."""
        return attempts(count or self.cas_attempts, self.cas_seconds)

    def edit(self, tx: Transaction) -> BacklogEdit:
        from parkbot.trackers.git.edit import BacklogEdit

        return BacklogEdit(tx, self.ref, segment_lines=self.segment_lines, segment_bytes=self.segment_bytes)

    def mutate(self, change: Callable[[BacklogEdit], Change | None]) -> str | None:
        """Apply ``change`` to the current tree and commit it; re-read and re-apply on a lost race.

        ``change`` returns what to commit, or None when there is nothing to write. Returns the new
        commit, or None when nothing changed (so a repeated step writes no commit).
        """
        try:
            for attempt in self.retrying():
                with attempt:
                    snapshot = self.snapshot()
                    edit = self.edit(Transaction(snapshot))
                    edit.ensure_layout()
                    planned = change(edit)
                    if planned is None:
                        return None
                    edit.finish()
                    tree = edit.tx.build()
                    if tree == snapshot.tree and not (planned.always and self.sign_answers):
                        return None
                    message = planned.message
                    if planned.trailers:
                        message += "\n\n" + "\n".join(planned.trailers)
                    commit = self.write_commit(
                        tree,
                        [snapshot.commit] if snapshot.commit else [],
                        message,
                        sign=planned.signed and self.sign_answers,
                    )
                    self.swap(snapshot.commit, commit)
                    return commit
        except RetriesExhausted as exc:
            raise BackendFailure(
                f"{self.ref} kept changing under concurrent writers ({self.cas_attempts} attempts); "
                "nothing was lost and it is safe to run the command again"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover
