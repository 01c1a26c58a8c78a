"""The scratch files a write hands ``git hash-object``: a folder per writer in the git directory, removed after."""

from __future__ import annotations

import os
from pathlib import Path

from parkbot.trackers.git.objects import SCRATCH, _make_scratch, _remove_scratch


def test_each_writer_has_its_own_folder_and_the_last_one_out_removes_the_parent(tmp_path: Path) -> None:
    first, second = _make_scratch(str(tmp_path)), _make_scratch(str(tmp_path))
    assert first != second
    assert {Path(first).parent, Path(second).parent} == {tmp_path / SCRATCH}
    assert os.stat(first).st_mode & 0o777 == 0o700
    for folder in (first, second):
        (Path(folder) / "0").write_bytes(b"content")
    _remove_scratch(first)
    assert not Path(first).exists()
    assert Path(second).exists()  # another writer's folder stays, and with it the parent
    _remove_scratch(second)
    assert not (tmp_path / SCRATCH).exists()
    _remove_scratch(second)  # gone already: nothing to do
