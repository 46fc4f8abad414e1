"""What a turn touched: the files its tool calls read or wrote and the programs its commands ran.

These become extra index terms of the turn's record (`touched_terms`), so a question naming
`src/auth/session.ts` finds the turn that edited it even when neither the prompt nor the answer
named the file. Only the turn is ranked; the events themselves are never indexed.

What counts, from a tool call's arguments (a JSON object; anything else is passed over):
- a path: the values of `file_path`, `path`, `notebook_path`, `filePath`, `filename`, and each
  string of `paths`, with its last one to `_SUFFIX_PARTS` parts (`session.ts`,
  `auth/session.ts`, `src/auth/session.ts`): harnesses send absolute paths, people name files
  from the repository's root, and the terms must not depend on where the clone sits;
- a program: the first word of each segment of a shell command (`command`/`cmd`, a string or
  an argv list; `bash -lc SCRIPT` is read as SCRIPT), split at `|`, `||`, `&&`, `;` and new
  lines, past `VAR=value` assignments and `sudo`/`env`/`time`/`exec`/`nohup`;
- an `apply_patch` header (`*** Update File: PATH`, `*** Add File:`, `*** Delete File:`,
  `*** Move to:`), wherever it sits in the arguments.

Reads only what the firewall already passed (the caller's promise), so no secret becomes a
term. Never raises.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator
from typing import Any

from memory_core.models import TimelineEvent
from memory_core.retrieval.tokenizer import index_terms

__all__ = ["touched", "touched_terms"]

_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "filename")
_COMMAND_KEYS = ("command", "cmd")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish"})
_PREFIXES = frozenset({"sudo", "env", "time", "exec", "nohup", "command", "builtin"})
_NOT_PROGRAMS = frozenset({"cd", "pushd", "popd", "export", "set", "true", "false", ":"})
"""Shell built-ins that say nothing about what a turn did: every other segment starts with one."""
_SEGMENT = re.compile(r"\|\||&&|[|;\n&]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PATCH_HEADER = re.compile(r"^\*\*\* (?:Update File|Add File|Delete File|Move to): *(.+?) *$", re.MULTILINE)
_MAX_ITEMS = 200
"""Paths and programs kept per turn: a turn that globbed a thousand files is not a thousand terms."""
_MAX_PATH_CHARS = 300
_SUFFIX_PARTS = 4
"""Trailing parts of a path kept as terms: `src/auth/session.ts` is three, a monorepo's
`packages/x/src/y.py` four."""


def touched(events: Iterable[TimelineEvent]) -> list[str]:
    """The distinct paths and programs of `events`' tool calls, in the order first met."""
    found: dict[str, None] = {}
    for event in events:
        if event.kind != "tool_call":
            continue
        for item in _from_call(event.text):
            item = item.strip()
            if item and len(item) <= _MAX_PATH_CHARS:
                found.setdefault(item, None)
            if len(found) >= _MAX_ITEMS:
                return list(found)
    return list(found)


def touched_terms(events: Iterable[TimelineEvent]) -> dict[str, int]:
    """The index terms of what `events` touched, each counted once (the tokenizer splits paths)."""
    terms: dict[str, int] = {}
    for item in touched(events):
        for term in index_terms(item):
            terms[term] = 1
    return terms


def _from_call(text: str) -> Iterator[str]:
    try:
        args = json.loads(text)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        # A freeform call (Codex's `apply_patch` sends the patch itself, not JSON).
        for header in _PATCH_HEADER.findall(text):
            yield from _path(header)
        return
    for value in args.values():
        if isinstance(value, str) and "*** " in value:
            for header in _PATCH_HEADER.findall(value):
                yield from _path(header)
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            yield from _path(value)
    paths = args.get("paths")
    if isinstance(paths, list):
        for value in paths[:_MAX_ITEMS]:
            if isinstance(value, str):
                yield from _path(value)
    for key in _COMMAND_KEYS:
        yield from _programs(args.get(key))


def _path(value: str) -> Iterator[str]:
    value = value.strip()
    if not value or "\n" in value:
        return
    yield value
    parts = [part for part in value.replace("\\", "/").split("/") if part and part != "."]
    for count in range(1, min(_SUFFIX_PARTS, len(parts)) + 1):
        yield "/".join(parts[-count:])


def _programs(command: Any) -> Iterator[str]:
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) >= 3 and posixpath.basename(command[0]) in _SHELLS and command[1] in ("-c", "-lc", "-ic"):
            command = command[2]
        elif command:
            yield posixpath.basename(command[0])
            return
    if not isinstance(command, str):
        return
    for segment in _SEGMENT.split(command):
        try:
            words = shlex.split(segment, comments=True)
        except ValueError:
            words = segment.split()
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES):
            words.pop(0)
        if words and not words[0].startswith("-") and words[0] not in _NOT_PROGRAMS:
            yield posixpath.basename(words[0])
