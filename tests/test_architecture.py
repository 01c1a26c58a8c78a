"""The border docs/architecture.md draws, checked on the source: the core is pure, each adapter keeps to itself.

Read from the files' syntax trees (every import, also those inside functions), so a lazy import
cannot slip past.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot" / "parkbot"

#: What the core may never reach for: adapters, translators, wire formats, processes, the network, the terminal.
NOT_IN_THE_CORE = (
    "parkbot.trackers",
    "parkbot.events",
    "parkbot.cli",
    "parkbot.api",
    "parkbot.mcp_server",
    "parkbot.backends",
    "parkbot.config_file",
    "parkbot.report",
    "github",
    "git",
    "gitdb",
    "requests",
    "urllib3",
    "subprocess",
    "socket",
    "http",
    "urllib",
    "click",
    "jinja2",
    "mcp",
    "tenacity",
    "os",
    "shutil",
    "tempfile",
)
#: Calls that touch files or the environment.
IO_CALLS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "getenv", "mkdir", "unlink", "exists"}


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def imported(path: Path, root: Path = BOT.parent) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in ``path``; a relative import is resolved against its package."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            yield node.lineno, base


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(BOT.parent)}:{line}"


def test_the_core_imports_nothing_but_itself_the_standard_library_and_its_parsers() -> None:
    crossings = [
        f"{where(path, line)} imports {module}"
        for path in modules(BOT / "core")
        for line, module in imported(path)
        if any(within(module, banned) for banned in NOT_IN_THE_CORE)
    ]
    assert crossings == []


def test_the_core_reads_no_file_and_no_environment() -> None:
    calls = []
    for path in modules(BOT / "core"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in IO_CALLS:
                    calls.append(f"{where(path, node.lineno)} calls {name}()")
    assert calls == []


@pytest.mark.parametrize(("adapter", "other"), [("github", "git"), ("git", "github")])
def test_an_adapter_never_reaches_into_the_other_or_into_the_translators(adapter: str, other: str) -> None:
    banned = (f"parkbot.trackers.{other}", "parkbot.events", "parkbot.cli", "parkbot.api", "parkbot.mcp_server")
    crossings = [
        f"{where(path, line)} imports {module}"
        for path in modules(BOT / "trackers" / adapter)
        for line, module in imported(path)
        if any(within(module, b) for b in banned)
    ]
    assert crossings == []


def test_no_private_name_crosses_a_module() -> None:
    crossings = []
    for path in modules(BOT):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("parkbot"):
                crossings += [
                    f"{where(path, node.lineno)} imports {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert crossings == []


def test_the_checks_see_a_crossing_when_there_is_one(tmp_path: Path) -> None:
    """The walkers above find imports inside functions and relative ones (so an empty list means something)."""
    sample = tmp_path / "bot" / "parkbot" / "core" / "probe.py"
    sample.parent.mkdir(parents=True)
    sample.write_text("def later():\n    import subprocess\n    from ..trackers.git import GitTracker\n", "utf-8")
    assert [module for _, module in imported(sample, tmp_path / "bot")] == ["subprocess", "parkbot.trackers.git"]


TESTS = Path(__file__).resolve().parent
#: Where the tests' shared helpers live; the contract suite's harnesses belong to that suite.
SHARED = ("tests.support", "tests.contract.harness_")


def test_no_test_module_imports_another_test_module() -> None:
    """A helper two test files need lives in tests/support/, so moving or deleting a test file breaks nothing else."""
    crossings = [
        f"{path.relative_to(TESTS.parent)}:{line} imports {module}"
        for path in modules(TESTS)
        for line, module in imported(path, TESTS.parent)
        if within(module, "tests") and not module.startswith(SHARED)
    ]
    assert crossings == []


def test_the_test_check_sees_a_test_module_imported(tmp_path: Path) -> None:
    sample = tmp_path / "tests" / "git" / "test_probe.py"
    sample.parent.mkdir(parents=True)
    sample.write_text("from tests.github.test_github_tracker import park\nfrom tests.support import results\n", "utf-8")
    found = [module for _, module in imported(sample, tmp_path)]
    assert [m for m in found if not m.startswith(SHARED)] == ["tests.github.test_github_tracker"]
