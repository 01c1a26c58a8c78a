"""``parkbot init``: the files that set a repository up, written so that running it again is safe.

Every file parkbot init writes carries a fingerprint of its own text. On the next run a file is
``unchanged`` (already what init would write), ``updated`` (init wrote it, nobody changed it since,
and init now writes something else, e.g. a newer schema), or ``kept``: someone changed it, and it
is replaced only with ``--force``. A file that init did not write is never overwritten without
``--force`` either.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from parkbot.core.config import CONFIG_PATH, CONFIG_PATHS, config_json_schema
from parkbot.core.errors import InvalidInput

Mode = Literal["github", "git"]
Action = Literal["created", "unchanged", "updated", "kept", "replaced"]

SCHEMA_PATH = ".github/parkbot.schema.json"
WORKFLOWS_DIR = ".github/workflows"
#: Where GitHub looks for CODEOWNERS, in the order it looks.
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
#: The workflows ``--github`` writes (the files of docs/workflows/, shipped with parkbot).
GITHUB_WORKFLOWS = (
    "answer-decisions.yml",
    "gate-pull-requests.yml",
    "gate-fork-pull-requests.yml",
    "park-from-agent-branches.yml",
    "nightly-reconcile.yml",
)
#: The workflows ``--git`` writes: the gate of pull requests on the embedded backlog.
GIT_WORKFLOWS = ("gate-git-backlog.yml",)
#: The action line of the shipped workflows, which ``--action`` replaces.
TEMPLATE_ACTION = re.compile(r"^(?P<indent>\s*- )uses: OWNER/REPO/actions/parkbot@\S+ # .*$", re.MULTILINE)
#: What ``--action`` may be: ``owner/repo[/path]@ref``, nothing a YAML line could misread.
ACTION_REF = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_.-]+$")
FULL_SHA = re.compile(r"@[0-9a-f]{40}$")
#: A release tag, as the comment after a sha pin names it (what Dependabot and Renovate read).
RELEASE_TAG = re.compile(r"^v\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?$")

_TOKEN = "@@fingerprint@@"  # noqa: S105 - a placeholder in a file, not a secret
_FINGERPRINT = re.compile(r"fingerprint ([0-9a-f]{12})")
MARK = f"parkbot init wrote this file (fingerprint {_TOKEN}); it replaces it only while it is unchanged"


def _fingerprinted(body: str) -> str:
    """``body`` (which holds :data:`_TOKEN` once) with the token replaced by the digest of ``body``."""
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]
    return body.replace(_TOKEN, digest, 1)


def _written_by_init(text: str) -> bool:
    """Whether ``text`` is exactly as parkbot init wrote it: its fingerprint matches its content."""
    found = _FINGERPRINT.search(text)
    if found is None:
        return False
    return _fingerprinted(text[: found.start(1)] + _TOKEN + text[found.end(1) :]) == text


@dataclass(frozen=True)
class Planned:
    """One file init wants, relative to the repository's top."""

    path: str
    text: str


@dataclass(frozen=True)
class Written:
    """What init did with one file."""

    path: str
    action: Action


# --- what the files say --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Owners:
    """Owners found in CODEOWNERS: the default (the owner of ``*``) and everyone else named."""

    source: str | None
    default: str | None
    others: tuple[str, ...]


def _owner_name(token: str) -> str:
    """``@alice`` -> ``alice`` (parkbot's GitHub logins); a team ``@org/team`` and an e-mail stay as they are."""
    return token[1:] if token.startswith("@") and "/" not in token else token


def read_codeowners(top: Path) -> Owners:
    """The owners a CODEOWNERS file names; the last ``*`` rule wins, as on GitHub."""
    for relative in CODEOWNERS_PATHS:
        path = top / relative
        if not path.is_file():
            continue
        default: str | None = None
        named: list[str] = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) < 2:
                continue
            owners = [_owner_name(w) for w in words[1:]]
            if words[0] in ("*", "/*", "/**", "**"):
                default = owners[0]
            named += [o for o in owners if o not in named]
        return Owners(relative, default, tuple(o for o in named if o != default))
    return Owners(None, None, ())


#: Plain words YAML tools may read as something other than text.
_NOT_TEXT = frozenset({"y", "yes", "n", "no", "on", "off", "true", "false", "null", "~"})


def _yaml_text(value: str) -> str:
    """A scalar as YAML that reads back as this text, in any YAML tool (JSON strings are YAML)."""
    plain = re.fullmatch(r"[A-Za-z][A-Za-z0-9_.@+-]*", value) and value.lower() not in _NOT_TEXT
    return value if plain else json.dumps(value)


def config_text(mode: Mode, owners: Owners) -> str:
    """``.github/parkbot.yml``, commented, with the owners init could infer."""
    if owners.default:
        default = f"  default: {_yaml_text(owners.default)}"
        default += f"  # from {owners.source} (the owner of *): who answers when no origin pattern matches"
    else:
        fallback = "the repository owner" if mode == "github" else "your git user.email"
        where = f"{owners.source} names no owner of *" if owners.source else "no CODEOWNERS file"
        default = f"  # default: alice  # who answers when no origin pattern matches ({where}; without it: {fallback})"
    lines = [
        f"# yaml-language-server: $schema={Path(SCHEMA_PATH).name}",
        "# parkbot's configuration. Every key is optional; `parkbot config check` validates this file and",
        "# shows who answers each origin's questions; docs/configuration.md explains every setting.",
        f"# {MARK}",
        "owners:",
        default,
        '  origins: {}  # glob on the origin id -> owner, first match wins, e.g. "billing-*": bob',
    ]
    if owners.others:
        lines.append(f"  # also named in {owners.source}: {', '.join(owners.others)}")
    lines += [
        "hierarchy: {}  # each owner -> the one directly above; questions only move up, e.g. bob: alice",
        "limits:",
        "  open_per_origin: 3  # open questions per origin task",
        "  open_per_run: 20    # open questions per run",
        "precedents: suggest   # off | suggest | apply: cite (or apply) an earlier answer to the same question",
        'agent_branches: ["agent/**"]  # branches that must carry decisions or an explicit inventory',
    ]
    if mode == "github":
        lines += ["gate:", "  publish: check  # check | status | both: how the gate parkbot/decisions is published"]
    return _fingerprinted("\n".join(lines) + "\n")


def schema_text() -> str:
    """``.github/parkbot.schema.json``: the configuration's JSON Schema, which the config's first line names."""
    schema = {"$comment": MARK, **config_json_schema()}
    return _fingerprinted(json.dumps(schema, indent=2) + "\n")


def workflow_text(name: str, action: str | None) -> str:
    """A shipped workflow with its copy-me preamble replaced by init's mark, and the action pinned if given."""
    template = resources.files("parkbot").joinpath("workflows", name).read_text(encoding="utf-8")
    lines = template.splitlines()
    start = next(i for i, line in enumerate(lines) if not line.startswith("#") or line == "#")
    body = "\n".join(lines[start + 1 if lines[start] == "#" else start :])
    if action is not None:
        body = TEMPLATE_ACTION.sub(lambda m: f"{m.group('indent')}uses: {action}", body)
    return _fingerprinted(f"# {MARK}\n#\n{body}\n")


def check_action(action: str, release: str | None) -> str:
    """The ``uses:`` value for ``--action`` and ``--action-version``: the reference, and the release as a comment."""
    if not ACTION_REF.match(action):
        raise InvalidInput(
            f"--action {action!r} is not an action reference: give OWNER/REPO/actions/parkbot@<full commit sha>"
        )
    if release is None:
        return action
    if not RELEASE_TAG.match(release):
        raise InvalidInput(f"--action-version {release!r} is not a release tag such as v0.1.0")
    return f"{action} # {release}"


def plan(top: Path, mode: Mode, action: str | None) -> list[Planned]:
    """Every file init writes in ``mode``."""
    files = [Planned(CONFIG_PATH, config_text(mode, read_codeowners(top))), Planned(SCHEMA_PATH, schema_text())]
    if mode == "github":
        files += [Planned(f"{WORKFLOWS_DIR}/{name}", workflow_text(name, action)) for name in GITHUB_WORKFLOWS]
    else:
        files += [Planned(f"{WORKFLOWS_DIR}/{name}", workflow_text(name, None)) for name in GIT_WORKFLOWS]
    return files


# --- writing -----------------------------------------------------------------------------------------


def write(top: Path, files: Iterable[Planned], *, force: bool) -> list[Written]:
    """Write what is missing or still init's own; keep what someone changed unless ``force``."""
    other_spelling = [p for p in CONFIG_PATHS[1:] if (top / p).is_file()]
    outcomes = []
    for planned in files:
        path = top / planned.path
        if planned.path == CONFIG_PATH and other_spelling and not path.exists():
            # The repository's configuration is .github/parkbot.yaml: writing .yml too would make two.
            outcomes.append(Written(other_spelling[0], "kept"))
            continue
        if not path.exists():
            action: Action = "created"
        else:
            try:
                current = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                current = None
            if current == planned.text:
                outcomes.append(Written(planned.path, "unchanged"))
                continue
            if current is not None and _written_by_init(current):
                action = "updated"
            elif force:
                action = "replaced"
            else:
                outcomes.append(Written(planned.path, "kept"))
                continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(planned.text, encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(f"cannot write {planned.path}: {exc.strerror}") from None
        outcomes.append(Written(planned.path, action))
    return outcomes
