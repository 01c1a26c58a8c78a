"""What the event tests share: webhook fixtures adapted to the fake, events to send, and the runners.

The payloads are the trimmed, documented GitHub webhook examples in ``tests/webhooks/`` (see its
``regenerate.py``); a test loads one, then points it at the fake's repository, issue numbers, labels
and shas, so the shape under test is always the real one.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from parkbot.backends import Backend
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.events import EventOutcome, handle_event
from parkbot.events.commands import handle_comment
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.access import is_bot_login
from tests.support import results
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import run_git
from tests.support.github_helpers import CONFIG, NOW, TOKEN, make_tracker, needs_input

WEBHOOKS = Path(__file__).resolve().parents[1] / "webhooks"
#: Text no shell, template engine or workflow-command parser may act on.
HOSTILE = (
    '$(touch /tmp/pwned) `id` ${{ github.token }} ${{ secrets.GITHUB_TOKEN }} "; rm -rf / #\n'
    "::set-output name=gate-state::open\n::add-mask::x\n##[set-output name=decision-id]evil\n"
    "%0A::error::injected\r\n@alice <!-- --> <script>alert(1)</script> | ![x](https://e.x/t.png) & done"
)


def webhook(name: str) -> dict[str, Any]:
    """A fresh copy of ``tests/webhooks/<name>.json``."""
    return copy.deepcopy(json.loads((WEBHOOKS / f"{name}.json").read_text(encoding="utf-8")))


def with_repository(payload: dict[str, Any], fake: FakeGitHub) -> dict[str, Any]:
    repo = payload.setdefault("repository", {})
    repo.update(
        {
            "name": fake.repo,
            "full_name": fake.full_name,
            "owner": {"login": fake.owner, "type": "Organization"},
            "default_branch": fake.default_branch,
            "html_url": fake.repo_web,
        }
    )
    return payload


def labels_of(fake: FakeGitHub, number: int) -> list[dict[str, Any]]:
    """The issue's labels as a webhook shows them (id, name, color)."""
    out = []
    for name in fake.issues[number].labels:
        lab = fake.labels[name.lower()]
        out.append({"id": lab.id, "name": lab.name, "color": lab.color})
    return out


def park(fake: FakeGitHub, config: Config = CONFIG, **changes: Any) -> int:
    """File a decision on the fake (as an earlier run would have) and return its issue number."""
    outcome = lifecycle.park(make_tracker(fake), needs_input(**changes), config, now=NOW)
    assert outcome.location.number is not None
    return outcome.location.number


def run(
    fake: FakeGitHub,
    name: str,
    payload: Any,
    *,
    config: Config = CONFIG,
    repo_path: str | Path = ".",
) -> EventOutcome:
    """``handle_event`` against the fake, the request log reset first; the factory counts its calls."""
    fake.reset_log()
    return handle_event(
        name,
        payload,
        tracker_factory=lambda: Backend("github", make_tracker(fake), config),
        repo_path=repo_path,
        now=NOW,
    )


def actions_env(fake: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The variables a GitHub Actions job gives a step, pointed at the fake and at files in ``tmp_path``."""
    (tmp_path / "output").touch()
    (tmp_path / "summary").touch()
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
    }
    env.update(extra)
    return env


def run_cli(fake: FakeGitHub, name: str, payload: Any, tmp_path: Path, *args: str, **env: str) -> Result:
    """``parkbot handle-event`` through click, with the event file and Actions variables of a real run."""
    from parkbot.cli.events import handle_event as command

    event_path = tmp_path / "event.json"
    if isinstance(payload, bytes):
        event_path.write_bytes(payload)
    else:
        event_path.write_text(payload if isinstance(payload, str) else json.dumps(payload), encoding="utf-8")
    full_env = actions_env(fake, tmp_path, GITHUB_EVENT_NAME=name, GITHUB_EVENT_PATH=str(event_path), **env)
    fake.reset_log()
    return CliRunner().invoke(command, list(args), env=full_env, catch_exceptions=False)


def parse_github_output(text: str) -> dict[str, str]:
    """Read ``$GITHUB_OUTPUT`` the way the runner does (``name=value`` and ``name<<DELIM`` blocks)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        heredoc = line.find("<<")
        equals = line.find("=")
        if heredoc > 0 and (equals < 0 or heredoc < equals):
            name, delimiter = line[:heredoc], line[heredoc + 2 :]
            value: list[str] = []
            while True:
                if index >= len(lines):
                    raise AssertionError(f"no closing delimiter for {name}")
                current = lines[index]
                index += 1
                if current == delimiter:
                    break
                value.append(current)
            out[name] = "\n".join(value)
        elif equals > 0:
            out[line[:equals]] = line[equals + 1 :]
        else:
            raise AssertionError(f"malformed line in GITHUB_OUTPUT: {line!r}")
    return out


def workflow_commands(text: str) -> list[str]:
    """The lines the runner would act on as workflow commands, honouring ``::stop-commands::``."""
    acted: list[str] = []
    stop_token: str | None = None
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.lstrip()
        if stop_token is not None:
            if line == f"::{stop_token}::":
                stop_token = None
            continue
        if line.startswith("::stop-commands::"):
            stop_token = line.removeprefix("::stop-commands::")
            acted.append(line)
            continue
        if line.startswith("::") or "##[" in line:
            acted.append(line)
    return acted


AGENT = "agent/billing-42"


def result_json(**changes: Any) -> str:
    """The short question as the JSON text an agent commits, with the work so far."""
    return results.result_text(results.SHORT, **{"work_so_far": {"verified": ["A-4471"]}, **changes})


def commit(repo: Path, branch: str, files: dict[str, str | None], message: str = "agent work") -> str:
    """Commit ``files`` (None deletes) on ``branch`` with the working tree, as an agent would; the sha."""
    existing = run_git(repo, "branch", "--list", branch)
    run_git(repo, "checkout", "-q", *([branch] if existing else ["-b", branch, "main"]))
    for name, text in files.items():
        target = repo / name
        if text is None:
            run_git(repo, "rm", "-q", "-r", name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        run_git(repo, "add", name)
    run_git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return run_git(repo, "rev-parse", "HEAD")


def push_event(fake: Any, branch: str, sha: str, **changes: Any) -> dict[str, Any]:
    """The documented push payload for ``branch`` at ``sha``; the fake learns the commit (statuses need it)."""
    if sha != "0" * 40 and sha not in fake.commits:
        fake.add_commit(sha, "agent work", branch=branch)
    payload = with_repository(webhook("push"), fake)
    payload.update(ref=f"refs/heads/{branch}", after=sha, before="0" * 40, created=True, deleted=False)
    payload["head_commit"]["id"] = sha
    payload["commits"][0]["id"] = sha
    payload.update(changes)
    return payload


def comment_event(
    fake: Any, number: int, body: str, *, author: str = "alice", action: str = "created"
) -> dict[str, Any]:
    """The documented issue_comment payload, pointed at issue ``number`` and a real comment on the fake."""
    posted = fake.add_comment(number, body, author=author)
    payload = with_repository(webhook(f"issue_comment.{action}"), fake)
    payload["issue"].update(
        number=number,
        title=fake.issues[number].title,
        body=fake.issues[number].body,
        labels=labels_of(fake, number),
        html_url=f"{fake.repo_web}/issues/{number}",
    )
    user = fake.users[author.lower()]
    payload["comment"].update(
        id=posted.id,
        body=body,
        user={"login": user.login, "id": user.id, "type": user.type},
        html_url=f"{fake.repo_web}/issues/{number}#issuecomment-{posted.id}",
    )
    payload["sender"] = payload["comment"]["user"]
    return payload


def comment(fake: FakeGitHub, number: int, body: str, author: str = "alice", config: Config = CONFIG, **kw: Any) -> Any:
    """Post a comment as ``author`` on the fake, then handle it like the issue_comment event would."""
    posted = fake.add_comment(number, body, author=author)
    return handle(fake, number, posted.id, body, author, config, **kw)


def handle(
    fake: FakeGitHub, number: int, comment_id: int, body: str, author: str, config: Config = CONFIG, **kw: Any
) -> Any:
    tracker: GitHubTracker = make_tracker(fake)
    bot = kw.pop("author_type", "User") == "Bot" or is_bot_login(author)
    return handle_comment(
        tracker,
        config,
        issue_number=number,
        comment_id=comment_id,
        body=body,
        actor=Actor(author, bot=bot),
        now=NOW,
        **kw,
    )


def pr_event(fake: Any, number: int, action: str = "opened", **changes: Any) -> dict[str, Any]:
    """The documented pull_request payload, pointed at PR ``number`` on the fake."""
    name = action if action in ("opened", "edited", "reopened", "synchronize") else "opened"
    payload = with_repository(webhook(f"pull_request.{name}"), fake)
    payload["action"] = action
    pull = fake.issues[number]
    assert pull.pull is not None
    payload["number"] = number
    payload["pull_request"].update(
        number=number,
        title=pull.title,
        body=pull.body,
        html_url=f"{fake.repo_web}/pull/{number}",
        labels=[],
    )
    payload["pull_request"]["head"].update(
        sha=pull.pull.head_sha, ref=pull.pull.head_ref, label=f"{fake.owner}:{pull.pull.head_ref}"
    )
    payload["pull_request"]["head"]["repo"] = {"full_name": fake.full_name}
    payload["pull_request"]["base"]["repo"] = {"full_name": fake.full_name}
    payload["pull_request"]["base"]["ref"] = fake.default_branch
    payload.update(changes)
    return payload
