"""`memory off` / `memory on`: the per-project switch every hook honours."""

from __future__ import annotations

import argparse

from memory_core.cli._common import service
from memory_core.project import set_disabled

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory off` and `memory on`."""
    p = subparsers.add_parser("off", help="stop recall and capture in this project (until `memory on`)")
    p.set_defaults(func=lambda args: _switch(disabled=True))
    p = subparsers.add_parser("on", help="resume recall and capture in this project")
    p.set_defaults(func=lambda args: _switch(disabled=False))


def _switch(*, disabled: bool) -> int:
    svc = service()
    project = svc.project()
    changed = set_disabled(svc.config.state_dir, project.key, disabled)
    state = "off" if disabled else "on"
    print(f"memory is {state} for {project.key}" + ("" if changed else " (it already was)"))
    return 0
