"""``parkbot mcp``: the backlog as Model Context Protocol tools, served over stdio.

A thin layer over :mod:`parkbot.api`, like the CLI: each tool's input schema is generated from the
models its arguments are validated with (``park`` takes the very schema ``parkbot schema`` prints),
its output schema from the result model, and its result is the JSON the matching command prints with
``--json``. A failure is an MCP tool error whose content is the CLI's error object, with the
message and the exit code. The tools are what an agent needs: ``park``, ``show``, ``list``,
``gate``, ``wait``, ``resume`` and ``schema``; answering is for owners, so there is no ``resolve``.

The backlog is opened on the first call (so ``tools/list`` works anywhere, and a backend that cannot
be opened is reported as a tool error); tool calls run in a worker thread, one at a time, and a
``wait`` lets other calls through between its polls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from parkbot import __version__
from parkbot.api import (
    DEFAULT_POLL,
    POLL_SCHEDULE,
    Backlog,
    Cited,
    DecisionList,
    DecisionView,
    Filed,
    GateReport,
    Inventory,
    Requested,
    ResumeContext,
    poller,
    wait_for_answer,
)
from parkbot.api.failure import failure_of
from parkbot.api.results.decisions import ListedDecisions
from parkbot.core.durations import Duration
from parkbot.core.errors import InvalidInput, ParkbotError, Step, with_step
from parkbot.core.models import DECISION_ID_REGEX, MAX_ID_LENGTH, describe_validation_error, result_json_schema

SERVER_NAME = "parkbot"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _decision_id() -> Any:
    return Field(
        description="The decision's id, <origin>-decision-<key>, as park returned it.",
        json_schema_extra={"pattern": DECISION_ID_REGEX, "maxLength": MAX_ID_LENGTH},
    )


class ShowArgs(_Args):
    id: str = _decision_id()


#: How many decisions ``list`` returns unless asked for more: an agent's context is not a database.
LIST_LIMIT = 100


class ListArgs(_Args):
    state: Literal["open", "resolved", "abandoned", "all"] | None = Field(
        default=None, description="Which decisions (default: open; with answered_since, every answered one)."
    )
    owner: str | None = Field(default=None, description="Only decisions this owner answers.")
    origin: str | None = Field(default=None, description="Only origins matching this glob, e.g. 'billing-*'.")
    answered_since: str | None = Field(
        default=None,
        description="Only decisions answered since then, in the order they were answered: a span back from now "
        "(90s, 10m, 1h, 7d) or an ISO date.",
    )
    awaiting: Literal["planner", "review"] | None = Field(
        default=None,
        description="planner: the questions waiting for the planner (its work list); review: planner answers "
        "their owners have not reviewed yet.",
    )
    limit: int = Field(
        default=LIST_LIMIT,
        ge=1,
        le=100_000,
        description="At most this many decisions, the first in the listed order; truncated says when more matched.",
    )


class CiteArgs(_Args):
    id: str = _decision_id()
    answer: str = Field(description="The option the cited sources give.")
    sources: list[str] = Field(
        description="Each a file with its lines at the default branch (docs/refunds.md#L10-L14) or the id of a "
        "decision a person answered.",
        max_length=10,
    )


class PassArgs(_Args):
    id: str = _decision_id()
    reason: str | None = Field(default=None, description="Why the sources do not answer it (shown to the owner).")


class GateArgs(_Args):
    ref: str | None = Field(default=None, description="A branch of the local repository (the git backlog).")
    pr: int | None = Field(default=None, ge=1, description="A pull request number (GitHub).")


class WaitArgs(_Args):
    id: str = _decision_id()
    timeout: str = Field(
        default="60s",
        description="How long to wait: 90s, 10m, 1m30s (0s: look once). Keep it within your client's tool-call "
        "timeout; when no answer came, end the session and resume later.",
    )


class ResumeArgs(_Args):
    id: str = _decision_id()


class SchemaArgs(_Args):
    pass


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its arguments model, what it returns, and the call into the API."""

    name: str
    description: str
    input_schema: Callable[[], dict[str, Any]]
    output: Any
    call: Callable[[_Backlog, dict[str, Any]], Any]
    annotations: types.ToolAnnotations


class _Backlog:
    """The server's one backlog: opened on first use, used by one call at a time."""

    def __init__(self, open_backlog: Callable[[], Backlog]) -> None:
        self._open = open_backlog
        self._backlog: Backlog | None = None
        self.lock = threading.Lock()

    def get(self) -> Backlog:
        if self._backlog is None:
            self._backlog = self._open()
        return self._backlog

    def run(self, action: Callable[[Backlog], Any]) -> Any:
        with self.lock:
            return action(self.get())

    def wait(self, decision_id: str, timeout: str) -> ResumeContext:
        """:meth:`Backlog.wait`, holding the backlog only while polling, not while sleeping."""
        seconds = Duration.of(timeout, what="timeout", allow_zero=True).seconds
        with self.lock:
            backlog = self.get()
        poll = poller(backlog.tracker, backlog.config, decision_id)
        first, longest = POLL_SCHEDULE.get(backlog.backend, DEFAULT_POLL)

        def guarded() -> Any:
            with self.lock:
                return poll()

        return ResumeContext.of(wait_for_answer(guarded, seconds, first=first, longest=longest))


def _args(model: type[_Args], arguments: dict[str, Any]) -> Any:
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "arguments", model.model_fields)) from None


def _park_schema() -> dict[str, Any]:
    """``{"result": <the agent result schema>}``, with the schema's definitions at the root."""
    schema = result_json_schema()
    definitions = schema.pop("$defs", {})
    for keyword in ("$schema", "$id"):
        schema.pop(keyword, None)
    return {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
        "additionalProperties": False,
        "$defs": definitions,
    }


def _park(backlog: _Backlog, arguments: dict[str, Any]) -> Any:
    if set(arguments) != {"result"}:
        raise InvalidInput('arguments: give exactly one argument, "result": the agent result object')
    return backlog.run(lambda b: b.park(arguments["result"]))


#: The MCP specification's behaviour hints (clients may use them to skip confirmations): a tool that
#: only reads; one that writes but never deletes or overwrites what someone else recorded, and does
#: nothing more when called again with the same arguments (filing the same result updates the same
#: decision; the gate republishes the same verdict on GitHub).
READS = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITES_IDEMPOTENTLY = types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)


def _schema_of(model: type[BaseModel]) -> Callable[[], dict[str, Any]]:
    return lambda: model.model_json_schema()


def _output(*models: type[BaseModel]) -> dict[str, Any]:
    if len(models) == 1:
        return models[0].model_json_schema()
    schemas = [m.model_json_schema() for m in models]
    definitions: dict[str, Any] = {}
    for schema in schemas:
        definitions.update(schema.pop("$defs", {}))
    return {"type": "object", "anyOf": schemas, "$defs": definitions}


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(
            "park",
            "File your result: a needs_input result becomes a decision (blocking its dependents until an owner "
            "answers), done_with_assumptions a review item, done/failed an inventory checked against the backlog. "
            "Filing the same result again updates the same decision.",
            _park_schema,
            (Filed, Inventory),
            _park,
            WRITES_IDEMPOTENTLY,
        ),
        Tool(
            "show",
            "One decision: question, options, state, owner, answer, dependents.",
            _schema_of(ShowArgs),
            (DecisionView,),
            lambda b, a: b.run(lambda backlog: backlog.show(_args(ShowArgs, a).id)),
            READS,
        ),
        Tool(
            "list",
            "Decisions, oldest first; with answered_since, those answered since then, in the order they were "
            f"answered (the work that can continue). At most limit (default {LIST_LIMIT}); truncated says when "
            "more matched.",
            _schema_of(ListArgs),
            (ListedDecisions,),
            lambda b, a: _list(b, _args(ListArgs, a)),
            READS,
        ),
        Tool(
            "gate",
            "May this branch (ref) or pull request (pr) merge? state is 'blocked' while an open decision blocks it.",
            _schema_of(GateArgs),
            (GateReport,),
            lambda b, a: _gate(b, _args(GateArgs, a)),
            WRITES_IDEMPOTENTLY,
        ),
        Tool(
            "wait",
            "Wait a while for an answer: the resume context, with state 'open' and no answer when none came "
            "(then end your session; the question stays parked).",
            _schema_of(WaitArgs),
            (ResumeContext,),
            lambda b, a: _wait(b, _args(WaitArgs, a)),
            READS,
        ),
        Tool(
            "resume",
            "What a fresh session needs to continue: the question, the answer (an explicit default is an "
            "assumption), who gave it, and your work_so_far, verbatim.",
            _schema_of(ResumeArgs),
            (ResumeContext,),
            lambda b, a: b.run(lambda backlog: backlog.resume(_args(ResumeArgs, a).id)),
            READS,
        ),
        Tool(
            "schema",
            "The JSON Schema of the results park accepts (the rules it cannot state are in its description).",
            _schema_of(SchemaArgs),
            None,
            lambda b, a: (_args(SchemaArgs, a), result_json_schema())[1],
            READS,
        ),
        Tool(
            "cite",
            "As the configured planner, answer a question waiting for you from cited sources, which parkbot checks "
            "(a file matching planner.sources with its lines, or a decision a person answered). Refused, naming "
            "the source, when one does not hold; never guess: pass instead.",
            _schema_of(CiteArgs),
            (Cited, Requested),
            lambda b, a: _cite(b, _args(CiteArgs, a)),
            WRITES_IDEMPOTENTLY,
        ),
        Tool(
            "pass",
            "As the configured planner, hand a question to its owner now: your sources do not answer it.",
            _schema_of(PassArgs),
            (Filed, Requested),
            lambda b, a: _pass(b, _args(PassArgs, a)),
            WRITES_IDEMPOTENTLY,
        ),
    ]
}


def _list(backlog: _Backlog, args: ListArgs) -> ListedDecisions:
    listed: DecisionList = backlog.run(
        lambda b: b.list(
            args.state,
            owner=args.owner,
            origin=args.origin,
            answered_since=args.answered_since,
            awaiting=args.awaiting,
        )
    )
    kept = listed.decisions[: args.limit]
    truncated = len(kept) < listed.count
    note = None
    if truncated:
        note = (
            f"showing the first {len(kept)} of {listed.count} decisions; narrow the query (state, owner, origin, "
            "answered_since) or raise limit to see the rest"
        )
    return ListedDecisions(decisions=kept, count=len(kept), total=listed.count, truncated=truncated, note=note)


def _cite(backlog: _Backlog, args: CiteArgs) -> Cited | Requested:
    return backlog.run(  # type: ignore[no-any-return]
        lambda b: b.cite(args.id, args.answer, args.sources, source="mcp")
    )


def _pass(backlog: _Backlog, args: PassArgs) -> Filed | Requested:
    return backlog.run(lambda b: b.pass_question(args.id, reason=args.reason))  # type: ignore[no-any-return]


def _gate(backlog: _Backlog, args: GateArgs) -> GateReport:
    return backlog.run(lambda b: b.gate(args.ref, pr=args.pr))  # type: ignore[no-any-return]


def _wait(backlog: _Backlog, args: WaitArgs) -> ResumeContext:
    return backlog.wait(args.id, args.timeout)


def _listing() -> list[types.Tool]:
    listed = []
    for tool in TOOLS.values():
        output = None if tool.output is None else _output(*tool.output)
        listed.append(
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.input_schema(),
                output_schema=output,
                annotations=tool.annotations,
            )
        )
    return listed


def _success(data: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data, indent=2))], structured_content=data
    )


#: The next step of a failure, in the words of the tools and their arguments (the core's messages use no
#: surface's syntax; the command line adds ``parkbot ...`` commands, GitHub replies ``/decide ...``): every step
#: the tools can meet (the owners' acts are not tools).
STEPS: dict[Step, str] = {
    "check_id": "the list tool gives the ids",
    "gate_target": "give exactly one of the arguments pr and ref",
    "pr_on_github": "give ref (a branch) instead; pull requests need a server started on GitHub "
    "(PARKBOT_BACKEND=github)",
    "other_backend": "or start the server inside a git repository, or on GitHub (PARKBOT_BACKEND=github)",
}


def mcp_message(exc: ParkbotError) -> str:
    """The message of a tool error: the core's, and the next step (by its ``step``) in terms of tools and arguments."""
    return with_step(exc.message, STEPS.get(exc.step) if exc.step else None)


def _failure(exc: ParkbotError) -> types.CallToolResult:
    error = failure_of(exc, mcp_message(exc))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(error, indent=2))],
        structured_content=error,
        is_error=True,
    )


def build_server(open_backlog: Callable[[], Backlog]) -> Server[Any]:
    """The MCP server over the backlog ``open_backlog`` opens (on the first tool call)."""
    from parkbot.guide import guide_text

    backlog = _Backlog(open_backlog)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_listing())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = TOOLS.get(params.name)
        if tool is None:
            return _failure(InvalidInput(f"no tool {params.name!r}; the tools are {', '.join(TOOLS)}"))
        arguments = dict(params.arguments or {})
        try:
            result = await anyio.to_thread.run_sync(tool.call, backlog, arguments)
        except ParkbotError as exc:
            return _failure(exc)
        return _success(result if isinstance(result, dict) else result.model_dump(mode="json"))

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=guide_text(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(open_backlog: Callable[[], Backlog]) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    server = build_server(open_backlog)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
