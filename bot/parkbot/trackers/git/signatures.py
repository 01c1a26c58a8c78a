"""Who wrote the answers and escalations on the backlog: their commits' signatures.

Every write that records an answer or an escalation names each record by its fingerprint in a
``Parkbot-Record:`` trailer (:mod:`~parkbot.trackers.git.fingerprints`). A record read back is proven
by the commits whose trailer names its fingerprint: :class:`Verifier` finds them with one
``git log --grep`` over the ref (remembered per ref tip, extended incrementally) and asks git,
with ``gpg.ssh.allowedSignersFile`` set to the allowed-signers file, whether their signatures verify
(one ``git log --no-walk --stdin`` per batch of commits not verified before). Verdicts are kept by
commit id in memory and, for SSH signatures and unsigned commits (whose verdict depends only on the
commit and the allowed-signers file), on disk under ``<git dir>/parkbot/signatures/``.

The allowed-signers file is given by the caller (the checked-out default branch), never read from
the backlog ref: whoever can push the ref cannot name their own key. This module is loaded only when
answers must be signed (``answers.require_signed``): no other command pays for it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from parkbot.core.errors import InvalidInput
from parkbot.core.models import Proof
from parkbot.trackers.git.fingerprints import RECORD_TRAILER
from parkbot.trackers.git.process import Git, GitFailed

#: Commits verified per ``git log`` process; batches run in parallel (each verification is a process of its own).
VERIFY_BATCH = 64
_EMAIL = re.compile(r"<([^<>\s]+@[^<>\s]+)>")
_DETAIL = {
    "N": "unsigned",
    "U": "signed with a key that is not in {signers}",
    "B": "bad signature",
    "X": "expired signature",
    "Y": "signed with an expired key",
    "R": "signed with a revoked key",
    "E": "the signature cannot be checked",
}


@dataclass(frozen=True)
class Signature:
    """git's verdict on one commit: ``%G?``, the signer (``%GS``) and the key's fingerprint (``%GF``)."""

    status: str
    signer: str | None
    key: str

    @property
    def cacheable(self) -> bool:
        """Verdicts that depend only on the commit and the allowed-signers file (SSH; unsigned)."""
        return self.status == "N" or (self.key.startswith("SHA256:") and self.status in "GUB")


class Verifier:
    """Proofs for records on one ref, against one allowed-signers file."""

    def __init__(self, git: Git, ref: str, allowed_signers: Path, cache_dir: Path) -> None:
        self.git = git
        self.ref = ref
        self.allowed_signers = allowed_signers
        self._cache_dir = cache_dir
        self._claims: tuple[str, dict[str, list[str]]] | None = None
        self._verdicts: dict[str, Signature] | None = None
        self._cache_file: Path | None = None

    def _signers_bytes(self) -> bytes:
        try:
            return self.allowed_signers.read_bytes()
        except OSError as exc:
            raise InvalidInput(
                f"answers.require_signed is set, but the allowed-signers file {self.allowed_signers} cannot be "
                f"read ({exc.strerror or exc}). Commit it on the default branch in git's allowed-signers format "
                "(one line per owner: `alice@example.com ssh-ed25519 AAAA...`), or point answers.allowed_signers at it."
            ) from exc

    # -- which commits claim a record ----------------------------------------------------------------

    def claims(self, tip: str) -> dict[str, list[str]]:
        """Fingerprint -> commits on the ref (reachable from ``tip``) whose trailer names it."""
        if self._claims is not None and self._claims[0] == tip:
            return self._claims[1]
        known: dict[str, list[str]] = {}
        spec = [tip]
        if self._claims is not None and self._is_ancestor(self._claims[0], tip):
            known = {fp: list(commits) for fp, commits in self._claims[1].items()}
            spec.append(f"^{self._claims[0]}")
        out = self.git.run(
            "log", "-z", f"--format=%H%n%(trailers:key={RECORD_TRAILER},valueonly)", f"--grep=^{RECORD_TRAILER}:",
            *spec, "--",
        ).stdout.decode("utf-8", "replace")  # fmt: skip
        for record in out.split("\0"):
            commit, *values = record.strip("\n").split("\n")
            for value in values:
                parts = value.split()
                if commit and len(parts) == 3:
                    known.setdefault(parts[2], []).append(commit)
        self._claims = (tip, known)
        return known

    def _is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.git.run("merge-base", "--is-ancestor", ancestor, descendant, check=False).returncode == 0

    # -- what git says about each commit ----------------------------------------------------------------

    def _load_cache(self) -> dict[str, Signature]:
        if self._verdicts is None:
            digest = hashlib.sha256(self._signers_bytes()).hexdigest()[:16]
            self._cache_file = self._cache_dir / f"{digest}.txt"
            self._verdicts = {}
            try:
                lines = self._cache_file.read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            for line in lines:
                parts = line.split(" ")
                if len(parts) == 4 and len(parts[1]) == 1:  # a torn last line is simply verified again
                    self._verdicts[parts[0]] = Signature(parts[1], None if parts[2] == "-" else parts[2], parts[3])
        return self._verdicts

    def _store(self, found: dict[str, Signature]) -> None:
        lines = [
            f"{c} {s.status} {s.signer or '-'} {s.key or '-'}\n"
            for c, s in found.items()
            if s.cacheable and " " not in (s.signer or "")
        ]
        if not lines or self._cache_file is None:
            return
        try:
            self._cache_file.parent.mkdir(parents=True, exist_ok=True)
            with open(self._cache_file, "a", encoding="utf-8") as handle:
                handle.write("".join(lines))
        except OSError:
            pass  # the cache only saves time

    def signatures(self, commits: Iterable[str]) -> dict[str, Signature]:
        verdicts = self._load_cache()
        missing = [c for c in dict.fromkeys(commits) if c not in verdicts]
        if missing:
            batches = [missing[i : i + VERIFY_BATCH] for i in range(0, len(missing), VERIFY_BATCH)]
            workers = max(1, min(len(batches), os.cpu_count() or 1))
            found: dict[str, Signature] = {}
            from concurrent.futures import ThreadPoolExecutor  # only with signed answers: not at start-up

            with ThreadPoolExecutor(max_workers=workers) as pool:
                for result in pool.map(self._verify, batches):
                    found.update(result)
            verdicts.update(found)
            self._store(found)
        return verdicts

    def _verify(self, commits: Sequence[str]) -> dict[str, Signature]:
        try:
            out = self.git.run(
                "-c", f"gpg.ssh.allowedSignersFile={self.allowed_signers}",
                "log", "--no-walk=unsorted", "--stdin", "-z", "--format=%H%x1f%G?%x1f%GS%x1f%GF",
                input="".join(f"{c}\n" for c in commits).encode("ascii"),
            ).stdout.decode("utf-8", "replace")  # fmt: skip
        except GitFailed as exc:
            raise GitFailed(f"cannot check the signatures on {self.ref}: {exc.stderr}", stderr=exc.stderr) from exc
        found: dict[str, Signature] = {}
        for record in out.split("\0"):
            parts = record.strip("\n").split("\x1f")
            if len(parts) == 4:
                commit, status, signer, key = parts
                match = _EMAIL.search(signer)
                found[commit] = Signature(status or "E", (match.group(1) if match else signer) or None, key)
        return found

    # -- proofs -----------------------------------------------------------------------------------------

    def proofs(self, tip: str | None, records: Iterable[tuple[str, str]]) -> dict[str, Proof]:
        """A :class:`Proof` for each ``(fingerprint, by)``: the best signature among the commits claiming it.

        A good signature by the record's own ``by`` wins, then any good one, then what the first
        claiming commit shows (so the reason reads "unsigned", "not in allowed signers", ...).
        """
        wanted = list(records)
        if not wanted:
            return {}
        self._signers_bytes()  # a missing file is a configuration error, whatever the records
        claims = self.claims(tip) if tip else {}
        verdicts = self.signatures(c for fp, _ in wanted for c in claims.get(fp, []))
        proofs: dict[str, Proof] = {}
        for fp, by in wanted:
            found = [verdicts[c] for c in claims.get(fp, []) if c in verdicts]
            if not found:
                proofs[fp] = Proof(good=False, detail="no commit on the backlog ref records it")
                continue
            good = [s for s in found if s.status == "G" and s.signer]
            own = [s for s in good if (s.signer or "").casefold() == by.casefold()]
            pick = (own or good or found)[0]
            detail = "" if pick in good else _DETAIL.get(pick.status, f"signature status {pick.status}")
            proofs[fp] = Proof(
                good=pick in good, signer=pick.signer, detail=detail.format(signers=self.allowed_signers.name)
            )
        return proofs
