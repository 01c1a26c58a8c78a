"""Loose objects parkbot writes itself: the same objects, bytes and files git writes, or git writes them.

Real repositories in temporary folders; every object is checked with git itself (``hash-object``,
``cat-file``, ``fsck --strict``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import BackendFailure
from parkbot.trackers.git import GitTracker
from parkbot.trackers.git.objects import FILE_MODE, GITLINK_MODE, TREE_MODE, ObjectStore
from parkbot.trackers.git.process import find_repository
from parkbot.trackers.git.repository import BacklogRepository
from tests.support.git_helpers import USER_EMAIL, USER_NAME, make_repo, needs_input, run_git

ROOT = Path(__file__).resolve().parents[2]
REF = "refs/parkbot/backlog"


def init(path: Path, object_format: str = "sha1") -> Path:
    path.mkdir(parents=True)
    run_git(path, "init", "-q", f"--object-format={object_format}", "-b", "main")
    run_git(path, "config", "user.name", USER_NAME)
    run_git(path, "config", "user.email", USER_EMAIL)
    run_git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


@pytest.fixture
def backlog(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[BacklogRepository]:
    opened = BacklogRepository(find_repository(init(tmp_path / "repo", getattr(request, "param", "sha1"))))
    yield opened
    opened.close()


def git_started(store: ObjectStore) -> set[str]:
    """The ``hash-object`` helpers the store started (none when it wrote every object itself)."""
    pipes = {"blobs": store._blobs, "trees": store._tree_writer, "commits": store._commits}
    return {name for name, pipe in pipes.items() if pipe._proc is not None}


def objects_dir(backlog: BacklogRepository) -> Path:
    return backlog.common / "objects"


def temporary_files(backlog: BacklogRepository) -> list[Path]:
    return sorted(objects_dir(backlog).rglob("tmp_*"))


def hash_object(root: Path, kind: str, content: bytes, *, write: bool = False) -> str:
    args = ["git", "hash-object", "-t", kind, *(["-w"] if write else []), "--stdin"]
    return subprocess.run(args, cwd=root, input=content, capture_output=True, check=True).stdout.decode().strip()


def cat(root: Path, kind: str, oid: str) -> bytes:
    return subprocess.run(["git", "cat-file", kind, oid], cwd=root, capture_output=True, check=True).stdout


def write_all(backlog: BacklogRepository) -> dict[str, tuple[str, bytes]]:
    """A blob, a nested tree and a commit, as a write of the backlog makes them: ``oid -> (type, content)``."""
    store = backlog.store
    blobs = [b"{}\n", b"", "d\u00e9cision \u2713\n".encode(), bytes(range(256)) * 40]
    blob_ids = store.write_blobs(blobs)
    inner = {"b.json": (FILE_MODE, blob_ids[0]), "empty": (FILE_MODE, blob_ids[1]), "bin": (0o100755, blob_ids[3])}
    (inner_id,) = store.write_trees([inner])
    outer = {"a": (TREE_MODE, inner_id), "a.json": (FILE_MODE, blob_ids[2]), "a-b": (FILE_MODE, blob_ids[0])}
    (outer_id,) = store.write_trees([outer])
    commit = backlog.write_commit(outer_id, [], "park: one\n\nParkbot-Record: answer x-decision-y 00")
    written = {oid: ("blob", data) for oid, data in zip(blob_ids, blobs, strict=True)}
    written[inner_id] = ("tree", store.encode_tree(inner))
    written[outer_id] = ("tree", store.encode_tree(outer))
    written[commit] = ("commit", store.raw(commit))
    return written


@pytest.mark.parametrize("backlog", ["sha1", "sha256"], indirect=True)
def test_objects_are_the_ones_git_writes_in_either_format(backlog: BacklogRepository) -> None:
    root = Path(backlog.repo.working_tree_dir or "")
    written = write_all(backlog)
    assert git_started(backlog.store) == set()  # no hash-object process: the store wrote them
    assert backlog.store.written == len(written)  # what the packer counts
    umask = os.umask(0)
    os.umask(umask)
    for oid, (kind, content) in written.items():
        assert len(oid) == backlog.store.hex_length
        assert hash_object(root, kind, content) == oid
        assert cat(root, kind, oid) == content
        assert run_git(root, "cat-file", "-t", oid) == kind
        path = objects_dir(backlog) / oid[:2] / oid[2:]
        assert zlib.decompress(path.read_bytes()) == b"%s %d\0" % (kind.encode(), len(content)) + content
        assert path.stat().st_mode & 0o777 == 0o444 & ~umask  # as git makes it
    assert run_git(root, "fsck", "--strict", "--no-progress", "--no-dangling") == ""
    assert temporary_files(backlog) == []


def test_an_object_git_wrote_already_is_kept_and_only_freshened(backlog: BacklogRepository) -> None:
    root = Path(backlog.repo.working_tree_dir or "")
    oid = hash_object(root, "blob", b"there already\n", write=True)
    path = objects_dir(backlog) / oid[:2] / oid[2:]
    os.utime(path, (1_000_000_000, 1_000_000_000))
    before = path.stat()
    assert backlog.store.write_blobs([b"there already\n"]) == [oid]
    after = path.stat()
    assert after.st_ino == before.st_ino  # the same file, not rewritten
    assert after.st_mtime > before.st_mtime  # freshened, so a gc does not prune it before the ref names it
    assert backlog.store.written == 1
    assert git_started(backlog.store) == set()
    assert temporary_files(backlog) == []


def test_a_file_system_refusing_the_write_leaves_no_temporary_file_and_git_writes(
    backlog: BacklogRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(backlog.repo.working_tree_dir or "")

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "refused")

    monkeypatch.setattr(os, "link", refused)
    monkeypatch.setattr(os, "rename", refused)
    oids = backlog.store.write_blobs([b"first\n", b"second\n"])
    monkeypatch.undo()
    assert temporary_files(backlog) == []
    assert git_started(backlog.store) == {"blobs"}  # handed to git, which wrote them
    assert oids == [hash_object(root, "blob", b"first\n"), hash_object(root, "blob", b"second\n")]
    assert [cat(root, "blob", oid) for oid in oids] == [b"first\n", b"second\n"]
    assert backlog.store.written == 2  # counted once, by the write that did it
    backlog.store.write_trees([{"f": (FILE_MODE, oids[0])}])
    assert git_started(backlog.store) == {"blobs", "trees"}  # git writes the rest of this store's objects too
    assert run_git(root, "fsck", "--strict", "--no-progress", "--no-dangling") == ""


def test_what_the_store_does_not_vouch_for_is_written_and_checked_by_git(backlog: BacklogRepository) -> None:
    root = Path(backlog.repo.working_tree_dir or "")
    store = backlog.store
    (blob,) = store.write_blobs([b"target\n"])
    (link_tree,) = store.write_trees([{"link": (0o120000, blob)}])  # a symbolic link: git's checks
    (module_tree,) = store.write_trees([{"sub": (GITLINK_MODE, blob)}])
    assert git_started(store) == {"trees"}
    assert run_git(root, "ls-tree", link_tree).startswith("120000 blob")
    assert run_git(root, "ls-tree", module_tree).startswith("160000 commit")
    (plain,) = store.write_trees([{"f": (FILE_MODE, blob)}])
    assert cat(root, "tree", plain) == store.encode_tree({"f": (FILE_MODE, blob)})
    person = "A <a@b> 1 +0000"
    extra = f"tree {plain}\nauthor {person}\ncommitter {person}\nencoding UTF-8\n\nan extra header\n".encode()
    assert cat(root, "commit", store.write_commit(extra)) == extra  # git's to check, and it takes it
    assert git_started(store) == {"trees", "commits"}
    with pytest.raises(BackendFailure, match="refused the commit"):
        store.write_commit(f"tree {'x' * 40}\nauthor {person}\ncommitter {person}\n\nbad\n".encode())


def test_a_shared_repository_keeps_its_objects_readable_by_the_group(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    run_git(root, "config", "core.sharedRepository", "group")
    objects = root / ".git" / "objects"
    before = set(objects.rglob("*"))
    umask = os.umask(0o077)  # a user who shares nothing by default: git must widen the modes itself
    try:
        tracker = GitTracker(find_repository(root), auto_gc=False)
        lifecycle.park(tracker, needs_input(), Config())
        tracker.backlog.close()
    finally:
        os.umask(umask)
    made = [path for path in set(objects.rglob("*")) - before if len(path.parent.name) == 2 or path.is_dir()]
    assert len([path for path in made if path.is_file()]) >= 8
    for path in made:
        wanted = 0o070 if path.is_dir() else 0o040
        assert path.stat().st_mode & wanted == wanted, path
    assert run_git(root, "fsck", "--strict", "--no-progress", "--no-dangling") == ""


def test_a_worktree_writes_into_the_objects_every_worktree_shares(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo").working_tree_dir
    assert root is not None
    run_git(root, "worktree", "add", "-q", str(tmp_path / "other"), "-b", "other")
    found = find_repository(tmp_path / "other")
    assert found.git_dir != found.common_dir
    tracker = GitTracker(found, auto_gc=False)
    lifecycle.park(tracker, needs_input(), Config())
    assert git_started(tracker.backlog.store) == set()
    tracker.backlog.close()
    assert not (Path(found.git_dir) / "objects").exists()
    tip = run_git(root, "rev-parse", REF)
    assert (Path(root) / ".git" / "objects" / tip[:2] / tip[2:]).is_file()
    assert run_git(tmp_path / "other", "fsck", "--strict", "--no-progress", "--no-dangling") == ""


WRITER = """\
import sys
from parkbot.trackers.git.loose_writes import LooseObjects
store = LooseObjects(sys.argv[1], "sha1")
for n in range(300):
    store.write("blob", b"the same content %d\\n" % n)
"""


def test_two_processes_writing_the_same_objects_both_succeed(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root / ".git" / "objects")], env=env, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=60)
        assert writer.returncode == 0, errors
    oid = hash_object(root, "blob", b"the same content 299\n")
    assert cat(root, "blob", oid) == b"the same content 299\n"
    assert sorted((root / ".git" / "objects").rglob("tmp_*")) == []
    run_git(root, "fsck", "--strict", "--no-progress")


def test_two_parks_of_the_same_result_at_once_both_succeed(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    result = ROOT / "examples" / "needs_input.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    parks = [
        subprocess.Popen(
            [sys.executable, "-m", "parkbot", "park", str(result)], cwd=root, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]  # fmt: skip
    for park in parks:
        out, errors = park.communicate(timeout=120)
        assert park.returncode == 0, (out, errors)
    assert run_git(root, "fsck", "--strict", "--no-progress", "--no-dangling") == ""
    assert sorted((root / ".git" / "objects").rglob("tmp_*")) == []
    assert len(run_git(root, "rev-list", REF).split()) == 1  # one filed it; the other found it filed


def test_object_settings_git_must_honour_leave_the_writing_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parkbot.trackers.git.loose_writes import loose_writer

    objects = str(init(tmp_path / "repo") / ".git" / "objects")
    assert loose_writer(objects, "sha1", {}) is not None
    assert loose_writer(objects, "sha1", {"core.sharedrepository": "group"}) is None
    assert loose_writer(objects, "sha1", {"extensions.compatobjectformat": "sha256"}) is None
    assert loose_writer(objects, "sha1", {"core.loosecompression": "eleven"}) is None
    assert loose_writer(str(tmp_path / "nowhere"), "sha1", {}) is None
    written = loose_writer(objects, "sha1", {"core.compression": "9", "core.fsyncobjectfiles": "true"})
    assert written is not None
    assert (written.level, written.fsync) == (9, True)
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", objects)  # a pre-receive hook's quarantine, say
    assert loose_writer(objects, "sha1", {}) is None


PERSON = "A <a@b> 1 +0000"
#: Headers the store leaves to git: what ``fsck --strict`` refuses, and what parkbot never writes.
NOT_PLAIN = [
    "author <a@b> 1 +0000",  # no name before the e-mail
    "author A<a@b> 1 +0000",  # no space before it
    "author A <a@b> 01 +0000",  # a zero-padded date
    "author A <a@b> 1 +000",  # a short time zone
    "author A <a@b>  1 +0000",
    "author A <a<b> 1 +0000",
    "author A <a@b> 1 +0000 ",
]


@pytest.mark.parametrize("author", NOT_PLAIN)
def test_a_commit_header_out_of_the_ordinary_is_not_written_directly(author: str) -> None:
    from parkbot.trackers.git.loose_writes import plain_commit

    tree = "a" * 40
    assert plain_commit(f"tree {tree}\nauthor {PERSON}\ncommitter {PERSON}\n\nm".encode(), 40)
    assert not plain_commit(f"tree {tree}\n{author}\ncommitter {PERSON}\n\nm".encode(), 40)
    for header in (
        f"tree {tree}\nauthor {PERSON}\ncommitter {PERSON}\nencoding latin-1\n\nm",  # another header
        f"tree {tree}\nauthor {PERSON}\ncommitter {PERSON}\n",  # no blank line
        f"tree {tree.upper()}\nauthor {PERSON}\ncommitter {PERSON}\n\nm",
        f"tree {tree}\nparent {tree[:39]}\nauthor {PERSON}\ncommitter {PERSON}\n\nm",
        f"tree {tree}\ncommitter {PERSON}\nauthor {PERSON}\n\nm",
    ):
        assert not plain_commit(header.encode(), 40)


@pytest.mark.parametrize("name", ["Zoë Owner", "", "x" * 300, "a\tb"], ids=["unicode", "no-name", "long", "tab"])
def test_every_commit_written_directly_passes_a_strict_fsck(backlog: BacklogRepository, name: str) -> None:
    root = Path(backlog.repo.working_tree_dir or "")
    (tree,) = backlog.store.write_trees([{}])
    parent = backlog.write_commit(tree, [], "first")
    body = f"tree {tree}\nparent {parent}\nauthor {name} <a@b> 0 -0130\ncommitter {name} <> 99 +1400\n\nm\n"
    oid = backlog.store.write_commit(body.encode())
    assert git_started(backlog.store) == set()
    assert oid == hash_object(root, "commit", body.encode())
    assert run_git(root, "fsck", "--strict", "--no-progress", "--no-dangling") == ""
