"""The six tools, their descriptions and argument schemas, registered on an `MCPServer`.

The names are frozen (clients and tests refer to them literally): `memory_search`,
`memory_save`, `memory_feedback`, `memory_status`, `memory_forget`, `memory_expand`. The
descriptions are written for the model that chooses among them, so they say when to call
each one, what comes back, and that recall already happens on every turn without them.

Each tool is a thin call into `MemoryService` through the `ServiceRunner`. Success is one
JSON text block, plus the same object as structured content when the result is an object.
Any failure is an error result with a readable message (`failures`), never a traceback. With
memory switched off, no tool but `memory_status` touches the store. A deliberate search goes
through `MemoryService.search`, which touches no session's state: it neither counts as nor
suppresses the turn's automatic recall.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent, ToolAnnotations
from memory_core.errors import NotFound
from pydantic import Field

from memory_mcp.failures import SwitchedOff, describe_failure
from memory_mcp.results import events_result, hit_result, record_result, saved_result

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from memory_core.service import MemoryService

    from memory_mcp.runner import ServiceRunner

__all__ = ["TOOL_NAMES", "register_tools"]

TOOL_NAMES = ("memory_search", "memory_save", "memory_feedback", "memory_status", "memory_forget", "memory_expand")

_MAX_LIMIT = 50
_MAX_RADIUS = 5

Query = Annotated[
    str,
    Field(
        min_length=1,
        description="A few distinctive words: names of files, functions, commands, errors or tools. Not a sentence.",
    ),
]
Limit = Annotated[int, Field(ge=1, le=_MAX_LIMIT, description="How many results at most (1 to 50).")]
ScopeArg = Annotated[
    Literal["project", "user"],
    Field(description="`project`: this project only (the default). `user`: every project, for this user."),
]
SearchScope = Annotated[
    Literal["project", "user"] | None,
    Field(description="Leave out to search both. `project`: only this project's. `user`: only the user's own."),
]
Author = Annotated[
    str | None,
    Field(
        description="Only memories this teammate captured or saved (their user name, MEMORY_USER); "
        "`me` for your own. Leave out for everyone's: in a team's shared store recall reads them all."
    ),
]
MemoryId = Annotated[
    str,
    Field(min_length=1, description="A memory's `id`, as memory_search gave it or a recalled memory showed it."),
]
Content = Annotated[
    str,
    Field(min_length=1, description="One self-contained statement, with the words someone would later search for."),
]
OutcomeArg = Annotated[
    Literal["acted", "contradicted"],
    Field(description="`acted`: you relied on it and it held. `contradicted`: it is wrong or out of date."),
]
Radius = Annotated[int, Field(ge=1, le=_MAX_RADIUS, description="How many turns before and after to include (1 to 5).")]

SEARCH = """\
Search long-term memory: this project's earlier conversation turns (the user's prompt with the \
assistant's answer, kept verbatim), notes saved with memory_save, and the user's own cross-project \
notes.

Relevant memories are already recalled automatically on every turn and appear in your context \
without any tool call. Call this only to look for something specific that was not recalled: a past \
decision and its reason, a command that worked, what the user said about a topic. Searching here \
does not use up or change that automatic recall.

Use a few distinctive keywords rather than a sentence. Returns a JSON list, best match first, of \
{id, text, score, scope, created_at, session}; an empty list means nothing relevant was found. Pass \
an `id` to memory_expand to read the turns around it, to memory_feedback to say whether it held, or \
to memory_forget to delete it."""

SAVE = """\
Save a fact to long-term memory on purpose, so it is recalled automatically in later sessions.

Every turn is already captured verbatim without any tool call, so save only what should stand on \
its own: a decision and its reason, a project convention, a command that works, a user preference. \
Write one self-contained statement with the words someone would search for, e.g. "Run the tests \
with `tox -e py311`; plain pytest misses the Redis fixtures."

scope `project` (the default) keeps it to this project; `user` makes it hold in every project for \
this user (personal preferences). A secret firewall redacts credentials and removes \
<private>...</private> spans before anything is stored; if nothing is left the call fails as a \
firewall block. Returns {id, text, scope, created_at}, where text is exactly what was stored."""

FEEDBACK = """\
Say whether a memory you were shown (recalled automatically or found with memory_search) was right.

`acted`: you relied on it and it held; its standing rises and it is recalled more readily. \
`contradicted`: it is wrong or out of date; its standing drops so it stops being recalled, without \
being deleted (memory_forget deletes). Returns {id, outcome, standing}."""

STATUS = """\
Report memory's health: the store in use and whether it answers, this project's key, how many \
memories there are, whether capture and the secret firewall are on, and recent errors: the same \
facts as `memory doctor --json`. Call it when memory seems absent or another memory tool failed. \
Returns a JSON object."""

FORGET = """\
Delete one memory permanently, by `id`. Use it when the user asks to forget something or a memory \
holds what must not be kept. To mark a memory as wrong but keep it, use memory_feedback with \
`contradicted` instead. Returns {id, forgotten}."""

EXPAND = """\
Read a memory in its context: the memory with the turns just before and after it in the same \
session, in order, each with its full text, and what happened inside the memory's own turn: the \
tool calls it made (files read and edited, commands run), what they printed, and text a hook or a \
skill put into the context. Use it when a search result or a recalled memory is cut short, only \
makes sense with the conversation around it, or you need the exact file, command or output. \
Returns a JSON list of {id, text, scope, created_at, session, target}; the item with `target` true \
is the memory you asked about and also has `events` (in order: {kind, name, text, call_id}, kind \
`tool_call`, `tool_result` or `injected`) and `events_left_out`."""


def _expanded(service: MemoryService, record_id: str, radius: int) -> list[dict[str, Any]]:
    turns = [record_result(r, target=r.id == record_id) for r in service.expand(record_id, radius=radius)]
    for turn in turns:
        if turn["target"]:
            turn.update(events_result(service.timeline(record_id)))
    return turns


def _ok(data: Any) -> CallToolResult:
    # Structured content must be an object, so a list would travel wrapped as {"result": [...]};
    # clients that prefer it (Claude Code does) would then show the model the wrapper instead of
    # the list. A list result is therefore sent as the JSON text alone.
    text = json.dumps(data, ensure_ascii=False, default=str)
    structured = data if isinstance(data, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def register_tools(server: MCPServer[Any], runner: ServiceRunner) -> None:
    """Add the six memory tools to `server`; each calls the service through `runner`."""

    async def call(tool: str, work: Callable[[MemoryService], Any], *, gated: bool = True) -> CallToolResult:
        def guarded(service: MemoryService) -> Any:
            # The kill switch means no store is touched at all; only the status report still runs,
            # because it is how the user sees that memory is off.
            if gated and not service.active():
                raise SwitchedOff
            return work(service)

        try:
            return _ok(await runner.call(guarded))
        except Exception as exc:  # noqa: BLE001 - every failure becomes an error result, by design
            return _error(describe_failure(tool, exc))

    async def memory_search(
        query: Query, limit: Limit = 10, scope: SearchScope = None, author: Author = None
    ) -> CallToolResult:
        def search(s: MemoryService) -> list[dict[str, Any]]:
            who = s.config.user if author == "me" else author
            return [hit_result(hit) for hit in s.search(query, scope=scope, limit=limit, author=who)]

        return await call("memory_search", search)

    async def memory_save(content: Content, scope: ScopeArg = "project") -> CallToolResult:
        return await call("memory_save", lambda s: saved_result(s.save(content, scope=scope)))

    async def memory_feedback(id: MemoryId, outcome: OutcomeArg) -> CallToolResult:
        return await call(
            "memory_feedback", lambda s: {"id": id, "outcome": outcome, "standing": s.feedback(id, outcome)}
        )

    def status(service: MemoryService) -> dict[str, Any]:
        # The promise is "the same facts as `memory doctor --json`", so it is the same service call.
        return service.doctor_report(Path(service.cwd) if service.cwd else None)

    async def memory_status() -> CallToolResult:
        return await call("memory_status", status, gated=False)

    def forget(service: MemoryService, record_id: str) -> dict[str, Any]:
        if service.forget([record_id]) == 0:
            raise NotFound(f"no memory has the id {record_id!r} in this project or this user's memories")
        return {"id": record_id, "forgotten": True}

    async def memory_forget(id: MemoryId) -> CallToolResult:
        return await call("memory_forget", lambda s: forget(s, id))

    async def memory_expand(id: MemoryId, radius: Radius = 1) -> CallToolResult:
        return await call(
            "memory_expand",
            lambda s: _expanded(s, id, radius),
        )

    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    tools: list[tuple[Callable[..., Awaitable[CallToolResult]], str, str, ToolAnnotations]] = [
        (memory_search, SEARCH, "Search memory", read_only),
        (memory_save, SAVE, "Save to memory", ToolAnnotations(read_only_hint=False, destructive_hint=False)),
        (
            memory_feedback,
            FEEDBACK,
            "Rate a memory",
            ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
        ),
        (memory_status, STATUS, "Memory status", read_only),
        (
            memory_forget,
            FORGET,
            "Forget a memory",
            ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False),
        ),
        (memory_expand, EXPAND, "Memory in context", read_only),
    ]
    for fn, description, title, hints in tools:
        server.add_tool(
            fn, name=fn.__name__, title=title, description=description, annotations=hints, structured_output=False
        )
