"""The request-count benchmark runs, and what a user pays stays what docs/github.md says it is.

Counts, never times: each operation runs as the ``parkbot`` command (or ``handle-event``) against the fake,
with 10 and with 120 other decisions (more than one page of 100, so growth would show).
"""

from __future__ import annotations

import pytest

from benchmarks import github_requests as bench

SIZES = (10, 120)

#: What a user pays with the default configuration (see the module docstring of benchmarks/github_requests.py).
USER_PAYS = {
    # the config, the label claim, the origin's index (a decision whose label was deleted), the per-origin
    # budget, the two precedent labels, create
    "park new": 7,
    "park new, with a run id": 8,  # + the per-run budget
    "park new, from a push": 10,  # + the branch's open pull requests, the dashboard (read, edit)
    "park unchanged": 3,
    "park updated": 4,
    "gate, k=1": 5,  # the config + the pull, its native dependencies, its commits (GraphQL), the check run
    "gate, k=3": 5,
    "gate, k=5": 5,
    "gate, k=1, on a new commit": 5,
    # the config, who the token belongs to, one GraphQL read (issue, comments, authorship), record, clear, close
    "resolve, k=0": 4,  # the config, who the token is, the decision, the owner's /decide comment
    "resolve, k=1": 5,  # + each dependent's pull request (its author never answers); the workflow records it
    "resolve, k=3": 7,
    "resolve from a `/decide` comment, k=0": 9,  # + the commented issue (GraphQL, with the dashboard), 👀 and 👍
    # + per dependent: the pull requests and the branches at its head (per commit)
    "resolve from a `/decide` comment, k=1": 14,
    "resolve from a `/decide` comment, k=3": 24,
    "wait, first poll": 3,  # the config, the conditional listing, and the decision read with its authorship
}


@pytest.fixture(scope="module")
def user_rows() -> list[bench.UserRow]:
    return bench.user_rows(SIZES)


def test_what_a_user_pays(user_rows: list[bench.UserRow]) -> None:
    paid = {row.operation: row.large for row in user_rows if row.operation in USER_PAYS}
    assert paid == USER_PAYS


def test_only_the_reconcile_grows_with_the_backlog(user_rows: list[bench.UserRow]) -> None:
    assert [row.operation for row in user_rows if row.grows] == ["scheduled reconcile"]
    (reconcile,) = [row for row in user_rows if row.operation == "scheduled reconcile"]
    assert reconcile.small < reconcile.large


def test_writes_are_counted(user_rows: list[bench.UserRow]) -> None:
    writes = {row.operation: row.writes for row in user_rows}
    assert writes["park new"] == 2  # the label, the issue
    assert writes["wait, first poll"] == 0
    assert writes["resolve from a `/decide` comment, k=1"] == 8  # incl. 2 reactions and the dashboard edit
    assert writes["scheduled reconcile"] == 1  # GraphQL queries are POSTs, but reads


def test_the_user_table_prints(user_rows: list[bench.UserRow]) -> None:
    table = bench.user_table(user_rows, SIZES).splitlines()
    assert table[0].startswith("| operation | runs as | requests, 10 decisions | requests, 120 decisions |")
    assert "| park new | `parkbot park` | 7 | 7 | 2 |  |" in table
    assert any(line.startswith("| scheduled reconcile |") and "(grows)" in line for line in table)


def test_the_tracker_operations_do_not_grow() -> None:
    rows = bench.tracker_rows(SIZES)
    assert [row.operation for row in rows if "GROWS" in row.note] == []
    counts = {row.operation: row.requests for row in rows}
    assert counts["park new"] == 4
    assert counts["park new, precedents suggest"] == 6
    assert counts["gate, k=1 (linked at park)"] == 4
    assert counts["resolve, k=0"] == 4  # one GraphQL read: the issue, its comments, who wrote each, parkbot's login
    assert counts["resolve, k=3"] == 4 + 3 * 5  # per dependent: + the pull requests and branches at its head commit
    wait = next(row for row in rows if row.operation.startswith("wait:"))
    assert wait.requests == 11  # 10 polls, and one GraphQL read of the decision after the first (changed) one
    assert "rate limit used: 1 " in wait.note
