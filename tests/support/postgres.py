"""A real PostgreSQL for the tests of ``parkbot serve --queue postgresql://...``: ``initdb`` and ``pg_ctl`` in a
temporary folder, listening on a free loopback port. ``.ci/run`` makes sure the server binaries are installed;
elsewhere the tests that need them are skipped, saying why.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SEARCH = ("/usr/local/bin", "/usr/lib/postgresql/*/bin")


def find_binaries() -> tuple[str, str] | None:
    """``initdb`` and ``pg_ctl`` on PATH or where Debian installs them."""
    for folder in [None, *[g for pattern in SEARCH for g in sorted(glob.glob(pattern), reverse=True)]]:
        initdb = shutil.which("initdb", path=folder)
        pg_ctl = shutil.which("pg_ctl", path=folder)
        if initdb and pg_ctl:
            return initdb, pg_ctl
    return None


def why_not() -> str | None:
    """None when a PostgreSQL can be started here, else why not."""
    if find_binaries() is None:
        return "PostgreSQL's initdb and pg_ctl are not installed (.ci/run installs them)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root without runuser to run PostgreSQL as the postgres user"
    return None


class Postgres:
    """One PostgreSQL cluster in ``folder`` (default: a new folder of its own in the system's temporary
    folder, which the postgres user can reach): ``start()``, ``url``, ``stop()``."""

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or Path(tempfile.mkdtemp(prefix="parkbot-pg-"))
        found = find_binaries()
        assert found is not None
        self.initdb, self.pg_ctl = found
        self.folder = folder
        self.data = folder / "data"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"postgresql://parkbot@127.0.0.1:{self.port}/postgres"
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.prefix, *args], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode:
            raise AssertionError(f"{args[0]} failed ({done.returncode}): {done.stderr}{done.stdout}")

    def start(self) -> Postgres:
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.prefix:
            entry = pwd.getpwnam("postgres")
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self._run(self.initdb, "-D", str(self.data), "-A", "trust", "-U", "parkbot", "--no-sync", "-E", "UTF8")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
        self._run(self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")
        return self

    def stop(self) -> None:
        subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
            timeout=60,
        )
        shutil.rmtree(self.folder, ignore_errors=True)
