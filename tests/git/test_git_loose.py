"""Loose objects read straight from their files give exactly what ``git cat-file`` gives.

Real repositories (SHA-1 and SHA-256), some objects loose and some packed; each object is read both
ways, through :class:`~parkbot.trackers.git.objects.ObjectStore` with and without the loose folder, and
compared with git's own answer. Where reading the files might not give what git gives (replacement
objects, another object directory), nothing is read from them.
"""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

import pytest

from parkbot import Backlog
from parkbot.core.errors import BackendFailure
from parkbot.trackers.git import GitTracker
from parkbot.trackers.git.loose import loose_directory, read_loose
from parkbot.trackers.git.objects import ObjectStore
from tests.support.git_helpers import make_repo, needs_input, run_git


def _backlog(path: Path, origins: range) -> None:
    with Backlog.open(repo=path, backend="git") as backlog:
        for n in origins:
            backlog.park(needs_input(origin=f"agent-{n}").model_dump(mode="json"))


def _objects(path: Path) -> dict[str, tuple[str, bytes]]:
    """Every object of the repository, as git reads it."""
    ids = run_git(path, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
    out = subprocess.run(
        ["git", "cat-file", "--batch"], cwd=path, input="".join(f"{i}\n" for i in ids).encode(), capture_output=True
    ).stdout
    found: dict[str, tuple[str, bytes]] = {}
    at = 0
    for oid in ids:
        end = out.index(b"\n", at)
        _, kind, size = out[at:end].split()
        found[oid] = (kind.decode(), out[end + 1 : end + 1 + int(size)])
        at = end + 1 + int(size) + 1
    return found


def _loose_ids(path: Path) -> set[str]:
    folder = path / ".git" / "objects"
    return {d.name + f.name for d in folder.iterdir() if len(d.name) == 2 for f in d.iterdir()}


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_every_object_reads_the_same_from_its_file_as_through_git(tmp_path: Path, object_format: str) -> None:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", f"--object-format={object_format}", "-b", "main"], cwd=path, check=True)
    make_repo(path).close()
    _backlog(path, range(4))
    run_git(path, "repack", "-a", "-d", "-q")  # the first parks packed, the later ones loose
    _backlog(path, range(4, 8))
    expected = _objects(path)
    loose = _loose_ids(path)
    assert loose  # both kinds are there
    assert set(expected) - loose
    tracker = GitTracker.open(path)
    try:
        store = tracker.backlog.store
        assert store.loose == str(path / ".git" / "objects")
        for oid, (kind, data) in expected.items():
            assert read_loose(store.loose, oid) == ((kind, data) if oid in loose else None)
        ids = sorted(expected)
        assert dict(store.read_many(ids)) == {oid: data for oid, (_, data) in expected.items()}
        plain = ObjectStore(tracker.backlog.git, tracker.backlog.object_format)
        try:
            assert list(plain.read_many(ids)) == list(store.read_many(ids))
            assert [plain.read(oid) for oid in ids] == [store.read(oid) for oid in ids]
        finally:
            plain.close()
    finally:
        tracker.backlog.close()


def test_a_damaged_loose_file_is_left_to_git_which_reports_it_as_before(made_repo: object, tmp_path: Path) -> None:
    path = tmp_path / "repo"
    _backlog(path, range(1))
    loose = sorted(_loose_ids(path))
    blob = next(oid for oid in loose if run_git(path, "cat-file", "-t", oid).strip() == "blob")
    file = path / ".git" / "objects" / blob[:2] / blob[2:]
    good = file.read_bytes()
    raw = zlib.decompress(good)
    directory = str(path / ".git" / "objects")
    for damaged in (good[: len(good) // 2], b"not zlib at all", zlib.compress(raw.replace(b" ", b"  ", 1))):
        file.chmod(0o644)
        file.write_bytes(damaged)
        assert read_loose(directory, blob) is None
        outcomes = []
        for folder in (directory, None):
            tracker = GitTracker.open(path)
            store = ObjectStore(tracker.backlog.git, tracker.backlog.object_format, folder)
            try:
                outcomes.append(repr(store.read(blob)))
            except BackendFailure as exc:
                outcomes.append(type(exc).__name__)
            finally:
                store.close()
                tracker.backlog.close()
        assert outcomes[0] == outcomes[1]


def test_a_name_that_is_no_object_id_makes_no_path(tmp_path: Path) -> None:
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "c").write_bytes(zlib.compress(b"blob 1\0x"))
    assert read_loose(str(tmp_path), "abc") == ("blob", b"x")  # the shape of a name git would use
    for name in ("../ab/c", "ab/c", "ab\0c", "ab c"):
        assert read_loose(str(tmp_path), name) is None


def test_replacement_objects_or_another_object_directory_leave_every_read_to_git(
    made_repo: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "repo"
    _backlog(path, range(1))
    objects = str(path / ".git" / "objects")
    assert loose_directory(path / ".git", replacements=False) == objects
    tracker = GitTracker.open(path)
    assert tracker.backlog.store.loose == objects
    tracker.backlog.close()

    blobs = [o for o in sorted(_loose_ids(path)) if run_git(path, "cat-file", "-t", o).strip() == "blob"]
    run_git(path, "replace", "-f", blobs[0], blobs[1])
    tracker = GitTracker.open(path)
    try:
        assert tracker.backlog.store.loose is None  # git reads the replacement; so does parkbot
        assert tracker.backlog.store.read(blobs[0])[1] == _objects(path)[blobs[1]][1]
    finally:
        tracker.backlog.close()
    run_git(path, "pack-refs", "--all")  # the replacement ref now only in packed-refs
    assert not any((path / ".git" / "refs" / "replace").iterdir())
    tracker = GitTracker.open(path)
    assert tracker.backlog.store.loose is None
    tracker.backlog.close()

    monkeypatch.setenv("GIT_NO_REPLACE_OBJECTS", "1")
    assert loose_directory(path / ".git", replacements=True) == objects
    monkeypatch.delenv("GIT_NO_REPLACE_OBJECTS")
    for name in ("GIT_OBJECT_DIRECTORY", "GIT_REPLACE_REF_BASE"):
        monkeypatch.setenv(name, str(tmp_path / "elsewhere"))
        assert loose_directory(path / ".git", replacements=False) is None
        monkeypatch.delenv(name)
