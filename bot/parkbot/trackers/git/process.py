"""Running git: one-shot commands, and long-lived helpers spoken to over pipes.

Objects are read by git (``cat-file --batch``) and written by git where parkbot does not write
them itself (``hash-object --stdin-paths``, ``commit-tree``); nothing here knows how objects are
encoded. A helper is started on first use and kept for the life of the tracker, so a read costs a
few pipe round trips instead of a process start per object. A helper's errors go to a file (an
anonymous one in memory where the system has ``memfd_create``, else a temporary file), never to a
pipe nobody reads, so git can never block on them. Finding the repository is git's job too
(``rev-parse``): the backlog never needs GitPython, which costs a command a tenth of a second to
import.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, NamedTuple, Protocol

from parkbot.core.errors import BackendFailure

#: What git reads as true in a boolean setting (``git config --type=bool``): the key alone is true too.
_GIT_TRUE = frozenset({"true", "yes", "on", "1", ""})


def git_true(value: str | None) -> bool:
    """Whether a boolean git setting read with ``git config`` is true (unset: false)."""
    return value is not None and value.strip().lower() in _GIT_TRUE


def git_executable() -> str:
    """The git GitPython uses (``GIT_PYTHON_GIT_EXECUTABLE``), else ``git`` on the ``PATH``.

    GitPython is not imported for this: when it is loaded, its setting (``git.refresh`` may have
    changed it) is read; otherwise the variable it would read.
    """
    gitpython = sys.modules.get("git")
    if gitpython is not None:
        return str(gitpython.Git.GIT_PYTHON_GIT_EXECUTABLE or "git")
    return os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git"


def error_file() -> IO[bytes]:
    """A file for a helper's errors: anonymous, in memory (``memfd_create``), else a temporary file.

    The temporary file is the fallback only: :mod:`tempfile` loads :mod:`shutil` and its compression
    modules, a cost a command that only reads would otherwise pay at start-up.
    """
    make = getattr(os, "memfd_create", None)
    if make is not None:
        try:
            return open(make("parkbot-git-errors"), "w+b")
        except OSError:
            pass  # a kernel or sandbox without it
    import tempfile

    return tempfile.TemporaryFile()


class RepositoryPaths(Protocol):
    """Where a repository keeps its files: what :class:`Repository` and a GitPython ``git.Repo`` both tell."""

    @property
    def git_dir(self) -> str | os.PathLike[str]: ...

    @property
    def common_dir(self) -> str | os.PathLike[str]: ...

    @property
    def working_tree_dir(self) -> str | os.PathLike[str] | None: ...


class NotARepository(Exception):
    """No git repository contains the path; the message is git's (or says the path does not exist)."""


class Repository(NamedTuple):
    """A repository found by :func:`find_repository`: its git directory, the directory its worktrees
    share (refs, objects), the top of its working tree (None when bare) and its object format
    (``sha1``/``sha256``; None when this git cannot tell)."""

    git_dir: str
    common_dir: str
    working_tree_dir: str | None
    object_format: str | None = None


def find_repository(path: str | Path) -> Repository:
    """The repository containing ``path`` (parent directories searched), asked of ``git rev-parse``.

    One process, which also asks for the object format; ``--show-toplevel`` comes last because git
    refuses it (after printing the rest) where there is no working tree: a bare repository, or
    inside the git directory itself, whose working tree is then its parent, as GitPython said.
    """
    start = Path(os.path.expandvars(os.path.expanduser(os.fspath(path)))).absolute()
    if not start.exists():
        raise NotARepository(f"{start} does not exist")
    if not start.is_dir():
        start = start.parent
    # GIT_DIR (set in a hook, say) would answer for another repository than the one containing the
    # path; GitPython, which found the repository before, ignored it too when given a path.
    env = {name: value for name, value in os.environ.items() if name != "GIT_DIR"}
    args = [
        "rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format",
        "--show-toplevel",
    ]  # fmt: skip
    try:
        done = subprocess.run([git_executable(), *args], cwd=start, capture_output=True, env=env, check=False)
    except OSError as exc:
        raise BackendFailure(f"cannot run git: {exc.strerror or exc}") from exc
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 4:
        raise NotARepository(
            done.stderr.decode("utf-8", "replace").strip() or f"git rev-parse exited {done.returncode}"
        )
    git_dir, common, bare, object_format = lines[:4]
    common_dir = str((start / common).resolve())
    if len(lines) > 4 and done.returncode == 0:
        top: str | None = lines[4]
    else:
        top = None if bare == "true" else os.path.dirname(common_dir)
    # git before 2.25 echoes the option it does not know; BacklogRepository then asks the old way.
    return Repository(git_dir, common_dir, top, object_format if object_format in ("sha1", "sha256") else None)


class GitFailed(BackendFailure):
    """A git command exited with an error; ``stderr`` says what git said."""

    def __init__(self, message: str, *, stderr: str = "", status: int = 1) -> None:
        super().__init__(message)
        self.stderr = stderr
        self.status = status


class Git:
    """git commands on one repository (``GIT_DIR`` set, so the working tree is never consulted)."""

    def __init__(self, git_dir: str, cwd: str | None = None) -> None:
        self.git_dir = git_dir
        #: Where git runs: the top of the working tree, so relative remote paths mean what they mean to git.
        self.cwd = cwd or git_dir
        self.env = {**os.environ, "GIT_DIR": git_dir, "GIT_FLUSH": "1"}

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        env: Mapping[str, str] | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git args``; raise :class:`GitFailed` on a non-zero exit when ``check``."""
        try:
            done = subprocess.run(
                [git_executable(), *args],
                cwd=self.cwd,
                input=input,
                capture_output=True,
                env={**self.env, **(env or {})},
                check=False,
            )
        except OSError as exc:
            raise BackendFailure(f"cannot run git: {exc.strerror or exc}") from exc
        if check and done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            raise GitFailed(f"git {args[0]} failed: {stderr or f'exit {done.returncode}'}", stderr=stderr)
        return done

    def output(self, *args: str, input: bytes | None = None) -> str:
        """``git args`` on success, its stdout as text (stripped)."""
        return self.run(*args, input=input).stdout.decode("utf-8", "replace").strip()

    def pipe(self, *args: str) -> GitPipe:
        return GitPipe(self, args)


class GitPipe:
    """One long-lived git helper; started on first use, restarted if it died, stopped by :meth:`close`."""

    def __init__(self, git: Git, args: Sequence[str]) -> None:
        self._git = git
        self._args = list(args)
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._finalizer: weakref.finalize[..., GitPipe] | None = None

    @property
    def name(self) -> str:
        return f"git {' '.join(self._args)}"

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self.close()
        self._stderr = error_file()  # lives as long as the helper; closed by _stop
        try:
            self._proc = subprocess.Popen(
                [git_executable(), *self._args],
                cwd=self._git.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=self._git.env,
            )
        except OSError as exc:
            raise BackendFailure(f"cannot run git: {exc.strerror or exc}") from exc
        self._finalizer = weakref.finalize(self, _stop, self._proc, self._stderr)
        return self._proc

    def send(self, data: bytes) -> None:
        """Write ``data`` to the helper's input and flush it."""
        proc = self._process()
        assert proc.stdin is not None  # Popen was given a pipe
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except OSError as exc:
            raise self._died() from exc

    def _output(self) -> IO[bytes]:
        """The running helper's output; never a new helper's (it would wait for input we sent the old one)."""
        if self._proc is None or self._proc.stdout is None:
            raise self._died()
        return self._proc.stdout

    def readline(self) -> bytes:
        line = self._output().readline()
        if not line.endswith(b"\n"):
            raise self._died()
        return line

    def read(self, size: int) -> bytes:
        data = self._output().read(size)
        if len(data) != size:
            raise self._died()
        return data

    def _died(self) -> GitFailed:
        """The helper ended or broke its pipe: stop it and say what it printed."""
        stderr = ""
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        if self._stderr is not None:
            self._stderr.seek(0)
            stderr = self._stderr.read().decode("utf-8", "replace").strip()
        self.close()
        return GitFailed(f"{self.name} ended unexpectedly: {stderr or 'no message'}", stderr=stderr)

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = None
        self._proc = None
        self._stderr = None


def _stop(proc: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
    """End a helper: closing its input makes git exit cleanly; kill it if it does not."""
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
    stderr.close()
