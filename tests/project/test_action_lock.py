"""The action's hash-pinned lock and its cached virtual environment.

The lock (``actions/parkbot/requirements.lock``, written by ``.ci/lock``) is what the action installs with
``--require-hashes --no-deps``: a dependency missing from it would only show on a runner, so it is checked
here against ``pyproject.toml``. The cache key and the warm path of ``install.sh`` run for real, offline.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
ACTION_DIR = ROOT / "actions" / "parkbot"
LOCK = ACTION_DIR / "requirements.lock"
RELEASE_LOCK = ROOT / ".ci" / "release-requirements.lock"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)(?:\s*;\s*(?P<marker>[^\\]+?))?\s*\\$")
HASH = re.compile(r"^\s+--hash=sha256:[0-9a-f]{64}(?:\s*\\)?$")


def read_lock(path: Path) -> dict[str, tuple[Version, int]]:
    """``canonical name -> (pinned version, number of hashes)``; fails on any line it cannot read."""
    pins: dict[str, tuple[Version, int]] = {}
    current: str | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = PIN.match(line)
        if match:
            current = canonicalize_name(match.group("name"))
            assert current not in pins, f"{path.name}:{number}: {current} is pinned twice"
            pins[current] = (Version(match.group("version")), 0)
            continue
        assert HASH.match(line), f"{path.name}:{number}: not a pin or a hash: {line!r}"
        assert current is not None, f"{path.name}:{number}: a hash before any pin"
        version, hashes = pins[current]
        pins[current] = (version, hashes + 1)
    return pins


def test_every_locked_package_is_pinned_exactly_and_hashed() -> None:
    for path in (LOCK, RELEASE_LOCK):
        pins = read_lock(path)
        assert pins, path
        for name, (_, hashes) in pins.items():
            assert hashes >= 1, f"{path.name}: {name} has no hash"


def test_the_lock_covers_every_runtime_dependency_of_pyproject() -> None:
    pins = read_lock(LOCK)
    for spec in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in {LOCK.name}: run .ci/lock"
        version, _ = pins[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{LOCK.name} pins {name}=={version}, outside pyproject's {requirement.specifier}: run .ci/lock"
        )


def test_both_locks_hold_the_build_backend_pyproject_pins() -> None:
    requires = PYPROJECT["build-system"]["requires"]
    assert requires, "the build backend must be pinned"
    for spec in requires:
        requirement = Requirement(spec)
        pinned = [s for s in requirement.specifier if s.operator == "=="]
        assert len(pinned) == 1, f"build-system requires {spec!r}: pin it exactly (==)"
        for path in (LOCK, RELEASE_LOCK):
            version, _ = read_lock(path)[canonicalize_name(requirement.name)]
            assert version == Version(pinned[0].version), f"{path.name} has {requirement.name}=={version}: run .ci/lock"
        assert spec in PYPROJECT["project"]["optional-dependencies"]["test"], "the test extras build with it too"
    assert "build" in read_lock(RELEASE_LOCK)


def test_the_lock_is_closed_under_the_requirements_of_what_it_pins() -> None:
    """Each locked package that is installed here at the locked version needs only locked packages."""
    pins = read_lock(LOCK)
    checked = 0
    for name, (version, _) in pins.items():
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if Version(dist.version) != version:
            continue
        checked += 1
        for spec in dist.requires or []:
            requirement = Requirement(spec)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            needed = canonicalize_name(requirement.name)
            assert needed in pins, f"{name} {version} needs {requirement.name}, which {LOCK.name} lacks: run .ci/lock"
    assert checked >= len(PYPROJECT["project"]["dependencies"])


def test_the_action_installs_only_from_the_lock_and_builds_parkbot_offline() -> None:
    script = (ACTION_DIR / "install.sh").read_text(encoding="utf-8")
    assert '--require-hashes --no-deps -r "${here}/requirements.lock"' in script
    assert "--no-index --no-deps --no-build-isolation" in script
    assert "pip check" in script.replace('"${pip[@]}" check', "pip check")


# --- the cache key and the warm path ---------------------------------------------------------------


def key_of(root: Path, lock: Path, **env: str) -> dict[str, str]:
    sys.path.insert(0, str(ACTION_DIR))
    try:
        import venv_key
    finally:
        sys.path.remove(str(ACTION_DIR))
    base = {
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "RUNNER_TEMP": "/runner/temp",
        "PARKBOT_PYTHON_VERSION": "3.12.8",
    }
    return venv_key.keys({**base, **env}, root=root, lock=lock)


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "checkout"
    (root / "bot" / "__pycache__").mkdir(parents=True)
    (root / "bot" / "__init__.py").write_text('__version__ = "1.0.0"\n', encoding="utf-8")
    (root / "bot" / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    (root / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    lock = tmp_path / "requirements.lock"
    lock.write_text("click==8.1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n", encoding="utf-8")
    return root, lock


def test_cache_key_names_runner_python_and_lock_and_then_parkbots_source(source: tuple[Path, Path]) -> None:
    root, lock = source
    first = key_of(root, lock)
    assert first["deps-key"].startswith("parkbot-venv-Linux-X64-py3.12.8-")
    assert first["key"].startswith(first["deps-key"] + "-")
    assert first["venv"] == str(Path("/runner/temp") / "parkbot-venv")
    assert key_of(root, lock) == first  # stable

    (root / "bot" / "__pycache__" / "x.pyc").write_bytes(b"recompiled")
    assert key_of(root, lock) == first  # bytecode is not source

    (root / "bot" / "__init__.py").write_text('__version__ = "1.0.1"\n', encoding="utf-8")
    changed = key_of(root, lock)
    assert changed["deps-key"] == first["deps-key"]  # a new parkbot reuses the dependencies
    assert changed["key"] != first["key"]

    lock.write_text(lock.read_text(encoding="utf-8").replace("8.1.0", "8.1.1"), encoding="utf-8")
    assert key_of(root, lock)["deps-key"] != first["deps-key"]
    assert key_of(root, lock, PARKBOT_PYTHON_VERSION="3.13.1")["deps-key"] != key_of(root, lock)["deps-key"]
    assert key_of(root, lock, RUNNER_OS="macOS")["deps-key"] != key_of(root, lock)["deps-key"]
    assert key_of(root, lock, RUNNER_TEMP="/elsewhere")["deps-key"] != key_of(root, lock)["deps-key"]


def restored_venv(tmp_path: Path, stamp: str) -> Path:
    """A virtual environment as the cache restores it: parkbot and its dependencies importable, a stamp."""
    venv = tmp_path / "parkbot-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    here = sysconfig.get_paths()["purelib"]  # this test run's dependencies stand in for the locked ones
    Path(site, "parkbot-checkout.pth").write_text(f"{ROOT / 'bot'}\n{here}\n", encoding="utf-8")
    (venv / "parkbot-cache-key").write_text(stamp, encoding="utf-8")
    return venv


def install(venv: Path, output: Path, *, key: str, deps_key: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ["PATH"],
        "PARKBOT_BASE_PYTHON": "/nonexistent/python",  # the warm path never needs it
        "PARKBOT_VENV": str(venv),
        "PARKBOT_KEY": key,
        "PARKBOT_DEPS_KEY": deps_key,
        "GITHUB_OUTPUT": str(output),
    }
    return subprocess.run(
        ["bash", str(ACTION_DIR / "install.sh")], env=env, capture_output=True, text=True, check=False
    )


def test_a_restored_environment_whose_stamp_matches_the_key_is_used_as_it_is(tmp_path: Path) -> None:
    """The warm path: no pip, no network; the interpreter is handed to the run step."""
    venv = restored_venv(tmp_path, "deps\ndeps-source\n")
    done = install(venv, tmp_path / "output", key="deps-source", deps_key="deps")
    assert done.returncode == 0, done.stderr
    assert "the cached virtual environment is ready" in done.stdout
    assert (tmp_path / "output").read_text(encoding="utf-8") == f"python={venv / 'bin' / 'python'}\n"


def test_a_new_parkbot_reuses_the_restored_dependencies(tmp_path: Path) -> None:
    venv = restored_venv(tmp_path, "deps\ndeps-source\n")
    done = install(venv, tmp_path / "output", key="deps-newer-source", deps_key="deps")
    assert "installing parkbot from this checkout" in done.stdout
    assert done.returncode != 0
    assert "/nonexistent/python" in done.stderr  # it went on to pip
    assert venv.is_dir()  # the dependencies were kept
    assert not (tmp_path / "output").exists()  # no interpreter is handed on before parkbot is installed


def test_an_environment_for_another_lock_is_built_again(tmp_path: Path) -> None:
    venv = restored_venv(tmp_path, "old-deps\nold-deps-source\n")
    done = install(venv, tmp_path / "output", key="deps-source", deps_key="deps")
    assert "building the virtual environment from requirements.lock" in done.stdout
    assert done.returncode != 0
    assert "/nonexistent/python" in done.stderr
    assert not venv.exists()  # never reused: it was made for other dependencies


def test_the_action_installs_no_extra() -> None:
    """The action runs the CLI: neither the MCP SDK nor anything only an extra needs is in its lock."""
    pins = read_lock(LOCK)
    core = {canonicalize_name(Requirement(spec).name) for spec in PYPROJECT["project"]["dependencies"]}
    for extra, specs in PYPROJECT["project"]["optional-dependencies"].items():
        if extra == "test":
            continue
        for spec in specs:
            name = canonicalize_name(Requirement(spec).name)
            assert name in core or name not in pins, f"{LOCK.name} installs {name} of the [{extra}] extra: run .ci/lock"
    for name in ("mcp", "uvicorn", "starlette"):
        assert name not in pins
