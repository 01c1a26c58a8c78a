"""Start-up cost: each command imports only what it uses (which modules, not how long: no timings here).

benchmarks/startup.py measures the times; this pins the cause. ``parkbot --help`` needs click and
the command table only; ``gate``/``show``/``park`` on the embedded backlog never load the GitHub
client, the event handlers, the report, the dashboard or the MCP server, nor GitPython, tenacity,
or (without a configuration file) PyYAML.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.git_helpers import make_repo
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "needs_input.json"

PROBE = """\
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["parkbot", *json.loads(sys.argv[1])]
from parkbot.cli import main
main()
"""

#: Never needed by a local command on the embedded backlog.
NOT_FOR_GIT_COMMANDS = (
    "github",
    "requests",
    "urllib3",
    "parkbot.trackers.github",
    "parkbot.events",
    "parkbot.report",
    "parkbot.dashboard",
    "parkbot.actions_output",
    "parkbot.mcp_server",
    "mcp",
    "starlette",
    "jsonschema",
    "hypothesis",
    # The backlog finds its repository and talks to git through git's own helpers (GitPython is for
    # reading an agent's commit in the push handler), and retries a write with tenacity only once it lost a race.
    "git",
    "gitdb",
    "tenacity",
    # The git backlog verifies signatures only when answers must be signed; the local clone is read by
    # ``init`` and the GitHub backend; the planner's sources only when a planner asks.
    "parkbot.trackers.git.signatures",
    "parkbot.trackers.git.clone",
    "parkbot.trackers.git.sources",
    # The repository has no .github/parkbot.yml: there is no YAML to read.
    "yaml",
    "parkbot.core.strict_yaml",
    # Validators come from the prebuilt schemas (parkbot.core.prebuilt): no command generates a schema, so
    # none builds pydantic's plugin hook, which loads importlib.metadata to look plugins up.
    "pydantic.plugin._loader",
    "importlib.metadata",
    # Near-miss suggestions (a refused answer) and parallel signature checks (signed answers) only.
    "difflib",
    "concurrent.futures",
    # The models are defined on the light model layer (parkbot.core.modeling), which pydantic-core validates
    # from the prebuilt schemas: pydantic's model layer, and the typing helpers it loads, are never imported.
    "pydantic",
    "annotated_types",
    "typing_inspection",
    # Nor do they run pydantic-core's package, which describes core schemas to type checkers: the engine is
    # loaded without it (parkbot.core.engine).
    "pydantic_core.core_schema",
    # JSON Schemas come prebuilt, for the commands that print one.
    "parkbot.core.prebuilt_json_schemas",
)


def imported(args: list[str], cwd: Path) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("startup") / "repo"
    make_repo(root)
    subprocess.run([sys.executable, "-m", "parkbot", "park", str(EXAMPLE)], cwd=root, check=True, capture_output=True)
    return root


def test_help_loads_click_and_the_command_table_only(repo: Path) -> None:
    modules = imported(["--help"], repo)
    assert loaded(modules, ("pydantic", "git", "yaml", "github", "durationpy", "tenacity", "mcp")) == []
    assert loaded(modules, ("parkbot",)) == ["parkbot", "parkbot.cli"]


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--ref", "main"],
        ["show", "billing-42-decision-refund"],
        ["park", str(EXAMPLE)],
        ["list"],
        ["resume", "billing-42-decision-refund"],
    ],
)
def test_commands_on_the_embedded_backlog_load_no_github_events_report_or_mcp(repo: Path, args: list[str]) -> None:
    modules = imported(args, repo)
    assert "parkbot.trackers.git" in modules  # it did run against the backlog
    assert loaded(modules, NOT_FOR_GIT_COMMANDS) == []


#: Loaded only by the commands that need them, never by a command that only reads the backlog.
NOT_FOR_READ_COMMANDS = (
    # A new question's budget and its precedents (``park``).
    "parkbot.core.policy",
    "parkbot.core.questions",
    # Merging another copy of the backlog (``sync``).
    "parkbot.trackers.git.sync",
    # Writing an agent's result: the result models, their schemas and the filing of commits.
    "parkbot.core.models.results",
    "parkbot.core.models.prebuilt_results_schemas",
    "parkbot.core.filing",
    # The API's verbs that write, and their results: each verb loads its own module when called.
    "parkbot.api.acting",
    "parkbot.api.filing",
    "parkbot.api.planning",
    "parkbot.api.waiting",
    "parkbot.api.results.acts",
    # The lifecycle's acts that write (its package loads each name on first use), and what they return.
    "parkbot.core.lifecycle.parking",
    "parkbot.core.lifecycle.resolving",
    "parkbot.core.lifecycle.escalation",
    "parkbot.core.lifecycle.review",
    "parkbot.core.lifecycle.by_hand",
    "parkbot.core.lifecycle.possible",
    "parkbot.core.lifecycle.outcomes",
    # The planner's rules and sources (``list --awaiting`` loads them), an owner's act left as a comment, the
    # dashboard's index and figures (events), merging two answers (``sync``).
    "parkbot.core.planner",
    "parkbot.core.planner_sources",
    "parkbot.core.own_comments",
    "parkbot.core.dashboard_index",
    "parkbot.core.figures",
    "parkbot.core.merge",
    # Durations are read from an option or a setting that holds one (``wait --timeout``, ``list
    # --answered-since``); the capabilities only the event handlers and ``wait`` test for; a merge-queue
    # commit's gate (the ``merge_group`` event).
    "parkbot.core.durations",
    "parkbot.core.capabilities",
    "parkbot.core.lifecycle.queue",
    # The git backlog's writing side: its writes, what a change commits (and the git user's settings), the
    # editing of its files, the question log, packing.
    "parkbot.trackers.git.writes",
    "parkbot.trackers.git.change",
    "parkbot.trackers.git.edit",
    "parkbot.trackers.git.question_log",
    "parkbot.trackers.git.packing",
)


#: The commands that only read the backlog.
READ_COMMANDS = [
    ["gate", "--ref", "main"],
    ["show", "billing-42-decision-refund"],
    ["list"],
    ["resume", "billing-42-decision-refund"],
]


@pytest.mark.parametrize("args", READ_COMMANDS)
def test_reading_the_backlog_loads_no_temporary_files(repo: Path, args: list[str]) -> None:
    """A write hands git its content in scratch files (tempfile, and the shutil it loads); a read hands git
    nothing, and the errors of git's helpers go to a file in memory."""
    modules = imported(args, repo)
    assert "parkbot.trackers.git.process" in modules  # it did run git's helpers
    assert loaded(modules, ("tempfile", "shutil", "random")) == []
    # Paths are hashed with the interpreter's own SHA-256 (parkbot.trackers.git.layout): no OpenSSL binding.
    assert loaded(modules, ("hashlib", "_hashlib")) == []


@pytest.mark.parametrize("args", [*READ_COMMANDS, ["park", str(EXAMPLE)]])
def test_the_engines_missing_sentinel_is_made_without_typing_extensions(repo: Path, args: list[str]) -> None:
    """pydantic-core asks for ``MISSING`` when it first writes a value (``gate``, ``show``, ``park`` do); parkbot
    makes it as ``typing_extensions`` would (parkbot.core.engine), without loading that module."""
    modules = imported(args, repo)
    assert "parkbot.core.engine" in modules  # it did load the engine
    assert "typing_extensions" not in modules


@pytest.mark.parametrize("args", [*READ_COMMANDS, ["park"]])
def test_commands_define_no_dataclass_and_copy_nothing(repo: Path, tmp_path: Path, args: list[str]) -> None:
    """The value types every command defines (the tracker's, the actor, the list query, the backend) are
    ``NamedTuple``s or plain classes, not dataclasses, which compile their methods at import; a model is
    copied without ``copy``, and ``show`` reads a decision's fields without evaluating their annotations."""
    if args == ["park"]:
        fresh = tmp_path / "fresh.json"
        fresh.write_text(EXAMPLE.read_text(encoding="utf-8").replace("billing-42", "lean-9"), encoding="utf-8")
        args = ["park", str(fresh)]
    modules = imported(args, repo)
    assert "parkbot.core.tracker" in modules
    assert args[0] != "park" or "parkbot.core.lifecycle.parking" in modules  # it did file
    assert loaded(modules, ("dataclasses", "copy")) == []


@pytest.mark.parametrize("args", READ_COMMANDS)
def test_reading_compiles_no_pattern_for_names_or_blank_text(repo: Path, args: list[str]) -> None:
    """Names and non-blank text are checked as their published patterns read them (tests/core/test_identity.py),
    without compiling either: neither ``NAME_PATTERN`` nor the patterns themselves are in ``re``'s cache."""
    code = (
        "import atexit, re, sys\n"
        "def report():\n"
        "    from parkbot.core import identity\n"
        "    from parkbot.core.models import fields\n"
        "    cached = {key[1] for key in re._cache}\n"
        "    found = ['NAME_PATTERN' in vars(identity), identity.NAME_REGEX in cached]\n"
        "    found.append(fields.NOT_BLANK_REGEX in cached)\n"
        "    sys.__stderr__.write(f'COMPILED {found}\\n')\n"
        "atexit.register(report)\n"
        "sys.argv = ['parkbot', *sys.argv[1:]]\n"
        "from parkbot.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=repo, env=env)
    line = next(line for line in done.stderr.splitlines() if line.startswith("COMPILED "))
    assert line == "COMPILED [False, False, False]", done.stderr


def test_the_sentinel_is_made_when_the_engine_writes_and_not_before(repo: Path) -> None:
    """The other side of the pin above: ``gate`` writes a value, so the engine asked for ``MISSING`` and
    parkbot made it; ``list`` writes none and makes none."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.__stderr__.write("
        "'MADE ' + type(sys.modules['pydantic_core'].__dict__.get('MISSING')).__name__ + '\\n'))\n"
        "sys.argv = ['parkbot', *sys.argv[1:]]\n"
        "from parkbot.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    made = {}
    for args in (["gate", "--ref", "main"], ["list"]):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=repo, env=env)
        made[args[0]] = next(line for line in done.stderr.splitlines() if line.startswith("MADE ")).split()[1]
    assert made == {"gate": "_Sentinel", "list": "NoneType"}


#: What each read command loads of the API and the results beyond what they share, and nothing else of them.
READ_MODULES = {
    "gate": ["parkbot.api.reading", "parkbot.api.results.gate", "parkbot.core.lifecycle.gates"],
    "show": ["parkbot.api.reading", "parkbot.api.results.decisions", "parkbot.core.lifecycle.waiting"],
    "list": ["parkbot.api.listing", "parkbot.api.results.decisions", "parkbot.core.listing"],
    "resume": ["parkbot.api.reading", "parkbot.api.results.resume", "parkbot.core.lifecycle.waiting"],
}


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--ref", "main"],
        ["show", "billing-42-decision-refund"],
        ["list"],
        ["list", "--state", "all", "--json"],
        ["resume", "billing-42-decision-refund"],
    ],
)
def test_reading_the_backlog_loads_no_park_or_sync_code(repo: Path, args: list[str]) -> None:
    modules = imported(args, repo)
    assert "parkbot.trackers.git.view" in modules  # it did read the backlog
    assert loaded(modules, NOT_FOR_READ_COMMANDS) == []


@pytest.mark.parametrize("args", READ_COMMANDS)
def test_each_read_command_loads_the_api_and_results_of_its_own_verb_only(repo: Path, args: list[str]) -> None:
    """``gate`` defines no decision view and ``show`` no gate report: of the API, the result models and the
    lifecycle, each command loads its own verb's modules (and the shared ones) and no other."""
    modules = imported(args, repo)
    own = READ_MODULES[args[0]]
    verbs = sorted({m for ms in READ_MODULES.values() for m in ms})
    assert [m for m in verbs if m in modules] == sorted(own)
    results = loaded(modules, ("parkbot.api.results",))
    assert [m for m in results if not m.startswith("parkbot.api.results.prebuilt_")] == sorted(
        ["parkbot.api.results", "parkbot.api.results.base", *[m for m in own if m.startswith("parkbot.api.results.")]]
    )
    lifecycle = loaded(modules, ("parkbot.core.lifecycle",))
    assert set(lifecycle) <= {"parkbot.core.lifecycle", "parkbot.core.lifecycle.reading", *own}


def test_park_loads_neither_the_planner_nor_the_dashboard_nor_the_acts_of_an_owner(repo: Path, tmp_path: Path) -> None:
    """A new decision is filed by the lifecycle's park; the planner (when none is configured), the dashboard's
    index and figures (events only), and an owner's acts stay unloaded, and so does pydantic's plugin lookup."""
    fresh = tmp_path / "fresh.json"
    fresh.write_text(EXAMPLE.read_text(encoding="utf-8").replace("billing-42", "trim-5"), encoding="utf-8")
    modules = imported(["park", str(fresh)], repo)
    assert "parkbot.core.lifecycle.parking" in modules  # it did file
    never = (
        "parkbot.core.planner",
        "parkbot.core.own_comments",
        "parkbot.core.dashboard_index",
        "parkbot.core.figures",
        "parkbot.api.acting",
        "parkbot.api.planning",
        "parkbot.api.results.decisions",
        "parkbot.core.lifecycle.by_hand",
        "parkbot.core.lifecycle.escalation",
        "parkbot.core.lifecycle.review",
        "importlib.metadata",
        # A new question without a precedent to apply runs no resolution step; it reads no duration, tests
        # for no capability of the event handlers, and gates no merge-queue commit.
        "parkbot.core.lifecycle.resolving",
        "parkbot.core.durations",
        "parkbot.core.capabilities",
        "parkbot.core.lifecycle.queue",
    )
    assert loaded(modules, never) == []


def test_park_and_sync_do_load_what_the_read_commands_leave_out(repo: Path, tmp_path: Path) -> None:
    """The other side of the pin above: the modules left out are the ones these commands run."""
    fresh = tmp_path / "fresh.json"
    fresh.write_text(EXAMPLE.read_text(encoding="utf-8").replace("billing-42", "policy-3"), encoding="utf-8")
    parked = imported(["park", str(fresh)], repo)
    assert loaded(parked, ("parkbot.core.policy",)) == ["parkbot.core.policy"]
    assert {"parkbot.trackers.git.writes", "parkbot.trackers.git.change", "parkbot.trackers.git.edit"} <= parked
    # Its scratch files are a folder in the git directory, made and removed without tempfile or shutil.
    assert loaded(parked, ("tempfile", "shutil")) == []
    assert not (repo / ".git" / "parkbot-scratch").exists()
    assert "parkbot.core.durations" in imported(["list", "--answered-since", "30d"], repo)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=repo, check=True)
    try:
        assert "parkbot.trackers.git.sync" in imported(["sync"], repo)
    finally:
        subprocess.run(["git", "remote", "remove", "origin"], cwd=repo, check=True)


def test_reading_the_backlog_builds_no_validator_for_the_question_log(repo: Path) -> None:
    """Validators for files a command does not read are not built at import: gate reads no log."""
    code = (
        "from parkbot.cli import cli; import sys;\n"
        "sys.argv = ['parkbot', 'gate', '--ref', 'main']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "from parkbot.trackers.git import view\n"
        "print(view._log_lines.cache_info().currsize)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env, check=True)
    assert done.stdout.split()[-1] == "0"


@pytest.mark.parametrize("args", [["gate", "--ref", "main"], ["list"]])
def test_loading_pauses_the_garbage_collector_and_then_resumes_it(repo: Path, args: list[str]) -> None:
    """What loading made is frozen out of later passes, and collection is on again for the command's own
    work: a long-running command (``wait``, ``mcp``) must not run without a collector."""
    code = (
        "import atexit, gc, json, sys\n"
        "atexit.register(lambda: sys.__stderr__.write(f'GC {gc.isenabled()} {gc.get_freeze_count()}\\n'))\n"
        f"sys.argv = ['parkbot', *{args!r}]\n"
        "from parkbot.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env, check=False)
    assert done.returncode == 0, done.stderr
    _, enabled, frozen = next(line for line in done.stderr.splitlines() if line.startswith("GC ")).split()
    assert enabled == "True"
    assert int(frozen) > 10_000  # the modules, classes and validators loaded


def test_a_park_that_writes_loads_neither_gitpython_nor_tenacity(repo: Path, tmp_path: Path) -> None:
    """A new decision is a commit on the backlog ref: written by git's helpers, retried only if a race was lost."""
    fresh = tmp_path / "fresh.json"
    fresh.write_text(EXAMPLE.read_text(encoding="utf-8").replace("billing-42", "startup-7"), encoding="utf-8")
    before = subprocess.run(["git", "rev-parse", "refs/parkbot/backlog"], cwd=repo, capture_output=True, text=True)
    modules = imported(["park", str(fresh)], repo)
    after = subprocess.run(["git", "rev-parse", "refs/parkbot/backlog"], cwd=repo, capture_output=True, text=True)
    assert after.stdout != before.stdout  # it did write
    assert loaded(modules, ("git", "gitdb", "tenacity")) == []


def test_signed_answers_load_the_signature_checks(tmp_path: Path) -> None:
    """The other side of leaving them out: with ``answers.require_signed``, reading verifies signatures."""
    checkout = tmp_path / "signed"
    make_repo(checkout)
    (checkout / ".github").mkdir()
    config = "owners:\n  default: alice@example.com\nanswers:\n  require_signed: true\n"
    (checkout / ".github" / "parkbot.yml").write_text(config, encoding="utf-8")
    modules = imported(["list"], checkout)
    assert "parkbot.trackers.git.signatures" in modules


def test_a_configuration_file_is_read_with_pyyaml(repo: Path, tmp_path: Path) -> None:
    """The other side of not loading PyYAML without a file: with one, it is read (and its settings apply)."""
    checkout = tmp_path / "configured"
    make_repo(checkout)
    (checkout / ".github").mkdir()
    (checkout / ".github" / "parkbot.yml").write_text("backlog_ref: refs/parkbot/other\n", encoding="utf-8")
    modules = imported(["park", str(EXAMPLE)], checkout)
    assert loaded(modules, ("yaml", "parkbot.core.strict_yaml")) != []
    # PyYAML's loading side only: its package's __init__, dumping side and C extension are never loaded.
    assert loaded(modules, ("yaml.emitter", "yaml.dumper", "yaml.representer", "yaml.cyaml", "_yaml")) == []
    listed = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)", "refs/parkbot/"], cwd=checkout, capture_output=True, text=True
    )
    assert listed.stdout.split() == ["refs/parkbot/other"]


def test_a_configuration_file_is_read_without_pyyamls_reader(tmp_path: Path) -> None:
    """PyYAML's reader compiles, at import, a pattern costing a third of what a configuration file may add to
    a command's start: parkbot reads the (already decoded) text with its own (parkbot.core.strict_yaml), so neither that
    module nor PyYAML's loaders, which import it, are loaded: not to read a file, not to refuse one."""
    checkout = tmp_path / "configured"
    make_repo(checkout)
    (checkout / ".github").mkdir()
    (checkout / ".github" / "parkbot.yml").write_text("owners:\n  default: bench@example.com\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "parkbot", "park", str(EXAMPLE)], cwd=checkout, check=True, capture_output=True
    )
    refused = tmp_path / "refused.yml"
    refused.write_text("owners:\n  default: a\x07b\n", encoding="utf-8")
    for args in (["gate", "--ref", "main"], ["config", "check", str(refused)]):
        modules = imported(args, checkout)
        assert "parkbot.core.strict_yaml" in modules  # it did read a configuration
        assert loaded(modules, ("yaml.reader", "yaml.loader")) == []


def test_a_command_loads_its_own_module_and_no_other_command_module(repo: Path) -> None:
    modules = imported(["gate", "--ref", "main"], repo)
    commands = loaded(modules, ("parkbot.cli",))
    assert commands == [
        "parkbot.cli",
        "parkbot.cli.common",
        "parkbot.cli.core",
        "parkbot.cli.messages",
        "parkbot.cli.params",
    ]


def test_the_schema_is_built_only_when_a_result_is_read(repo: Path) -> None:
    """Models build their validators on first use: gate reads no agent result."""
    code = (
        "from parkbot.cli import cli; import sys;\n"
        "sys.argv = ['parkbot', 'gate', '--ref', 'main']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "from parkbot.core import models\n"
        "print(type(models.NeedsInput.__dict__['__pydantic_validator__']).__name__,"
        " models.results._result_validator.cache_info().currsize)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env, check=True)
    assert done.stdout.split()[-2:] == ["_Lazy", "0"]


def test_the_startup_benchmark_still_runs(tmp_path: Path) -> None:
    """A tiny run of benchmarks/startup.py (its numbers mean nothing here; the real run is by hand)."""
    bench = load_script(ROOT / "benchmarks" / "startup.py", "parkbot_benchmark_startup")
    here = bench.Environment.current()  # not a fresh install: the real run builds one
    text = bench.run(rounds=1, size=3, samples=2, waits=1, root=tmp_path, env=here, list_size=3)
    assert "| `parkbot gate --ref agent/billing-42` |" in text
    assert "| `parkbot list (3 decisions), with .github/parkbot.yml` |" in text
    assert "| `pytest --version` |" in text
    assert "| backlog of 3 decisions |" in text
    assert "| 1 runs |" in text
    assert list(tmp_path.iterdir()) == []  # the temporary repositories are gone


@pytest.mark.parametrize("args", [["gate", "--ref", "main"], ["--help"]])
def test_a_command_leaves_the_environment_as_the_user_set_it(repo: Path, args: list[str]) -> None:
    """Nothing is switched off for speed behind the user's back: the git processes a command starts, an
    agent's hooks and the pydantic plugins a user installed see the environment the user gave it."""
    code = (
        "import atexit, json, os, sys\n"
        "atexit.register(lambda: sys.__stderr__.write('ENV ' + json.dumps(dict(os.environ)) + '\\n'))\n"
        f"sys.argv = ['parkbot', *{args!r}]\n"
        "from parkbot.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(next(line for line in done.stderr.splitlines() if line.startswith("ENV ")).removeprefix("ENV "))
    assert seen == env


def test_a_park_writes_its_objects_without_starting_hash_object(repo: Path, tmp_path: Path) -> None:
    """The new blobs, trees and commit are loose objects parkbot writes itself: a park starts git to find the
    repository, read its settings, move the ref and look at the gated branch, and to read what is packed."""
    fresh = tmp_path / "fresh.json"
    fresh.write_text(EXAMPLE.read_text(encoding="utf-8").replace("billing-42", "objects-9"), encoding="utf-8")
    trace = tmp_path / "trace.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot"), "GIT_TRACE": str(trace)}
    done = subprocess.run(
        [sys.executable, "-m", "parkbot", "park", str(fresh)], cwd=repo, env=env, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    started = [
        line.split("built-in: git ", 1)[1].split()[0]
        for line in trace.read_text().splitlines()
        if "built-in: git " in line
    ]
    assert "hash-object" not in started
    assert [name for name in started if name != "cat-file"] == ["rev-parse", "config", "update-ref", "rev-parse"]
