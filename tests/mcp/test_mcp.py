"""``parkbot mcp`` through the MCP SDK's own client over stdio, on both backends.

The server is spawned as a subprocess (``parkbot mcp``) and driven as an agent's client would: the
handshake, the tool list with its schemas, a call of every tool, and failures as tool errors that
carry the CLI's error object (message and exit code).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from parkbot.core.models import result_json_schema
from tests.support.mcp_client import EXAMPLE, ROOT, server, structured

DID = "billing-42-decision-refund"
TOOLS = ["park", "show", "list", "gate", "wait", "resume", "schema", "cite", "pass"]


async def session_run(params: StdioServerParameters, gate_args: dict[str, Any]) -> None:
    with anyio.fail_after(120):
        await _session_run(params, gate_args)


async def _session_run(params: StdioServerParameters, gate_args: dict[str, Any]) -> None:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.server_info.name == "parkbot"
        assert init.instructions is not None
        assert "STOP and ASK" in init.instructions  # the guide

        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert list(listed) == TOOLS
        park_schema = listed["park"].input_schema
        published = result_json_schema()
        assert park_schema["required"] == ["result"]
        assert park_schema["$defs"] == published["$defs"]  # the very models park validates with
        assert park_schema["properties"]["result"]["oneOf"] == published["oneOf"]
        assert listed["show"].input_schema["required"] == ["id"]
        assert listed["show"].output_schema is not None

        filed = structured(await session.call_tool("park", {"result": EXAMPLE}))
        assert (filed["id"], filed["action"], filed["state"]) == (DID, "created", "open")
        assert structured(await session.call_tool("park", {"result": EXAMPLE}))["action"] == "unchanged"

        shown = structured(await session.call_tool("show", {"id": DID}))
        assert (shown["id"], shown["state"], shown["owner"]) == (DID, "open", filed["owner"])
        assert structured(await session.call_tool("list", {}))["count"] == 1
        assert structured(await session.call_tool("list", {"answered_since": "1h"}))["count"] == 0

        gate = structured(await session.call_tool("gate", gate_args))
        assert (gate["state"], gate["blocking"]) == ("blocked", [DID])

        waited = structured(await session.call_tool("wait", {"id": DID, "timeout": "0s"}))
        assert (waited["state"], waited["answer"]) == ("open", None)
        resumed = structured(await session.call_tool("resume", {"id": DID}))
        assert resumed["work_so_far"] == EXAMPLE["work_so_far"]
        schema = structured(await session.call_tool("schema", {}))
        assert schema == published

        # failures: tool errors carrying the CLI's error object
        missing = await session.call_tool("show", {"id": "billing-42-decision-nothing"})
        assert missing.is_error
        assert structured(missing) | {"message": ""} == {"error": "not_found", "message": "", "exit_code": 2}
        assert "list tool gives the ids" in structured(missing)["message"]
        invalid = await session.call_tool("park", {"result": {**EXAMPLE, "blocking": "no"}})
        assert invalid.is_error
        error = structured(invalid)
        assert (error["error"], error["exit_code"]) == ("invalid", 2)
        assert "blocking: Input should be a valid boolean" in error["message"]
        collision = structured(await session.call_tool("park", {"result": {**EXAMPLE, "title": "Other"}}))
        assert (collision["error"], collision["exit_code"]) == ("collision", 3)
        bad_timeout = structured(await session.call_tool("wait", {"id": DID, "timeout": "nan"}))
        assert (bad_timeout["exit_code"], "not a duration" in bad_timeout["message"]) == (2, True)
        bad_args = structured(await session.call_tool("show", {"decision": DID}))
        assert bad_args["exit_code"] == 2
        assert "unknown field" in bad_args["message"]
        unknown = structured(await session.call_tool("resolve", {"id": DID}))
        assert unknown["exit_code"] == 2  # answering is for owners: there is no resolve tool


@pytest.mark.parametrize("backend", ["git", "github"])
def test_the_mcp_server_over_stdio(backend: str, tmp_path: Path) -> None:
    params, gate_args = server(backend, tmp_path)
    anyio.run(session_run, params, gate_args)


def test_the_server_reports_a_backlog_it_cannot_open_as_a_tool_error(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "parkbot", "mcp", "--repo", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "bot"), "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
        cwd=str(tmp_path),
    )

    async def run() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert len((await session.list_tools()).tools) == len(TOOLS)  # listing needs no backlog
            result = await session.call_tool("show", {"id": DID})
            assert result.is_error
            assert "not inside a git repository" in structured(result)["message"]

    anyio.run(run)
