"""What ``parkbot serve`` costs, measured on this machine: ``python benchmarks/serve.py``.

Everything runs for real on loopback: ``parkbot serve`` processes (uvicorn), the stateful fake GitHub behind
an HTTP server (GitHub's rules, OpenAPI-checked), this script as GitHub's webhook sender, and a PostgreSQL
started with ``initdb``/``pg_ctl`` for the two-instance figure. It prints one Markdown table:

* acknowledgement: each delivery's round trip (signed POST to 202) under a burst of ``--burst`` deliveries
  sent 16 at a time, while the workers handle them;
* ``/decide`` to a green check: from sending the owner's comment to the pull request's ``parkbot/decisions``
  check reading success at the fake, over ``--decides`` decisions;
* installation tokens minted, against deliveries handled;
* exactly once: the same delivery sent to two instances on one PostgreSQL at once, ``--trials`` times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from parkbot.core import lifecycle  # noqa: E402
from parkbot.core.config import parse_config  # noqa: E402
from tests.support.events import comment_event, pr_event, webhook, with_repository  # noqa: E402
from tests.support.github_helpers import gate_of, make_tracker, needs_input  # noqa: E402
from tests.support.postgres import Postgres, why_not  # noqa: E402
from tests.support.serve import FakeGitHubServer, ServeProcess, wait_for  # noqa: E402

CONFIG_TEXT = "owners: {default: alice}\nprecedents: 'off'\n"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def with_installation(github: FakeGitHubServer, payload: dict[str, Any]) -> dict[str, Any]:
    assert github.fake.app is not None
    payload["installation"] = {"id": github.fake.app.installation_id, "node_id": "MDIz"}
    return payload


def acknowledgements(github: FakeGitHubServer, server: ServeProcess, burst: int) -> list[float]:
    """Round trips of ``burst`` signed deliveries sent 16 at a time (comments the workers then look at)."""
    with github.locked() as fake:
        payload = with_installation(github, with_repository(webhook("issue_comment.created"), fake))

    def send(n: int) -> float:
        started = time.perf_counter()
        answer = server.deliver("issue_comment", payload, delivery=f"burst-{n}")
        assert answer.status_code == 202, answer.text
        return time.perf_counter() - started

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(send, range(burst)))


def decide_to_green(github: FakeGitHubServer, server: ServeProcess, decides: int) -> list[float]:
    """Seconds from sending ``/decide`` to the dependent pull request's check reading success."""
    config = parse_config(CONFIG_TEXT)
    out = []
    for n in range(decides):
        outcome = lifecycle.park(make_tracker(github.fake), needs_input(origin=f"billing-{n}"), config)
        number = outcome.location.number
        assert number is not None
        with github.locked() as fake:
            pull = fake.add_pull(title=f"Refund {n}", body=f"Depends on #{number}", head_ref=f"refund-{n}")
            opened = with_installation(github, pr_event(fake, pull.number))
        sha = pull.pull.head_sha if pull.pull else ""
        server.deliver("pull_request", opened)
        wait_for(lambda s=sha: _state(github, s) == "pending", what="the pending check")
        with github.locked() as fake:
            decide = with_installation(github, comment_event(fake, number, "/decide full_original"))
        started = time.perf_counter()
        server.deliver("issue_comment", decide)
        wait_for(lambda s=sha: _state(github, s) == "success", timeout=60, what="the green check")
        out.append(time.perf_counter() - started)
    return out


def _state(github: FakeGitHubServer, sha: str) -> str | None:
    with github.locked() as fake:
        gate = gate_of(fake, sha)
        return gate.state if gate else None


def exactly_once(trials: int, root: Path) -> tuple[int, int] | str:
    """(handled exactly once, trials) with two instances on one PostgreSQL, or why it was not measured."""
    why = why_not()
    if why is not None:
        return why
    import psycopg

    postgres = Postgres().start()
    try:
        with FakeGitHubServer() as github:
            github.fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
            with ServeProcess(github, postgres.url) as one, ServeProcess(github, postgres.url) as two:
                payload = with_installation(github, {"zen": "Design for failure.", "hook_id": 1})
                with ThreadPoolExecutor(2) as pool:
                    for n in range(trials):
                        answers = list(
                            pool.map(lambda s, n=n: s.deliver("ping", payload, delivery=f"both-{n}"), (one, two))
                        )
                        assert [a.status_code for a in answers] == [202, 202]

                def counts() -> list[tuple[str, int, int]]:
                    with psycopg.connect(postgres.url) as db:
                        return db.execute(
                            "SELECT args->>'delivery', count(*), sum(attempts) FROM procrastinate_jobs "
                            "WHERE status = 'succeeded' GROUP BY 1"
                        ).fetchall()

                wait_for(lambda: len(counts()) == trials, timeout=120, what="every trial handled")
                return sum(1 for _, jobs, attempts in counts() if jobs == 1 and attempts == 1), trials
    finally:
        postgres.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--decides", type=int, default=20)
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parkbot-serve-bench-") as folder:
        root = Path(folder)
        with FakeGitHubServer() as github:
            github.fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
            with ServeProcess(github, f"sqlite:///{root / 'queue.db'}") as server:
                acks = acknowledgements(github, server, args.burst)
                greens = decide_to_green(github, server, args.decides)
                status = server.status()
            minted = len(github.fake.app.minted) if github.fake.app else 0
        once = exactly_once(args.trials, root)
    rows = [
        (
            "acknowledgement p95 (burst)",
            "< 100 ms",
            f"{p95(acks) * 1000:.0f} ms (p50 {statistics.median(acks) * 1000:.0f} ms, "
            f"max {max(acks) * 1000:.0f} ms, {len(acks)} deliveries)",
        ),
        (
            "`/decide` to green check p95",
            "< 2 s",
            f"{p95(greens):.2f} s (p50 {statistics.median(greens):.2f} s, {len(greens)} decisions)",
        ),
        (
            "installation tokens minted",
            "one per installation per hour",
            f"{minted} for {status['counts']['done']} deliveries handled",
        ),
        (
            "exactly once, two instances on PostgreSQL",
            "every trial",
            f"{once[0]}/{once[1]} trials" if isinstance(once, tuple) else f"not measured: {once}",
        ),
    ]
    print("| figure | target | measured |")
    print("| --- | --- | --- |")
    for name, target, measured in rows:
        print(f"| {name} | {target} | {measured} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
