"""Run the server: `memory-mcp [--http HOST:PORT]`, `python -m memory_mcp`, and `memory mcp`.

`register` adds the `mcp` subcommand to the core `memory` CLI (entry point group `memory.cli`).
Without `--http` the server speaks MCP over stdio, which is how the harnesses start it: stdout
carries only the protocol, diagnostics go to stderr. With `--http` it serves streamable HTTP
(`memory_mcp.http_transport` has the token rules).

Failure: a bad address is a usage error (exit 2, from argparse); a refusal to serve or an
address that cannot be bound prints one `<prog>: error: ...` line and exits 1. Nothing heavy
(the MCP SDK, pydantic, uvicorn) is imported until the server actually runs, so loading the
subcommand costs the `memory` CLI nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from memory_mcp.address import parse_address, refusal
from memory_mcp.version import __version__

__all__ = ["main", "register", "run"]

_DESCRIPTION = (
    "Serve the memory MCP tools (memory_search, memory_save, memory_feedback, memory_status, memory_forget, "
    "memory_expand) over stdio, or over streamable HTTP with --http."
)
_HTTP_HELP = (
    "serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 picks a free port). Off loopback, "
    "MEMORY_MCP_TOKEN must be set; clients then send 'Authorization: Bearer <token>'."
)


def _address(text: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--http", metavar="HOST:PORT", type=_address, default=None, help=_HTTP_HELP)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory mcp [--http HOST:PORT]` to the core CLI."""
    parser = subparsers.add_parser("mcp", help="run the MCP server (stdio, or --http)", description=_DESCRIPTION)
    _add_arguments(parser)
    parser.set_defaults(func=run, mcp_prog="memory")


def run(args: argparse.Namespace) -> int:
    """Serve until the client goes away (stdio) or the process is interrupted (HTTP); the exit code."""
    prog = getattr(args, "mcp_prog", "memory-mcp")
    address: tuple[str, int] | None = args.http
    token: str | None = None
    if address is not None:
        from memory_core.config import Config

        token = Config.from_env().mcp_token
        # Checked before the SDK is imported: a refusal should be instant, and bind nothing.
        if reason := refusal(address[0], token):
            sys.stderr.write(f"{prog}: error: {reason}\n")
            return 1

    from memory_mcp.runner import ServiceRunner
    from memory_mcp.server import build_server

    runner = ServiceRunner()
    try:
        server = build_server(runner)
        if address is None:
            server.run("stdio")
            return 0
        from memory_mcp.http_transport import HttpRefused, serve_http

        try:
            serve_http(server, *address, token=token)
        except (HttpRefused, OSError) as exc:
            sys.stderr.write(f"{prog}: error: {exc}\n")
            return 1
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        runner.close()


def main(argv: Sequence[str] | None = None) -> int:
    """The `memory-mcp` console script."""
    parser = argparse.ArgumentParser(prog="memory-mcp", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_arguments(parser)
    args: Any = parser.parse_args(argv)
    return run(args)
