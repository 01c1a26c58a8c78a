"""``push`` in ``parkbot serve``: there is no checkout, so the pushed commit is read through the API.

The user's action: an agent pushes its branch with a ``needs_input`` result file, GitHub delivers the push to a
real ``parkbot serve`` process, and the decision is filed and the branch's check set, as the action does from a
checkout. The API reader (:class:`parkbot.trackers.github.ApiCommitReader`) is also checked on its own against
the fake: it gives the filing rules exactly what the git adapter's ``read_filed`` gives for the same commit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from parkbot.core.errors import InvalidInput
from parkbot.core.filing import parse_filed
from parkbot.trackers.git import read_filed
from parkbot.trackers.github import ApiCommitReader
from tests.support.events import AGENT, commit, push_event, result_json
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import DID, gate_of, make_tracker
from tests.support.serve import CONFIG_TEXT, FakeGitHubServer, ServeProcess, installation, wait_for

DECISIONS = ".parkbot/decisions"
INVENTORY = ".parkbot/inventory.json"


def reader(fake: FakeGitHub) -> ApiCommitReader:
    return ApiCommitReader(make_tracker(fake).client)


def pushed(fake: FakeGitHub, files: dict[str, str], sha: str = "a" * 40) -> str:
    """A commit on the agent branch holding ``files``, as GitHub would know it after the push."""
    fake.add_commit(sha, "agent work", branch=AGENT)
    for path, text in files.items():
        fake.put_file(path, text, ref=sha)
    return sha


# --- the API reader, against the fake --------------------------------------------------------------------


def test_the_api_reader_gives_the_filing_what_the_git_reader_gives(fake: FakeGitHub, tmp_path: Path) -> None:
    files = {
        f"{DECISIONS}/refund.json": result_json(),
        f"{DECISIONS}/nested/shipping.json": result_json(key="shipping", title="Shipping"),
        f"{DECISIONS}/notes.txt": "not a result file\n",
        f"{DECISIONS}/broken.json": '{"status": "needs_input", ',  # by hand: a file cut short, not a result
        INVENTORY: json.dumps({"origin": "billing-42", "decisions": ["refund", "shipping"]}),
        "src/work.py": "print('done')\n",
    }
    checkout = make_repo(tmp_path / "checkout")
    sha = commit(tmp_path / "checkout", AGENT, dict(files))
    on_git = read_filed(checkout, sha, results_folder=DECISIONS, inventory_path=INVENTORY, fetch=False)
    checkout.close()

    on_api = reader(fake)(pushed(fake, files, sha), results_folder=DECISIONS, inventory_path=INVENTORY)

    assert on_api == on_git  # same commit, same bytes (decoded from base64), same order, same shape
    assert [path for path, _ in on_api.results] == [
        f"{DECISIONS}/broken.json",
        f"{DECISIONS}/nested/shipping.json",
        f"{DECISIONS}/refund.json",
    ]
    assert on_api.results[2][1] == files[f"{DECISIONS}/refund.json"].encode()
    parsed = parse_filed(on_api)
    # A damaged JSON file is reported as a problem with that file, as on git; the others are read.
    assert [path for path, _ in parsed.errors] == [f"{DECISIONS}/broken.json"]
    assert "is not valid JSON" in parsed.errors[0][1]
    assert len(parsed.results) == 2
    assert parsed.inventory is not None


def test_a_commit_without_the_folder_files_nothing(fake: FakeGitHub) -> None:
    sha = pushed(fake, {"src/work.py": "print('done')\n"})
    filed = reader(fake)(sha, results_folder=DECISIONS, inventory_path=INVENTORY)
    assert (filed.sha, filed.results, filed.inventory, filed.errors) == (sha, (), None, ())
    assert parse_filed(filed).empty  # so on an agent branch the gate fails: silence is not "no questions"


def test_a_truncated_tree_is_a_problem_not_a_silent_skip(fake: FakeGitHub) -> None:
    sha = pushed(fake, {f"{DECISIONS}/refund.json": result_json()})
    fake.truncate_trees = True
    filed = reader(fake)(sha, results_folder=DECISIONS, inventory_path=INVENTORY)
    assert [path for path, _ in filed.errors] == [DECISIONS]
    assert "truncated" in filed.errors[0][1]


def test_a_commit_github_does_not_know_is_bad_input(fake: FakeGitHub) -> None:
    with pytest.raises(InvalidInput, match="read commit"):
        reader(fake)("b" * 40, results_folder=DECISIONS, inventory_path=INVENTORY)


def test_a_configured_path_leaving_the_repository_is_refused(fake: FakeGitHub) -> None:
    sha = pushed(fake, {})
    with pytest.raises(InvalidInput, match=r"may not contain '\.\.'"):
        reader(fake)(sha, results_folder="../elsewhere", inventory_path=INVENTORY)


# --- a real parkbot serve process ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app_key() -> tuple[str, object]:
    from tests.support.fakegithub.app import generate_key

    return generate_key()


@pytest.fixture
def github(app_key: tuple[str, object]) -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer(key=app_key) as server:  # type: ignore[arg-type]
        server.fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
        yield server
    server.fake.assert_no_violations()


def test_a_pushed_needs_input_is_filed_and_blocks_the_branch(github: FakeGitHubServer, tmp_path: Path) -> None:
    with github.locked() as fake:
        sha = "c" * 40
        payload = installation(github, push_event(fake, AGENT, sha))
        fake.put_file(f"{DECISIONS}/refund.json", result_json(), ref=sha)
        pull = fake.add_pull(title="Agent work", head_ref=AGENT, head_sha=sha, body="")
    with ServeProcess(github, f"sqlite:///{tmp_path / 'queue.db'}") as server:
        assert server.deliver("push", payload).status_code == 202
        wait_for(lambda: _gate(github, sha) == "pending", what="the pushed commit's pending check")
        log = server.read_log()
    assert "handled by the action" not in log
    decision = make_tracker(github.fake).find(DID)  # over HTTP: the fake is not locked here
    assert decision is not None  # the decision issue was created from the pushed file
    assert decision.work_so_far == {"verified": ["A-4471"]}
    assert f"branch:{AGENT}" in decision.dependents
    with github.locked() as fake:
        assert f"decision:{DID}" in fake.issues[pull.number].labels
        read = [r.path for r in fake.requests if r.method == "GET"]
    assert any(p.endswith(f"/git/trees/{sha}") for p in read)
    assert any(p.endswith(f"/commits/{sha}") for p in read)


def test_a_push_with_nothing_filed_fails_the_agent_branchs_check(github: FakeGitHubServer, tmp_path: Path) -> None:
    with github.locked() as fake:
        sha = "d" * 40
        payload = installation(github, push_event(fake, AGENT, sha))
        fake.put_file("src/work.py", "print('done')\n", ref=sha)
    with ServeProcess(github, f"sqlite:///{tmp_path / 'queue.db'}") as server:
        assert server.deliver("push", payload).status_code == 202
        wait_for(lambda: _gate(github, sha) == "failure", what="the failed check")
    with github.locked() as fake:
        gate = gate_of(fake, sha)
        assert gate is not None
        assert "no inventory" in gate.description
        assert not [i for i in fake.issues.values() if i.pull is None and "decision" in " ".join(i.labels)]


def _gate(github: FakeGitHubServer, sha: str) -> str | None:
    with github.locked() as fake:
        gate = gate_of(fake, sha)
        return gate.state if gate else None
