"""A plain ``pip install parkbot`` has no web server: ``parkbot serve`` says which extra to install (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

WITHOUT = """
import sys
for name in ("starlette", "uvicorn", "procrastinate", "psycopg", "psycopg_pool"):
    sys.modules[name] = None  # as if parkbot was installed without the [serve] extra
sys.argv = ["parkbot", *sys.argv[1:]]
from parkbot.cli import main
main()
"""


@pytest.mark.parametrize(
    "queue", ["sqlite:///queue.db", "postgresql://parkbot@127.0.0.1:1/parkbot"], ids=["sqlite", "postgres"]
)
def test_serve_without_its_extra_says_which_to_install(tmp_path: Path, queue: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT, "serve", "--queue", queue],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PARKBOT_APP_ID": "1", "PARKBOT_WEBHOOK_SECRET": "s"},
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'parkbot[serve]'" in done.stderr
    assert "Traceback" not in done.stderr
