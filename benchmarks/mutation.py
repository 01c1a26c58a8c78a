"""Mutation testing: which changes to a module's code do its tests not notice?

Mutants come from mutmut's mutation engine (libcst, every operator of mutmut 3.8); this script only
runs them. Each module's tests (``[tool.parkbot.mutation.tests]`` in pyproject.toml) are collected
once; a baseline run records which test runs which line and how long each test takes. Then, for
each mutant, a forked child swaps the mutated function's code in place and runs only the tests that
ran the mutated lines, quickest first, stopping at the first failure, under a per-mutant timeout (a
timeout counts as detected). Mutants listed in the equivalents file are reported as "equivalent", and an
entry that matches no surviving mutant is reported as stale.

    python benchmarks/mutation.py bot/parkbot/core/commands.py   # one module (or parkbot.core.commands)
    python benchmarks/mutation.py --all                           # every module in the mapping
    python benchmarks/mutation.py bot/parkbot/core/lifecycle/resolving.py --function 'resolve*'
    python benchmarks/mutation.py bot/parkbot/core/identity.py --toml   # survivors as equivalents entries

Exit status: 0 when every module was measured (survivors do not fail the run), 2 for a usage or
configuration error, or when a module's tests fail without any mutation. See
docs/development/mutation-testing.md.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import fnmatch
import importlib
import importlib.util
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import tomllib
import types
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider
from mutmut.mutation.file_mutation import MutationVisitor, deep_replace
from mutmut.mutation.mutators import mutation_operators
from mutmut.mutation.pragma_handling import IgnoredCode

ROOT = Path(__file__).resolve().parents[1]
EXIT_OK = 0
EXIT_USAGE = 2

KILLED = "killed"
SURVIVED = "survived"
TIMED_OUT = "timed out"
NOT_APPLIED = "not applied"

#: Child exit codes: tests passed / a test failed / pytest broke (detected, as mutmut counts it) /
#: the mutated code could not be put in place (a defect of this tool, reported, never counted).
CHILD_SURVIVED, CHILD_KILLED, CHILD_INTERNAL_ERROR, CHILD_NOT_APPLIED = 0, 1, 3, 70

HYPOTHESIS_PROFILE = "parkbot-mutation"
MAPPING = "[tool.parkbot.mutation.tests]"


class UsageError(Exception):
    """A bad argument or configuration entry: reported as one line, exit 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every process on the way stops its children first."""


def _terminate(signum: int, frame: types.FrameType | None) -> None:
    raise Terminated


# --------------------------------------------------------------------------------------------
# configuration


@dataclass(frozen=True)
class Settings:
    root: Path
    tests: dict[str, list[str]]  # module path (posix, relative to root) -> pytest arguments
    equivalents: Path
    workers: int
    timeout_factor: float
    timeout_seconds: float
    #: Where packages live (bot/ holds parkbot): a module's dotted name is its path below this.
    source_root: Path = Path()


def load_settings(root: Path) -> Settings:
    """``[tool.parkbot.mutation]`` of ``root/pyproject.toml``: the one place that says what to run."""
    pyproject = root / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{pyproject} does not exist (--root must be a project folder)") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{pyproject}: {exc}") from None
    table = data.get("tool", {}).get("parkbot", {}).get("mutation")
    if not isinstance(table, dict):
        raise UsageError(f"{pyproject} has no [tool.parkbot.mutation] table")
    where = f"{pyproject} [tool.parkbot.mutation]"
    known = {"tests", "equivalents", "workers", "timeout_factor", "timeout_seconds", "source_root"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    tests = table.get("tests")
    if not isinstance(tests, dict) or not tests:
        raise UsageError(f'{where}: "tests" must map module paths to lists of pytest arguments')
    mapping: dict[str, list[str]] = {}
    for module, args in tests.items():
        if not isinstance(args, list) or not args or not all(isinstance(a, str) and a for a in args):
            raise UsageError(f"{where}.tests: {module!r} must be a non-empty list of pytest arguments")
        mapping[_normal_path(module)] = list(args)
    equivalents = table.get("equivalents", "benchmarks/equivalent_mutants.toml")
    if not isinstance(equivalents, str) or not equivalents:
        raise UsageError(f'{where}: "equivalents" must be a path')
    workers = _number(table, "workers", 2, where, int)
    if workers < 1:
        raise UsageError(f'{where}: "workers" must be at least 1')
    return Settings(
        root=root,
        tests=mapping,
        equivalents=root / equivalents,
        workers=workers,
        timeout_factor=_number(table, "timeout_factor", 10.0, where, float),
        timeout_seconds=_number(table, "timeout_seconds", 10.0, where, float),
        source_root=Path(_source_root(table, where)),
    )


def _source_root(table: dict[str, Any], where: str) -> str:
    value = table.get("source_root", ".")
    if not isinstance(value, str) or not value:
        raise UsageError(f'{where}: "source_root" must be a folder, relative to the project')
    return value


def _number(table: dict[str, Any], key: str, default: float, where: str, kind: type) -> Any:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and not isinstance(value, int)):
        raise UsageError(f'{where}: "{key}" must be a{"n integer" if kind is int else " number"}, not {value!r}')
    if value < 0:
        raise UsageError(f'{where}: "{key}" must not be negative')
    return kind(value)


def _normal_path(path: str) -> str:
    return Path(path).as_posix().removeprefix("./")


def module_path(argument: str, settings: Settings) -> str:
    """A module as a path (``bot/parkbot/core/commands.py``) or a dotted name (``parkbot.core.commands``): its key."""
    if argument.endswith(".py") or "/" in argument or os.sep in argument:
        path = Path(argument)
        if path.is_absolute() or not (settings.root / path).exists():
            candidate = (Path.cwd() / path).resolve()
            if candidate.is_relative_to(settings.root.resolve()):
                path = candidate.relative_to(settings.root.resolve())
        key = _normal_path(str(path))
    else:
        as_path = settings.source_root.joinpath(*argument.split("."))
        package = as_path / "__init__.py"
        key = package.as_posix() if (settings.root / package).exists() else as_path.with_suffix(".py").as_posix()
    if key not in settings.tests:
        configured = ", ".join(sorted(settings.tests))
        raise UsageError(
            f"no tests are mapped to {key}: add it to [tool.parkbot.mutation.tests] in "
            f"{settings.root / 'pyproject.toml'} (mapped: {configured})"
        )
    if not (settings.root / key).is_file():
        raise UsageError(f"{key} does not exist: if it moved, update its key in {MAPPING}")
    return key


def dotted_name(path: str, source_root: Path = Path()) -> str:
    parts = list(Path(path).with_suffix("").relative_to(source_root).parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# --------------------------------------------------------------------------------------------
# mutants (generated by mutmut's engine)


@dataclass(frozen=True)
class Mutant:
    """One mutation, identified by what it changes rather than where, so the id survives unrelated edits."""

    number: int  # position in the module's list, for this run only
    module: str
    function: str  # qualified name: ``park`` or ``Config.load``
    operator: str  # mutmut's operator, without its ``operator_`` prefix
    line: int  # first line of the mutated code (1-based)
    run_lines: tuple[int, int]  # a test that runs the mutated code gets a line event in this range
    before: str  # the changed source line(s), stripped
    after: str  # the same line(s) in the mutant, stripped
    diff: str
    source: str  # the whole mutated module
    def_line: int  # where the function's code object starts (its first decorator, or ``def``)
    changes_defaults: bool  # the mutation is in a parameter default, so defaults must be swapped too

    @property
    def location(self) -> str:
        return f"{self.module}:{self.line}"


def generate_mutants(root: Path, module: str) -> list[Mutant]:
    """Every mutant mutmut would make in the module's functions and methods (pragmas are not honoured)."""
    source = (root / module).read_text(encoding="utf-8")
    wrapper = MetadataWrapper(cst.parse_module(source))
    operator_of: dict[int, tuple[cst.CSTNode, str]] = {}

    def recording(operator: Callable[[Any], Iterable[cst.CSTNode]]) -> Callable[[Any], Iterator[cst.CSTNode]]:
        def mutate(node: Any) -> Iterator[cst.CSTNode]:
            for mutated in operator(node):
                operator_of[id(mutated)] = (mutated, operator.__name__.removeprefix("operator_"))
                yield mutated

        return mutate

    operators = [(kind, recording(operator)) for kind, operator in mutation_operators]
    # No ignored lines: "# pragma: no mutate" would exclude code silently; equivalents are listed instead.
    visitor = MutationVisitor(operators, IgnoredCode(set(), set(), set()))
    wrapper.visit(visitor)
    tree = wrapper.module
    positions = wrapper.resolve(PositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)

    header = "".join(tree.code_for_node(line) for line in tree.header)
    parts = [tree.code_for_node(statement) for statement in tree.body]
    footer = "".join(tree.code_for_node(line) for line in tree.footer)
    if header + "".join(parts) + footer != source:
        raise UsageError(f"{module}: libcst does not reproduce the file byte for byte; cannot mutate it")
    first_lines = [1 + header.count("\n")]
    for part in parts:
        first_lines.append(first_lines[-1] + part.count("\n"))

    owner: dict[cst.FunctionDef, tuple[int, str]] = {}  # function -> (top-level statement, qualified name)
    for index, statement in enumerate(tree.body):
        if isinstance(statement, cst.FunctionDef):
            owner[statement] = (index, statement.name.value)
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            for member in statement.body.body:
                if isinstance(member, cst.FunctionDef):
                    owner[member] = (index, f"{statement.name.value}.{member.name.value}")

    mutants: list[Mutant] = []
    for mutation in visitor.mutations:
        function = mutation.contained_by_top_level_function
        if not isinstance(function, cst.FunctionDef) or function not in owner:
            continue  # mutmut mutates functions and methods only, never module or class bodies
        index, qualname = owner[function]
        mutated_statement = deep_replace(tree.body[index], mutation.original_node, mutation.mutated_node)
        assert isinstance(mutated_statement, cst.CSTNode)
        new_part = tree.code_for_node(mutated_statement)
        old_lines = parts[index].splitlines(keepends=True)
        new_lines = new_part.splitlines(keepends=True)
        before, after, diff = _describe_change(old_lines, new_lines, first_lines[index], module)
        start = positions[mutation.original_node].start.line
        decorators = function.decorators
        def_line = positions[decorators[0]].start.line if decorators else positions[function].start.line
        mutants.append(
            Mutant(
                number=len(mutants),
                module=module,
                function=qualname,
                operator=operator_of[id(mutation.mutated_node)][1],
                line=start,
                run_lines=_statement_lines(mutation.original_node, positions, parents),
                before=before,
                after=after,
                diff=diff,
                source=header + "".join(parts[:index]) + new_part + "".join(parts[index + 1 :]) + footer,
                def_line=def_line,
                changes_defaults=any(node is mutation.original_node for node in _walk(function.params)),
            )
        )
    return mutants


_CLAUSES = (cst.BaseCompoundStatement, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)


def _statement_lines(node: cst.CSTNode, positions: Any, parents: Any) -> tuple[int, int]:
    """The lines of the statement (or clause header) holding ``node``.

    Python reports a line event only for lines that start an instruction: the continuation lines of
    an implicitly concatenated string never get one. But running a statement always reports a line
    of that statement, so tests are selected by the whole statement, never by the node's own lines.
    """
    current: cst.CSTNode | None = node
    while current is not None:
        if isinstance(current, cst.BaseSmallStatement):
            return positions[current].start.line, positions[current].end.line
        if isinstance(current, _CLAUSES):
            header = positions[current].start.line
            body = getattr(current, "body", None)
            statements = getattr(body, "body", ())
            end = positions[statements[0]].start.line if statements else positions[current].end.line
            return header, max(header, end)
        current = parents.get(current)
    return positions[node].start.line, positions[node].end.line


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _describe_change(old: list[str], new: list[str], first_line: int, module: str) -> tuple[str, str, str]:
    """The changed lines (stripped, for the mutant's id) and a unified diff with the file's line numbers."""
    removed: list[str] = []
    added: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += [line.strip() for line in old[i1:i2]]
            added += [line.strip() for line in new[j1:j2]]
    diff_lines = []
    offset = first_line - 1
    for line in difflib.unified_diff(old, new, fromfile=module, tofile=f"{module} (mutant)", n=1):
        hunk = re.match(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", line)
        if hunk:
            line = f"@@ -{int(hunk[1]) + offset}{hunk[2] or ''} +{int(hunk[3]) + offset}{hunk[4] or ''} @@\n"
        diff_lines.append(line if line.endswith("\n") else line + "\n")
    return _normal_text("\n".join(removed)), _normal_text("\n".join(added)), "".join(diff_lines)


# --------------------------------------------------------------------------------------------
# equivalent mutants (one reviewed file)


@dataclass(frozen=True)
class Equivalent:
    module: str
    function: str
    operator: str
    line: str
    mutated: str
    reason: str
    evidence: str

    def matches(self, mutant: Mutant) -> bool:
        return (self.module, self.function, self.operator, self.line, self.mutated) == (
            mutant.module,
            mutant.function,
            mutant.operator,
            mutant.before,
            mutant.after,
        )


EQUIVALENT_KEYS = ("module", "function", "operator", "line", "mutated", "reason", "evidence")


def load_equivalents(path: Path) -> list[Equivalent]:
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - {"mutant"})
    if unknown:
        raise UsageError(f"{path}: unknown table(s) {', '.join(unknown)} (entries are [[mutant]] tables)")
    entries = data.get("mutant", [])
    if not isinstance(entries, list):
        raise UsageError(f"{path}: entries must be [[mutant]] tables")
    equivalents = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: [[mutant]] #{number}"
        missing = [key for key in EQUIVALENT_KEYS if key not in entry]
        extra = sorted(set(entry) - set(EQUIVALENT_KEYS))
        if missing or extra:
            problems = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unknown {', '.join(extra)}"] if extra else []
            )
            raise UsageError(f"{where}: {'; '.join(problems)}")
        if not all(isinstance(entry[key], str) for key in EQUIVALENT_KEYS):
            raise UsageError(f"{where}: every field must be a string")
        if not entry["reason"].strip():
            raise UsageError(f"{where}: the reason is empty (say why no test can tell this mutant apart)")
        if not entry["evidence"].strip():
            raise UsageError(
                f"{where}: the evidence is empty (give the input that shows it equivalent, or why no input exists)"
            )
        equivalents.append(
            Equivalent(
                module=_normal_path(entry["module"]),
                function=entry["function"],
                operator=entry["operator"],
                line=_normal_text(entry["line"]),
                mutated=_normal_text(entry["mutated"]),
                reason=entry["reason"].strip(),
                evidence=entry["evidence"].strip(),
            )
        )
    return equivalents


def _normal_text(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


# --------------------------------------------------------------------------------------------
# running the mutants


@dataclass
class ModuleResult:
    module: str
    mutants: list[Mutant]
    outcomes: dict[int, str] = field(default_factory=dict)  # mutant number -> outcome
    unreached: set[int] = field(default_factory=set)  # mutants whose code no selected test runs
    tests: int = 0
    baseline_seconds: float = 0.0
    seconds: float = 0.0
    error: str | None = None
    details: dict[int, str] = field(default_factory=dict)  # mutant number -> why it was not applied
    skipped: list[str] = field(default_factory=list)  # code mutmut's engine never mutates (see not_mutated)


def not_mutated(path: Path) -> list[str]:
    """What mutmut's engine leaves alone in a module, said plainly rather than scored: decorated functions
    (pydantic validators, properties; ``staticmethod``/``classmethod`` alone are mutated) and the defaults of
    class-level fields. Tests must hold these some other way (property tests, exact defaults)."""
    found: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
                for item in node.body:
                    target = item.target if isinstance(item, ast.AnnAssign) and item.value is not None else None
                    if isinstance(target, ast.Name):
                        found.append(f"`{prefix}{node.name}.{target.id}` default (line {item.lineno})")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
                if node.decorator_list and not (
                    names <= {"staticmethod", "classmethod"} and len(names) == len(node.decorator_list)
                ):
                    found.append(f"`{prefix}{node.name}` (line {node.lineno}, decorated)")

    visit(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return found


def run_module(settings: Settings, module: str, mutants: list[Mutant], workers: int) -> ModuleResult:
    """Runs the module's mutants in a forked session process, so every module starts from a clean interpreter."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="parkbot-mutation-") as scratch:
        result_file = Path(scratch) / "result.json"
        _flush()
        pid = os.fork()
        if pid == 0:  # the session process
            code = 1
            try:
                session = _Session(settings, module, mutants, workers, Path(scratch))
                session.run()
                result_file.write_text(json.dumps(session.summary()), encoding="utf-8")
                code = 0
            except BaseException as exc:  # report anything, never a traceback from a forked process
                result_file.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), encoding="utf-8")
            finally:
                os._exit(code)
        try:
            _, status = os.waitpid(pid, 0)
        except KeyboardInterrupt as interrupt:
            if isinstance(interrupt, Terminated):
                os.kill(pid, signal.SIGTERM)  # Ctrl-C reaches the session itself; SIGTERM does not
            os.waitpid(pid, 0)  # the session stops its children before it ends
            raise
        result = ModuleResult(module=module, mutants=mutants)
        if not result_file.exists():
            result.error = f"the session process ended with status {os.waitstatus_to_exitcode(status)}"
            return result
        data = json.loads(result_file.read_text(encoding="utf-8"))
    result.error = data.get("error")
    result.outcomes = {int(k): v for k, v in data.get("outcomes", {}).items()}
    result.details = {int(k): v for k, v in data.get("details", {}).items()}
    result.unreached = set(data.get("unreached", []))
    result.tests = data.get("tests", 0)
    result.baseline_seconds = data.get("baseline_seconds", 0.0)
    result.seconds = time.monotonic() - started
    return result


def _flush() -> None:
    sys.stdout.flush()
    sys.stderr.flush()


class _Session:
    """One pytest session for one module: collect once, baseline once, then one forked child per mutant."""

    def __init__(self, settings: Settings, module: str, mutants: list[Mutant], workers: int, scratch: Path) -> None:
        self.settings = settings
        self.module = module
        self.mutants = mutants
        self.workers = workers
        self.scratch = scratch
        self.progress: TextIO = sys.stderr
        self.outcomes: dict[int, str] = {}
        self.details: dict[int, str] = {}
        self.unreached: set[int] = set()
        self.tests = 0
        self.baseline_seconds = 0.0
        self.error: str | None = None
        self.failed: str | None = None  # nodeid of the first failing report in this process
        self.durations: Counter[str] = Counter()

    def summary(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "outcomes": self.outcomes,
            "details": self.details,
            "unreached": sorted(self.unreached),
            "tests": self.tests,
            "baseline_seconds": self.baseline_seconds,
        }

    def run(self) -> None:
        import pytest

        root = self.settings.root
        os.chdir(root)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        args = [
            *self.settings.tests[self.module],
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-p",
            "no:randomly",
            "-p",
            "no:benchmark",  # pytest-benchmark, where installed, would write .benchmarks/ into the checkout
            "-q",
        ]
        if importlib.util.find_spec("hypothesis") is not None:
            # Same examples in the baseline and in every mutant, no example database written, no deadline
            # (a slowed-down mutant is not a detected one).
            from hypothesis import HealthCheck
            from hypothesis import settings as hypothesis_settings

            hypothesis_settings.register_profile(
                HYPOTHESIS_PROFILE,
                database=None,
                derandomize=True,
                deadline=None,
                print_blob=False,
                suppress_health_check=list(HealthCheck),  # the traced baseline is slower; no behaviour is lost
            )
            args.append(f"--hypothesis-profile={HYPOTHESIS_PROFILE}")
        log = self.scratch / "pytest.log"
        saved = os.dup(1), os.dup(2)
        self.progress = os.fdopen(os.dup(2), "w", encoding="utf-8")  # pytest's own output goes to the log
        with open(log, "w", encoding="utf-8") as sink:
            _flush()
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            try:
                exit_code = pytest.main(args, plugins=[_Plugin(self)])
            finally:
                _flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
        if self.error is None and (exit_code != 0 or len(self.outcomes) < len(self.mutants)):
            tail = "".join(log.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)[-15:])
            self.error = f"pytest {' '.join(args)} exited {int(exit_code)}:\n{tail}"

    # -- inside pytest_runtestloop --------------------------------------------------------------

    def loop(self, session: Any) -> None:
        if session.testsfailed:
            self.error = f"{session.testsfailed} error(s) while collecting {' '.join(self.settings.tests[self.module])}"
            return
        items = list(session.items)
        if not items:
            self.error = f"{' '.join(self.settings.tests[self.module])} collects no test"
            return
        self.tests = len(items)
        name = dotted_name(self.module, self.settings.source_root)
        target = importlib.import_module(name)
        if Path(target.__file__ or "").resolve() != (self.settings.root / self.module).resolve():
            self.error = f"importing {name} loads {target.__file__}, not {self.module}"
            return
        codes = _function_codes(target)
        self._say(f"{self.module}: {len(self.mutants)} mutants, {len(items)} tests, {self.workers} worker(s)\n")
        reached, failures = self._baseline(items, codes, target)
        if failures:
            self.error = f"the tests fail without any mutation: {', '.join(failures[:5])}"
            return
        by_id = {item.nodeid: item for item in items}
        order = {item.nodeid: index for index, item in enumerate(items)}
        queue: deque[tuple[Mutant, list[Any], float]] = deque()
        for mutant in self.mutants:
            if mutant.changes_defaults:  # evaluated when the function is defined: matters to every call
                runs = reached.get(mutant.function, set())
            else:  # a test that never runs the mutated lines behaves exactly as it did unmutated
                first, last = mutant.run_lines
                runs = set().union(*(reached.get(str(n), ()) for n in range(first, last + 1)))
            if not runs:
                self.outcomes[mutant.number] = SURVIVED
                self.unreached.add(mutant.number)
                continue
            # Quickest tests first, so most mutants die early (the suite already runs in any order under xdist).
            chosen = sorted(runs, key=lambda n: (self.durations[n], order[n]))
            expected = sum(self.durations[nodeid] for nodeid in chosen)
            timeout = self.settings.timeout_factor * expected + self.settings.timeout_seconds
            queue.append((mutant, [by_id[nodeid] for nodeid in chosen], timeout))
        self._run_mutants(queue, target)

    def _baseline(
        self, items: list[Any], codes: dict[types.CodeType, str], target: types.ModuleType
    ) -> tuple[dict[str, set[str]], list[str]]:
        """Runs every test once, unmutated, recording which test runs which line (and function) of the module.

        Returns the tests by line number (as a string) and by qualified function name, and the failures.
        """
        baseline_file = self.scratch / "baseline.json"
        filename = next(iter(codes)).co_filename if codes else str(target.__file__)
        started = time.monotonic()
        pid = self._fork()
        if pid == 0:
            reached: dict[str, set[str]] = {}
            current: list[str] = [""]
            failures: list[str] = []

            def in_module(frame: types.FrameType, event: str, arg: object) -> Any:
                if event == "line":
                    reached.setdefault(str(frame.f_lineno), set()).add(current[0])
                return in_module

            def trace(frame: types.FrameType, event: str, arg: object) -> Any:
                code = frame.f_code
                if code.co_filename != filename:
                    return None  # no line events outside the module
                function = codes.get(code)
                if function is not None:
                    reached.setdefault(function, set()).add(current[0])
                return in_module

            threading.settrace(trace)
            sys.settrace(trace)
            for index, item in enumerate(items):
                current[0] = item.nodeid
                self.failed = None
                nextitem = items[index + 1] if index + 1 < len(items) else None
                item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                if self.failed:
                    failures.append(self.failed)
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]
            data = {
                "reached": {key: sorted(nodeids) for key, nodeids in reached.items()},
                "durations": dict(self.durations),
                "failures": failures,
            }
            baseline_file.write_text(json.dumps(data), encoding="utf-8")
            os._exit(0)
        try:
            _, status = os.waitpid(pid, 0)
        except BaseException:
            _kill_group(pid)
            os.waitpid(pid, 0)
            raise
        shutil.rmtree(self.scratch / f"child-{pid}", ignore_errors=True)
        self.baseline_seconds = time.monotonic() - started
        if not baseline_file.exists():
            return {}, [f"(the baseline run ended with status {os.waitstatus_to_exitcode(status)})"]
        data = json.loads(baseline_file.read_text(encoding="utf-8"))
        self.durations = Counter(data["durations"])
        self._say(f"  baseline: {len(items)} tests in {self.baseline_seconds:.1f} s (traced)\n")
        return {key: set(nodeids) for key, nodeids in data["reached"].items()}, data["failures"]

    def _run_mutants(self, queue: deque[tuple[Mutant, list[Any], float]], target: types.ModuleType) -> None:
        running: dict[int, tuple[Mutant, float]] = {}  # pid -> (mutant, deadline)
        timed_out: set[int] = set()
        done = len(self.outcomes)
        step = max(1, len(self.mutants) // 10)
        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    mutant, chosen, timeout = queue.popleft()
                    pid = self._fork()
                    if pid == 0:
                        os._exit(self._child(mutant, chosen, target))
                    running[pid] = (mutant, time.monotonic() + timeout)
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    now = time.monotonic()
                    for child, (_, deadline) in running.items():
                        if now > deadline and child not in timed_out:
                            timed_out.add(child)
                            _kill_group(child)
                    time.sleep(0.002)
                    continue
                mutant, _ = running.pop(pid)
                shutil.rmtree(self.scratch / f"child-{pid}", ignore_errors=True)
                code = os.waitstatus_to_exitcode(status)
                if pid in timed_out:
                    timed_out.discard(pid)  # the number may be reused by a later child
                    outcome = TIMED_OUT
                elif code == CHILD_SURVIVED:
                    outcome = SURVIVED
                elif code == CHILD_NOT_APPLIED:
                    outcome = NOT_APPLIED
                    detail = self.scratch / f"not-applied-{mutant.number}"
                    self.details[mutant.number] = detail.read_text(encoding="utf-8") if detail.exists() else ""
                else:
                    outcome = KILLED  # a failing test, a broken pytest run or a crash: the change was noticed
                self.outcomes[mutant.number] = outcome
                done += 1
                if done % step == 0 or done == len(self.mutants):
                    tally = Counter(self.outcomes.values())
                    self._say(
                        f"  {self.module}: {done}/{len(self.mutants)} "
                        f"(killed {tally[KILLED]}, survived {tally[SURVIVED]}, timed out {tally[TIMED_OUT]})\n"
                    )
        finally:
            for pid in running:
                _kill_group(pid)
            for pid in running:
                os.waitpid(pid, 0)

    def _fork(self) -> int:
        _flush()
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)  # so a timeout can kill the test's own subprocesses too
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            scratch = self.scratch / f"child-{os.getpid()}"
            scratch.mkdir()
            # pytest's tmp_path and tempfile land in the child's own folder, removed when it ends.
            os.environ["PYTEST_DEBUG_TEMPROOT"] = str(scratch)
            os.environ["TMPDIR"] = str(scratch)
            tempfile.tempdir = str(scratch)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        else:
            with contextlib.suppress(PermissionError, ProcessLookupError):
                os.setpgid(pid, pid)  # also here, so a timeout never races the child's own call
        return pid

    def _child(self, mutant: Mutant, chosen: list[Any], target: types.ModuleType) -> int:
        try:
            _apply(mutant, target)
        except Exception as exc:
            (self.scratch / f"not-applied-{mutant.number}").write_text(f"{type(exc).__name__}: {exc}", encoding="utf-8")
            return CHILD_NOT_APPLIED
        try:
            self.failed = None
            for index, item in enumerate(chosen):
                nextitem = chosen[index + 1] if index + 1 < len(chosen) else None
                item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                if self.failed:
                    return CHILD_KILLED
        except BaseException:
            return CHILD_INTERNAL_ERROR
        return CHILD_SURVIVED

    def _say(self, text: str) -> None:
        self.progress.write(text)
        self.progress.flush()


class _Plugin:
    """The pytest side of a session: records failures and durations, and replaces the test loop."""

    def __init__(self, session: _Session) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.session.durations[report.nodeid] += report.duration
        if report.failed and self.session.failed is None:
            self.session.failed = report.nodeid

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        self.session.loop(session)
        return True


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _function_codes(module: types.ModuleType) -> dict[types.CodeType, str]:
    """The code object of each top-level function and method defined in the module, by qualified name."""
    filename = Path(module.__file__ or "").resolve()

    def own(value: object) -> types.FunctionType | None:
        function = value.__func__ if isinstance(value, staticmethod | classmethod) else value
        if isinstance(function, types.FunctionType) and Path(function.__code__.co_filename).resolve() == filename:
            return function
        return None

    codes: dict[types.CodeType, str] = {}
    for name, value in vars(module).items():
        function = own(value)
        if function is not None and function.__name__ == name:
            codes[function.__code__] = name
        elif isinstance(value, type) and value.__module__ == module.__name__ and value.__qualname__ == name:
            for member, attribute in vars(value).items():
                method = own(attribute)
                if method is not None and method.__name__ == member:
                    codes[method.__code__] = f"{name}.{member}"
    return codes


def _apply(mutant: Mutant, module: types.ModuleType) -> None:
    """Puts the mutated code into the live function object, so every reference to it runs the mutant."""
    owner_name, _, name = mutant.function.rpartition(".")
    namespace = vars(module) if not owner_name else vars(getattr(module, owner_name))
    value = namespace[name]
    live = value.__func__ if isinstance(value, staticmethod | classmethod) else value
    if not isinstance(live, types.FunctionType) or live.__code__.co_firstlineno != mutant.def_line:
        raise LookupError(f"{mutant.function} at line {mutant.def_line} is not the function found under that name")
    compiled = compile(mutant.source, live.__code__.co_filename, "exec", dont_inherit=True)
    scope = compiled
    if owner_name:
        scope = _code_named(compiled, owner_name, None)
    live.__code__ = _code_named(scope, name, mutant.def_line)
    if mutant.changes_defaults:
        # Defaults are evaluated when the function is defined: define the mutant once to get them.
        globals_copy = dict(vars(module))
        exec(compiled, globals_copy)
        defined = globals_copy[owner_name or name]
        new = vars(defined)[name] if owner_name else defined
        new = new.__func__ if isinstance(new, staticmethod | classmethod) else new
        live.__defaults__ = new.__defaults__
        live.__kwdefaults__ = new.__kwdefaults__


def _code_named(code: types.CodeType, name: str, first_line: int | None) -> types.CodeType:
    for constant in code.co_consts:
        if (
            isinstance(constant, types.CodeType)
            and constant.co_name == name
            and (first_line is None or constant.co_firstlineno == first_line)
        ):
            return constant
    raise LookupError(f"no code object {name!r} in the mutated module")


# --------------------------------------------------------------------------------------------
# the report


@dataclass
class Tally:
    mutants: int
    killed: int
    survived: int
    timed_out: int
    equivalent: int
    not_applied: int

    @property
    def detected(self) -> int:
        return self.killed + self.timed_out

    def score(self) -> str:
        return _percent(self.detected, self.mutants - self.not_applied)

    def score_without_equivalents(self) -> str:
        return _percent(self.detected, self.mutants - self.not_applied - self.equivalent)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


@dataclass
class Report:
    results: list[ModuleResult]
    equivalents: list[Equivalent]
    equivalents_file: Path
    functions: list[str] = field(default_factory=list)  # --function patterns: entries outside them are not checked

    def matched(self, result: ModuleResult, mutant: Mutant) -> Equivalent | None:
        if result.outcomes.get(mutant.number) != SURVIVED:
            return None
        return next((e for e in self.equivalents if e.matches(mutant)), None)

    def tally(self, result: ModuleResult) -> Tally:
        outcomes = [result.outcomes.get(m.number) for m in result.mutants]
        equivalent = sum(1 for m in result.mutants if self.matched(result, m))
        return Tally(
            mutants=len(result.mutants),
            killed=outcomes.count(KILLED),
            survived=outcomes.count(SURVIVED) - equivalent,
            timed_out=outcomes.count(TIMED_OUT),
            equivalent=equivalent,
            not_applied=outcomes.count(NOT_APPLIED),
        )

    def stale(self) -> list[Equivalent]:
        """Entries for a measured module that match none of its surviving mutants."""
        measured = {r.module: r for r in self.results if r.error is None}
        stale = []
        for entry in self.equivalents:
            result = measured.get(entry.module)
            if self.functions and not any(fnmatch.fnmatchcase(entry.function, p) for p in self.functions):
                continue
            if result is not None and not any(self.matched(result, m) is entry for m in result.mutants):
                stale.append(entry)
        return stale

    def render(self, toml: bool = False) -> str:
        out = [
            "| module | mutants | killed | survived | timed out | equivalent | score | score without equivalents "
            "| tests | run time |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        notes = []
        for result in self.results:
            if result.error is not None:
                out.append(f"| {result.module} | {len(result.mutants)} | not measured | | | | | | | |")
                notes.append(f"{result.module}: not measured: {result.error}")
                continue
            t = self.tally(result)
            out.append(
                f"| {result.module} | {t.mutants} | {t.killed} | {t.survived} | {t.timed_out} | {t.equivalent} "
                f"| {t.score()} | {t.score_without_equivalents()} | {result.tests} | {result.seconds:.0f} s |"
            )
            unreached = sum(1 for m in result.mutants if m.number in result.unreached and not self.matched(result, m))
            if unreached:
                notes.append(
                    f"{result.module}: {unreached} surviving mutant(s) are in code that no selected test runs."
                )
            if t.not_applied:
                notes.append(f"{result.module}: {t.not_applied} mutant(s) could not be applied (listed below).")
        out += ["", *notes] if notes else []

        survivors = [
            (r, m)
            for r in self.results
            for m in r.mutants
            if r.outcomes.get(m.number) == SURVIVED and not self.matched(r, m)
        ]
        out += ["", f"## Surviving mutants ({len(survivors)})"]
        for result, mutant in survivors:
            out += ["", self._heading(result, mutant), *self._diff(mutant)]
            if toml:
                out += ["", *_toml_entry(mutant)]

        equivalent = [(r, m, self.matched(r, m)) for r in self.results for m in r.mutants if self.matched(r, m)]
        out += ["", f"## Equivalent mutants, listed in {self.equivalents_file.name} ({len(equivalent)})"]
        for result, mutant, entry in equivalent:
            assert entry is not None
            out += [
                "",
                self._heading(result, mutant),
                f"reason: {entry.reason}",
                f"evidence: {entry.evidence}",
                *self._diff(mutant),
            ]

        timed_out = [(r, m) for r in self.results for m in r.mutants if r.outcomes.get(m.number) == TIMED_OUT]
        out += ["", f"## Timed out, counted as detected ({len(timed_out)})", ""]
        out += [f"- {m.location} in `{m.function}` [{m.operator}]: `{m.before}` -> `{m.after}`" for _, m in timed_out]

        not_applied = [(r, m) for r in self.results for m in r.mutants if r.outcomes.get(m.number) == NOT_APPLIED]
        if not_applied:
            out += ["", f"## Mutants that could not be applied ({len(not_applied)})"]
            for result, mutant in not_applied:
                out += ["", self._heading(result, mutant), result.details.get(mutant.number, ""), *self._diff(mutant)]

        skipped = [(r, item) for r in self.results for item in r.skipped]
        out += ["", f"## Not mutated: mutmut's engine skips decorated functions and field defaults ({len(skipped)})"]
        out += ["", *(f"- {r.module}: {item}" for r, item in skipped)] if skipped else []

        stale = self.stale()
        out += ["", f"## Stale entries in {self.equivalents_file.name} ({len(stale)})"]
        for entry in stale:
            out += [
                "",
                f"{entry.module} in `{entry.function}` [{entry.operator}]: no surviving mutant matches "
                "(killed now, changed or moved); update or remove the entry:",
                *(f"    {line}" for line in _toml_lines(entry)),
            ]
        return "\n".join(out) + "\n"

    @staticmethod
    def _heading(result: ModuleResult, mutant: Mutant) -> str:
        note = " (no selected test runs this code)" if mutant.number in result.unreached else ""
        return f"### {mutant.location} in `{mutant.function}` [{mutant.operator}]{note}"

    @staticmethod
    def _diff(mutant: Mutant) -> list[str]:
        return ["```diff", *mutant.diff.rstrip("\n").splitlines(), "```"]


def _toml_entry(mutant: Mutant) -> list[str]:
    fields = {
        "module": mutant.module,
        "function": mutant.function,
        "operator": mutant.operator,
        "line": mutant.before,
        "mutated": mutant.after,
        "reason": "",
        "evidence": "",
    }
    return ["```toml", "[[mutant]]", *(f"{key} = {_toml_string(value)}" for key, value in fields.items()), "```"]


def _toml_lines(entry: Equivalent) -> list[str]:
    return ["[[mutant]]", *(f"{key} = {_toml_string(getattr(entry, key))}" for key in EQUIVALENT_KEYS)]


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


# --------------------------------------------------------------------------------------------
# command line


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/mutation.py",
        description="Run a module's mutants (mutmut's engine) against the tests mapped to it in pyproject.toml.",
    )
    parser.add_argument(
        "modules", nargs="*", metavar="MODULE", help="a path (bot/parkbot/core/commands.py) or a dotted name"
    )
    parser.add_argument("--all", action="store_true", help="every module in [tool.parkbot.mutation.tests]")
    parser.add_argument(
        "--function",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only mutants in functions whose qualified name matches (fnmatch; repeatable)",
    )
    parser.add_argument("--workers", type=int, help="mutants run at once (default: the configured workers)")
    parser.add_argument("--toml", action="store_true", help="print each survivor as an equivalents entry")
    parser.add_argument("--root", type=Path, default=ROOT, help="project folder holding pyproject.toml")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    try:
        settings = load_settings(options.root.resolve())
        if options.workers is not None and options.workers < 1:
            raise UsageError("--workers must be at least 1")
        if not options.modules and not options.all:
            raise UsageError(f"name a module, or --all (mapped: {', '.join(sorted(settings.tests))})")
        modules = sorted(settings.tests) if options.all else [module_path(m, settings) for m in options.modules]
        for module in modules:
            if not (settings.root / module).is_file():
                raise UsageError(f"{module} does not exist: if it moved, update its key in {MAPPING}")
        equivalents = load_equivalents(settings.equivalents)
        generated = {}
        for module in dict.fromkeys(modules):
            mutants = generate_mutants(settings.root, module)
            if options.function:
                mutants = [m for m in mutants if any(fnmatch.fnmatchcase(m.function, p) for p in options.function)]
            generated[module] = mutants
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    workers = options.workers or settings.workers
    signal.signal(signal.SIGTERM, _terminate)
    try:
        results = [
            run_module(settings, module, mutants, workers) if mutants else ModuleResult(module=module, mutants=[])
            for module, mutants in generated.items()
        ]
        for result in results:
            result.skipped = not_mutated(settings.root / result.module)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    report = Report(results, equivalents, settings.equivalents, options.function)
    sys.stdout.write(report.render(toml=options.toml))
    failed = [r for r in results if r.error is not None]
    for result in failed:
        print(f"error: {result.module}: {result.error}", file=sys.stderr)
    return EXIT_USAGE if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
