"""Print the cache key of the action's virtual environment, as ``name=value`` lines for ``$GITHUB_OUTPUT``.

* ``deps-key``: ``parkbot-venv-<OS>-<arch>-py<version>-<lock hash>-<place hash>``. What the
  dependencies in the environment depend on: the runner, the exact Python, the lock file, and where
  the interpreter and the environment live (a virtual environment records both paths, so it only
  works where it was made).
* ``key``: ``<deps-key>-<source hash>``: also parkbot's own source (``pyproject.toml``, ``README.md``
  and ``bot/parkbot/``), so a new parkbot is never run from an environment built for an older one.
* ``venv``: where the environment lives (``$RUNNER_TEMP/parkbot-venv``).

Run by the base Python that builds the environment; reads the Actions variables ``RUNNER_OS``,
``RUNNER_ARCH``, ``RUNNER_TEMP`` and ``PARKBOT_PYTHON_VERSION``. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LOCK = HERE / "requirements.lock"
SOURCE = ("pyproject.toml", "README.md", "bot")


def digest(paths: list[Path], base: Path) -> str:
    """A short hash of the files' relative names and contents, in a stable order."""
    sha = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.relative_to(base).as_posix()):
        sha.update(path.relative_to(base).as_posix().encode() + b"\0")
        sha.update(path.read_bytes() + b"\0")
    return sha.hexdigest()[:16]


def source_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in SOURCE:
        path = root / name
        if path.is_dir():
            files += [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        elif path.is_file():
            files.append(path)
    return files


def keys(env: dict[str, str], root: Path = ROOT, lock: Path = LOCK) -> dict[str, str]:
    venv = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir()) / "parkbot-venv"
    runner = f"{env.get('RUNNER_OS') or platform.system()}-{env.get('RUNNER_ARCH') or platform.machine()}"
    version = env.get("PARKBOT_PYTHON_VERSION") or platform.python_version()
    place = hashlib.sha256(f"{sys.executable}\0{venv}".encode()).hexdigest()[:8]
    deps = f"parkbot-venv-{runner}-py{version}-{digest([lock], lock.parent)}-{place}"
    return {"deps-key": deps, "key": f"{deps}-{digest(source_files(root), root)}", "venv": str(venv)}


def main() -> int:
    for name, value in keys(dict(os.environ)).items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
