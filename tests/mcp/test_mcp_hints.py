"""What an MCP client learns before it calls a tool, and how much ``list`` hands back, through the SDK's
own stdio client; and ``parkbot mcp`` without the SDK installed (it is the ``parkbot[mcp]`` extra)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.support.mcp_client import EXAMPLE, ROOT, git_repo, structured

#: The hints each tool must declare (MCP specification, ToolAnnotations): only park and gate write
#: (gate publishes its verdict on GitHub), neither destroys anything, and a repeated call changes nothing more.
EXPECTED = {
    "park": (False, False, True),
    "show": (True, False, True),
    "list": (True, False, True),
    "gate": (False, False, True),
    "wait": (True, False, True),
    "resume": (True, False, True),
    "schema": (True, False, True),
    "cite": (False, False, True),
    "pass": (False, False, True),
}


def params(repo: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "bot")))}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "parkbot", "mcp", "--repo", str(repo)], env=env, cwd=str(repo)
    )


async def _run(repo: Path) -> None:
    async with stdio_client(params(repo)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        hints = {}
        for name, tool in tools.items():
            assert tool.annotations is not None, name
            wire = tool.annotations.model_dump(by_alias=True, exclude_none=True)
            hints[name] = (wire["readOnlyHint"], wire["destructiveHint"], wire["idempotentHint"])
        assert hints == EXPECTED
        assert tools["list"].input_schema["properties"]["limit"]["default"] == 100

        for n in range(3):
            filed = await session.call_tool("park", {"result": {**EXAMPLE, "origin": f"billing-{n}"}})
            assert structured(filed)["action"] == "created"

        everything = structured(await session.call_tool("list", {}))
        assert (everything["count"], everything["total"], everything["truncated"]) == (3, 3, False)
        assert everything["note"] is None

        cut = structured(await session.call_tool("list", {"limit": 2}))
        assert (cut["count"], cut["total"], cut["truncated"]) == (2, 3, True)
        assert [d["id"] for d in cut["decisions"]] == [d["id"] for d in everything["decisions"][:2]]  # oldest first
        assert "first 2 of 3" in cut["note"]
        assert "limit" in cut["note"]

        zero = await session.call_tool("list", {"limit": 0})
        assert zero.is_error
        assert "limit" in structured(zero)["message"]  # names the argument


def test_tools_declare_their_hints_and_list_says_when_it_cut(tmp_path: Path) -> None:
    repo = git_repo(tmp_path)

    async def run() -> None:
        with anyio.fail_after(120):
            await _run(repo)

    anyio.run(run)


BLOCK_THE_SDK = """
import sys
sys.modules["mcp"] = None  # as if parkbot was installed without the [mcp] extra
sys.modules["mcp_types"] = None
sys.modules["anyio"] = None  # the SDK brings anyio: a plain install has neither
sys.argv = ["parkbot", *sys.argv[1:]]
from parkbot.cli import main
main()
"""


@pytest.mark.parametrize("as_json", [False, True])
def test_parkbot_mcp_without_the_sdk_says_which_extra_to_install(tmp_path: Path, as_json: bool) -> None:
    repo = git_repo(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bot")}
    args = [sys.executable, "-c", BLOCK_THE_SDK, "mcp", "--repo", str(repo), *(["--json"] if as_json else [])]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "pip install 'parkbot[mcp]'" in done.stderr
    assert "Traceback" not in done.stderr
    if as_json:
        data: dict[str, Any] = json.loads(done.stdout)
        assert data["exit_code"] == 2
        assert "parkbot[mcp]" in data["message"]
    else:
        assert done.stdout == ""
