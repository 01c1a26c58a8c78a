"""The borders docs/architecture.md draws, checked on the source: the core is pure, each adapter keeps to itself,
the translators reach an adapter only through its doorway, and no surface reaches into another.

Read from the files' syntax trees (every import, also those inside functions), so a lazy import
cannot slip past.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot" / "parkbot"

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
    banned = (
        f"parkbot.trackers.{other}",
        *TRANSLATORS,
        *SURFACES,
        "parkbot.backends",
        "parkbot.report",
        "parkbot.actions_output",
        "parkbot.dashboard_refresh",
    )
    crossings = [
        f"{where(path, line)} imports {module}"
        for path in modules(BOT / "trackers" / adapter)
        for line, module in imported(path)
        if any(within(module, b) for b in banned)
    ]
    assert crossings == []


#: The one module each adapter offers the rest of parkbot: its package (``__init__``), which exports only what
#: the translators and the composition root (:mod:`parkbot.backends`) use.
DOORWAYS = ("parkbot.trackers.github", "parkbot.trackers.git")
#: The layers that turn a request into calls on :mod:`parkbot.api` or the core: commands, webhook events.
TRANSLATORS = ("parkbot.api", "parkbot.events")
#: Where a user or an agent reaches parkbot: the command line, the MCP server, the webhook server.
SURFACES = ("parkbot.cli", "parkbot.mcp_server", "parkbot.serve")
#: The only crossings between surfaces: a CLI command that starts another surface, from its own module.
LAUNCHERS = {"parkbot/cli/mcp.py": "parkbot.mcp_server", "parkbot/cli/serve.py": "parkbot.serve"}


def files_of(module: str) -> list[Path]:
    """The source files of a module or package (none when it does not exist in this tree)."""
    path = BOT.parent.joinpath(*module.split("."))
    if path.is_dir():
        return modules(path)
    return [p for p in [path.with_suffix(".py")] if p.exists()]


def test_translators_and_surfaces_reach_an_adapter_only_through_its_doorway() -> None:
    crossings = [
        f"{where(path, line)} imports {module}"
        for layer in (*TRANSLATORS, *SURFACES, "parkbot.backends")
        for path in files_of(layer)
        for line, module in imported(path)
        if within(module, "parkbot.trackers") and module not in DOORWAYS
    ]
    assert crossings == []


def test_the_doorways_export_what_they_name() -> None:
    """Each doorway's ``__all__`` is what it offers, and every name in it can be imported from it."""
    import importlib

    for doorway in DOORWAYS:
        package = importlib.import_module(doorway)
        assert [name for name in package.__all__ if getattr(package, name, None) is None] == []


def test_no_surface_imports_another_surface_and_no_translator_imports_a_surface() -> None:
    crossings = []
    for layer in (*TRANSLATORS, *SURFACES):
        for path in files_of(layer):
            allowed = LAUNCHERS.get(str(path.relative_to(BOT.parent)))
            crossings += [
                f"{where(path, line)} imports {module}"
                for line, module in imported(path)
                for surface in SURFACES
                if surface != layer and within(module, surface) and module != allowed
            ]
    assert crossings == []


def test_only_the_git_adapter_runs_git() -> None:
    """No module outside ``trackers/git`` imports GitPython or starts a process that could be git."""
    crossings = [
        f"{where(path, line)} imports {module}"
        for path in modules(BOT)
        if not path.is_relative_to(BOT / "trackers" / "git")
        for line, module in imported(path)
        if any(within(module, banned) for banned in ("git", "gitdb", "subprocess"))
        and path != BOT / "actions_output.py"  # it runs parkbot itself (``python -m parkbot.cli.events``), not git
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


TESTS = Path(__file__).resolve().parents[1]
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


#: The rooms of tests/ (tests/README.md says what each holds); no test file sits at the top of tests/.
ROOMS = {"api", "cli", "contract", "core", "events", "git", "github", "mcp", "project", "report", "serve", "support"}
#: Files of tests/core/ that attack one behaviour across core modules, so they carry the behaviour's name.
BEHAVIOUR_FILES = {
    "test_answer_binding.py",
    "test_blocking_only_goes_up.py",
    "test_one_read_path.py",
    "test_requester.py",
    "test_validators.py",
}


def misplaced(tests: Path, core: Path) -> list[str]:
    """Test files outside a room, and files of tests/core/ named after no module of the core.

    tests/core/ mirrors bot/parkbot/core/: the tests of ``core/x.py`` are ``tests/core/test_x.py`` (of
    ``core/lifecycle/y.py``, ``tests/core/lifecycle/test_y.py``), with ``test_x_<aspect>.py`` for an aspect
    that needs fixtures of its own (the published schemas), and the behaviour files named above.
    """
    found = [path.name for path in tests.glob("test_*.py") if path.is_file()] + [
        path.name + "/"
        for path in tests.iterdir()
        if path.is_dir() and path.name not in ROOMS | {"openapi", "webhooks"} and not path.name.startswith((".", "_"))
    ]
    for path in sorted((tests / "core").rglob("test_*.py")):
        folder = core.joinpath(*path.relative_to(tests / "core").parent.parts)
        stem = path.stem.removeprefix("test_")
        named = any(
            stem == m.stem or stem.startswith(m.stem + "_") for m in folder.glob("*.py") if m.stem != "__init__"
        )
        if not named and path.name not in BEHAVIOUR_FILES:
            found.append(path.relative_to(tests).as_posix())
    return found


def test_every_test_file_is_in_a_room_and_core_tests_are_named_after_their_module() -> None:
    assert misplaced(TESTS, BOT / "core") == []


def test_the_room_check_sees_a_stray_file_and_a_core_test_named_after_no_module(tmp_path: Path) -> None:
    core = tmp_path / "bot" / "core"
    (core / "lifecycle").mkdir(parents=True)
    for module in ("commands.py", "lifecycle/parking.py"):
        (core / module).write_text("", "utf-8")
    tests = tmp_path / "tests"
    (tests / "core" / "lifecycle").mkdir(parents=True)
    (tests / "misc").mkdir()
    for name in (
        "test_loose.py",
        "core/test_commands.py",
        "core/test_commands_grammar.py",
        "core/test_rules_commands.py",
        "core/lifecycle/test_parking.py",
        "core/lifecycle/test_commands.py",
        "core/test_answer_binding.py",
    ):
        (tests / name).write_text("", "utf-8")
    assert sorted(misplaced(tests, core)) == [
        "core/lifecycle/test_commands.py",
        "core/test_rules_commands.py",
        "misc/",
        "test_loose.py",
    ]


# --- size: no module over 500 lines, no class over 25 methods ----------------------------------

#: The longest a module in bot/ may be, in lines.
MAX_MODULE_LINES = 500
#: The most methods (every ``def`` in the class body: dunders, properties and static methods too) a class may have.
MAX_CLASS_METHODS = 25

#: Modules still over the limit while they are being split. This list may only shrink: an entry that is no
#: longer over the limit fails the test below until it is removed, and nothing new may join it.
LONG_MODULES: set[str] = set()
#: Classes still over the limit (``module:Class``), under the same rule.
BIG_CLASSES: set[str] = set()


def module_lines(root: Path = BOT) -> dict[str, int]:
    """Lines of every module of ``root``, by path from the source root."""
    return {
        path.relative_to(root.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in modules(root)
    }


def class_methods(root: Path = BOT) -> dict[str, int]:
    """Methods of every class of ``root`` (nested classes too), as ``module:Class``."""
    counts = {}
    for path in modules(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                defs = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
                counts[f"{path.relative_to(root.parent).as_posix()}:{node.name}"] = len(defs)
    return counts


def over_the_limits(
    sizes: dict[str, int], limit: int, allowed: set[str], what: str, unit: str
) -> tuple[list[str], list[str]]:
    """(what is over ``limit`` and not allowed, what is allowed but no longer over it)."""
    over = {name: size for name, size in sizes.items() if size > limit}
    new = [
        f"{name} has {size} {unit} (at most {limit}): split it"
        for name, size in sorted(over.items())
        if name not in allowed
    ]
    shrunk = [
        f"{name} is no longer over {limit} {unit} ({sizes.get(name, 0)}, or gone): remove it from {what}"
        for name in sorted(allowed - over.keys())
    ]
    return new, shrunk


def test_no_module_is_over_500_lines_and_the_list_of_long_ones_only_shrinks() -> None:
    new, shrunk = over_the_limits(module_lines(), MAX_MODULE_LINES, LONG_MODULES, "LONG_MODULES", "lines")
    assert new == []
    assert shrunk == []


def test_no_class_has_over_25_methods_and_the_list_of_big_ones_only_shrinks() -> None:
    new, shrunk = over_the_limits(class_methods(), MAX_CLASS_METHODS, BIG_CLASSES, "BIG_CLASSES", "methods")
    assert new == []
    assert shrunk == []


def test_the_size_checks_see_a_long_module_and_a_big_class(tmp_path: Path) -> None:
    """The counters find a long module and a big class, and a listed entry that shrank (so [] means something)."""
    package = tmp_path / "parkbot"
    package.mkdir()
    methods = "".join(f"    def m{i}(self) -> None: ...\n" for i in range(26))
    (package / "big.py").write_text("class Big:\n" + methods + "\n" * 480, encoding="utf-8")
    (package / "small.py").write_text("class Small:\n    def one(self) -> None: ...\n", encoding="utf-8")
    assert module_lines(package)["parkbot/big.py"] == 507
    assert class_methods(package) == {"parkbot/big.py:Big": 26, "parkbot/small.py:Small": 1}
    new, shrunk = over_the_limits(module_lines(package), 500, {"parkbot/small.py"}, "LONG_MODULES", "lines")
    assert new == ["parkbot/big.py has 507 lines (at most 500): split it"]
    assert shrunk == ["parkbot/small.py is no longer over 500 lines (2, or gone): remove it from LONG_MODULES"]
