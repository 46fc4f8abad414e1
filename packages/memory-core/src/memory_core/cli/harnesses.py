"""Harness commands: `install`, `uninstall`, `hook`, `import` for each installed harness package.

The harness names come from the entry point group `memory.harnesses`; a harness package
that is not installed is named in the error with the pip command that adds it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_core.harnesses.contract import Harness, discover_harnesses
from memory_core.installing import apply_plan

__all__ = ["register", "load"]

_PACKAGES = {
    "claude": "memory-claude",
    "codex": "memory-codex",
    "hermes": "memory-hermes",
    "openclaw": "memory-openclaw",
}


def load(name: str) -> Harness:
    """The installed harness called `name`. Raises `ValueError` naming what to install."""
    found, broken = discover_harnesses()
    if name in found:
        return found[name]
    if name in broken:
        raise ValueError(f"the {name} harness package is installed but broken: {broken[name]}")
    package = _PACKAGES.get(name, f"memory-{name}")
    known = ", ".join(sorted(found)) or "none"
    raise ValueError(
        f"no harness called {name!r} is installed (installed: {known}); add it with: pip install {package}"
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory install`, `uninstall` and `hook`."""
    for verb in ("install", "uninstall"):
        p = subparsers.add_parser(verb, help=f"{verb} memory's hooks and MCP server in a harness")
        p.add_argument("harness", help="claude, codex, hermes or openclaw")
        p.add_argument("--scope", default=None, help="the harness's own scope (default: its first)")
        p.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
        p.add_argument("--project-dir", default=None, help="the project for project scopes (default: here)")
        p.set_defaults(func=cmd_install if verb == "install" else cmd_uninstall)

    p = subparsers.add_parser("hook", help="run a harness hook (payload on stdin); what the installed hooks call")
    p.add_argument("harness")
    p.set_defaults(func=cmd_hook)


def _plan_args(args: argparse.Namespace) -> tuple[Harness, str, Path]:
    harness = load(args.harness)
    scope = args.scope or harness.scopes[0]
    if scope not in harness.scopes:
        raise ValueError(f"{harness.display_name} scopes are {', '.join(harness.scopes)}, not {scope!r}")
    return harness, scope, Path(args.project_dir or Path.cwd()).resolve()


def cmd_install(args: argparse.Namespace) -> int:
    harness, scope, project_dir = _plan_args(args)
    plan = harness.plan_install(scope, project_dir=project_dir)
    changed = apply_plan(plan, dry_run=args.dry_run, out=sys.stdout)
    if args.dry_run:
        print("dry run: nothing was written" if changed else f"{harness.display_name}: already installed ({scope})")
    else:
        print(
            f"{harness.display_name}: installed ({scope})" if changed else f"{harness.display_name}: already installed"
        )
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    harness, scope, project_dir = _plan_args(args)
    plan = harness.plan_uninstall(scope, project_dir=project_dir)
    changed = apply_plan(plan, dry_run=args.dry_run, out=sys.stdout)
    if args.dry_run:
        print("dry run: nothing was written" if changed else f"{harness.display_name}: not installed ({scope})")
    else:
        print(f"{harness.display_name}: uninstalled ({scope})" if changed else f"{harness.display_name}: not installed")
    return 0


def cmd_hook(args: argparse.Namespace) -> int:
    from memory_core.hookpath.runner import main

    try:
        harness = load(args.harness)
    except ValueError as exc:
        # A hook exits 0 whatever happens; the reason goes to the log via stderr.
        sys.stderr.write(f"memory: {exc}\n")
        return 0
    main(harness)
    return 0
