"""What the hook prints: one JSON object Codex reads, or nothing at all; never over Codex's limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_codex.adapter import CODEX_CONTEXT_LIMIT_TOKENS, MAX_CONTEXT_TOKENS, CodexHooks
from memory_core.models import EventKind, HookEvent, Recall

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def read_event() -> HookEvent:
    payload: dict[str, Any] = json.loads((FIXTURES / "UserPromptSubmit.json").read_text())
    return CodexHooks().parse(payload)


def test_recall_renders_as_the_one_object_codex_reads() -> None:
    out = CodexHooks().render(read_event(), Recall(text="- the build uses tox"))
    assert json.loads(out) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "- the build uses tox"}
    }
    assert "\n" not in out  # one line, written once


def test_nothing_recalled_prints_nothing() -> None:
    assert CodexHooks().render(read_event(), Recall(text="")) == ""
    assert CodexHooks().render(read_event(), Recall(text="  \n")) == ""


@pytest.mark.parametrize("kind", [EventKind.WRITE, EventKind.RESET, EventKind.IGNORE])
def test_only_a_prompt_gets_context(kind: EventKind) -> None:
    assert CodexHooks().render(HookEvent(kind, harness="codex"), Recall(text="something")) == ""


def test_identical_input_renders_byte_identical_output() -> None:
    recall = Recall(text="- déjà vu: the build uses tox\n- secrets live in vault")
    assert CodexHooks().render(read_event(), recall) == CodexHooks().render(read_event(), recall)


def test_output_is_ascii_so_any_stdout_encoding_carries_it() -> None:
    out = CodexHooks().render(read_event(), Recall(text="naïve café ✓"))
    assert out.isascii()
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "naïve café ✓"


def test_the_budget_given_to_the_core_is_below_codexs_limit() -> None:
    assert CodexHooks.max_context_tokens is not None
    assert CodexHooks.max_context_tokens == MAX_CONTEXT_TOKENS < CODEX_CONTEXT_LIMIT_TOKENS


def test_an_oversized_block_is_cut_at_a_line_under_the_limit() -> None:
    lines = [f"- memory {n}: " + "word " * 40 for n in range(400)]
    out = CodexHooks().render(read_event(), Recall(text="\n".join(lines)))
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    # 2.4 characters a token is denser than any prose or code tokenizes.
    assert len(context) / 2.4 < CODEX_CONTEXT_LIMIT_TOKENS
    assert context.split("\n")[-1] in [line.rstrip() for line in lines]  # whole lines only
