"""The signed-answers world the git tests share: real SSH keys, a shared remote, and the CLI run in a clone.

A remote whose default branch holds the parkbot config (``answers.require_signed``) and the allowed
signers (alice, carol, bob); mallory has a key nobody lists, and ``nobody`` has no key at all.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from parkbot.cli import cli
from tests.support.git_helpers import commit_on_branch, needs_input, run_git

REF = "refs/parkbot/backlog"
DID = "billing-42-decision-refund"
ALICE, CAROL, BOB, MALLORY = "alice@example.com", "carol@example.com", "bob@example.com", "mallory@evil.example"
CONFIG = f"""\
owners:
  default: {ALICE}
hierarchy:
  {ALICE}: {CAROL}
answers:
  require_signed: true
"""
PERMISSIVE = f"owners:\n  default: {ALICE}\nhierarchy:\n  {ALICE}: {CAROL}\n"


@dataclass
class Person:
    email: str
    key: Path | None


@dataclass
class World:
    tmp: Path
    remote: Path
    keys: dict[str, Person]

    def clone(self, name: str, who: str, *, sign: bool = True) -> Path:
        path = self.tmp / name
        run_git(self.tmp, "clone", "-q", str(self.remote), str(path))
        person = self.keys[who]
        run_git(path, "config", "user.name", who.split("@")[0].title())
        run_git(path, "config", "user.email", person.email)
        if sign and person.key is not None:
            run_git(path, "config", "gpg.format", "ssh")
            run_git(path, "config", "user.signingkey", str(person.key))
        return path


def keygen(folder: Path, name: str) -> Path:
    """A real ed25519 key pair, without a passphrase, in ``folder``."""
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


def public(key: Path | None) -> str:
    """The public half of ``key`` as an allowed-signers line wants it (type and key, no comment)."""
    assert key is not None, "this person has no key"
    return " ".join(key.with_suffix(".pub").read_text().split()[:2])


def make_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A shared remote whose default branch holds the config and the allowed signers (alice, carol, bob)."""
    monkeypatch.setenv("GNUPGHOME", str(tmp_path / "no-gnupg"))  # no stray keyring signs anything
    keys_dir = tmp_path / "keys"
    keys_dir.mkdir()
    keys = {name: Person(email, keygen(keys_dir, name)) for name, email in
            (("alice", ALICE), ("carol", CAROL), ("bob", BOB), ("mallory", MALLORY))}  # fmt: skip
    keys["nobody"] = Person(MALLORY, None)
    seed = tmp_path / "seed"
    seed.mkdir()
    run_git(seed, "init", "-q", "-b", "main")
    (seed / ".github").mkdir()
    (seed / ".github" / "parkbot.yml").write_text(CONFIG)
    signers = [f"{keys[n].email} {public(keys[n].key)}" for n in ("alice", "carol", "bob")]
    (seed / ".github" / "allowed_signers").write_text("\n".join(signers) + "\n")
    (seed / "permissive.yml").write_text(PERMISSIVE)
    run_git(seed, "add", ".")
    run_git(seed, "-c", "user.name=Seed", "-c", f"user.email={ALICE}", "commit", "-q", "-m", "parkbot config")
    commit_on_branch(seed, "agent/x", "work that needs the answer", trailers=[("Blocked-by", DID)])
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    run_git(seed, "push", "-q", str(remote), "refs/heads/agent/x")
    return World(tmp_path, remote, keys)


def parkbot(where: Path, *args: str, stdin: str | None = None) -> Result:
    """The CLI, run against the clone at ``where``."""
    return CliRunner().invoke(cli, [*args, "--repo", str(where)], input=stdin)


def ok(result: Result, code: int = 0) -> Result:
    """``result``, once it exited with ``code`` (the output says why when it did not)."""
    assert result.exit_code == code, result.output
    return result


def signature(path: Path, rev: str = REF) -> str:
    """``%G? %GS`` of ``rev``'s last commit, checked against the checkout's allowed signers."""
    signers = path / ".github" / "allowed_signers"
    return run_git(path, "-c", f"gpg.ssh.allowedSignersFile={signers}", "log", "-1", "--format=%G? %GS", rev)


def owner_parks(world: World) -> Path:
    """Alice's clone, after she parked the question, gated ``agent/x`` on it and pushed the backlog."""
    owner = world.clone("owner", "alice")
    ok(parkbot(owner, "park", "-", stdin=needs_input(dependents=["#5"]).model_dump_json()))
    run_git(owner, "fetch", "-q", "origin", "refs/heads/agent/x:refs/heads/agent/x")
    ok(parkbot(owner, "gate", "--ref", "agent/x"), 1)
    assert json.loads(ok(parkbot(owner, "sync", "--json")).stdout)["action"] == "pushed"
    return owner
