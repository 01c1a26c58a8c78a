"""``parkbot mcp --backend github`` against the fake GitHub, in a process of its own (for tests/mcp/test_mcp.py).

The fake answers at the HTTP level inside this process (``responses``), so the server under test is the
real one, spawned and spoken to over stdio by the MCP SDK's client, exactly as an agent's client would.
"""

from __future__ import annotations

import sys

from parkbot.cli import cli
from tests.support.github_helpers import fake_github

DID = "billing-42-decision-refund"

if __name__ == "__main__":
    fake = fake_github().start()
    fake.add_pull(title="Refund flow", head_ref="agent/billing-42", body=f"Blocked by {DID}", author="agent-dev")
    cli.main(["mcp", "--backend", "github", *sys.argv[1:]], prog_name="parkbot")
