"""Text-level edits of Hermes's config.yaml: every shape we accept round-trips byte for byte.

Each edited file is also parsed with PyYAML (here if installed, else in Hermes's own
interpreter, installed into the harness cache on first use), to show Hermes reads what we meant.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from memory_core.installing import fixtures_dir
from memory_hermes.errors import ConfigNotEditable
from memory_hermes.yamltext import (
    MARKER,
    add_mcp_server,
    disable_plugin,
    enable_plugin,
    mcp_server_block,
    plugin_enabled,
    remove_mcp_server,
)

NAME = "memory-hermes"
FIELDS = [("command", '"/opt/my python/bin/python"'), ("args", '["-m", "memory_mcp"]')]

SHAPES = {
    "absent file": None,
    "empty file": "",
    "recorded by Hermes": (fixtures_dir("memory_hermes") / "hermes-config.recorded.yaml").read_text(encoding="utf-8"),
    "no plugins key": "model:\n  default: mock-model\n",
    "no final newline": "model:\n  default: mock-model",
    "plugins without enabled": "plugins:\n  disabled: []\n",
    "plugins with four-space children": "plugins:\n    disabled: []\n",
    "enabled as a block list": "plugins:\n  enabled:\n    - other\n  disabled: []\n",
    "enabled as an unindented block list": "plugins:\n  enabled:\n  - other\n  - 'third'\n",
    "enabled as an empty block": "plugins:\n  enabled:\n  disabled: []\n",
    "enabled as an empty flow list": "plugins:\n  enabled: []  # nothing yet\n",
    "enabled as a flow list": 'plugins:\n  enabled: [other, "third"]\n',
    "plugins as an empty flow mapping": "plugins: {}\nmodel: {default: m}\n",
    "comments between": (
        "# top\nplugins:\n# a comment at column 0\n  enabled:\n    # inside\n    - other\n\n# after\nx: 1\n"
    ),
    "crlf": "model:\r\n  default: m\r\nplugins:\r\n  enabled:\r\n    - other\r\n",
    "mcp servers present": "mcp_servers:\n  files:\n    command: npx\n    args: [-y, server]\n",
    "mcp servers empty flow": "mcp_servers: {}\n",
}


def _load_yaml(*texts: str) -> list[Any]:
    """Parse with PyYAML: here if installed, else in one call to Hermes's own interpreter (harness cache)."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        return [yaml.safe_load(text) for text in texts]
    from .hermes_program import cached_hermes

    python = cached_hermes() / "bin" / "python"
    script = "import json, sys, yaml; print(json.dumps([yaml.safe_load(t) for t in json.load(sys.stdin)]))"
    done = subprocess.run(
        [str(python), "-c", script], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    parsed: list[Any] = json.loads(done.stdout)
    return parsed


def _install(text: str | None) -> str:
    return add_mcp_server(enable_plugin(text, NAME), "memory", FIELDS)


def _uninstall(text: str | None) -> str | None:
    return remove_mcp_server(disable_plugin(text, NAME), "memory")


@pytest.mark.parametrize("before", SHAPES.values(), ids=SHAPES.keys())
def test_install_then_uninstall_restores_the_file_byte_for_byte(before: str | None) -> None:
    after = _install(before)
    assert plugin_enabled(after, NAME)
    assert mcp_server_block(after, "memory") is not None
    restored = _uninstall(after)
    if before is None or before == "":
        assert restored is None  # we created the file: uninstall removes it
    elif not before.endswith("\n"):
        assert restored == before + "\n"  # the one byte we add to append
    else:
        assert restored == before


@pytest.mark.parametrize("before", SHAPES.values(), ids=SHAPES.keys())
def test_a_second_install_changes_nothing(before: str | None) -> None:
    once = _install(before)
    assert _install(once) == once


def test_hermes_reads_our_entries_and_keeps_everything_else() -> None:
    befores = [before or "" for before in SHAPES.values()]
    parsed_all = _load_yaml(*(_install(before) for before in befores), *befores)
    for shape, parsed, original in zip(SHAPES, parsed_all[: len(befores)], parsed_all[len(befores) :], strict=True):
        original = original or {}
        assert NAME in parsed["plugins"]["enabled"], shape
        assert parsed["mcp_servers"]["memory"] == {
            "command": "/opt/my python/bin/python",
            "args": ["-m", "memory_mcp"],
        }, shape
        for key, value in (original.get("plugins") or {}).items():
            if key == "enabled":
                assert set(value or []) <= set(parsed["plugins"]["enabled"]), shape
            else:
                assert parsed["plugins"][key] == value, shape
        for key, value in (original.get("mcp_servers") or {}).items():
            assert parsed["mcp_servers"][key] == value, shape
        for key, value in original.items():
            if key not in ("plugins", "mcp_servers"):
                assert parsed[key] == value, shape


def test_headers_we_create_say_who_added_them() -> None:
    text = _install("model:\n  default: m\n")
    assert text == (
        "model:\n  default: m\n"
        f"plugins:  {MARKER}\n  enabled:  {MARKER}\n    - memory-hermes\n"
        f"mcp_servers:  {MARKER}\n  memory:\n"
        '    command: "/opt/my python/bin/python"\n    args: ["-m", "memory_mcp"]\n'
    )


def test_an_entry_inserted_into_existing_blocks_follows_their_indentation() -> None:
    text = _install("plugins:\n    enabled:\n        - other\nmcp_servers:\n    files:\n        command: npx\n")
    assert "        - other\n        - memory-hermes\n" in text
    assert "mcp_servers:\n    memory:\n        command:" in text


def test_uninstall_leaves_a_list_the_user_also_uses() -> None:
    before = "plugins:\n  enabled:\n    - other\n"
    after = enable_plugin(before, NAME)
    # Hermes's own `hermes plugins enable` may add more later; uninstall takes out only ours.
    with_more = after.replace("    - memory-hermes\n", "    - memory-hermes\n    - later\n")
    assert disable_plugin(with_more, NAME) == "plugins:\n  enabled:\n    - other\n    - later\n"


def test_uninstall_when_hermes_rewrote_the_file_in_its_own_style() -> None:
    # After `hermes plugins enable x`, Hermes re-dumps config.yaml: our comments are gone.
    rewritten = (
        "plugins:\n  enabled:\n  - memory-hermes\n  - x\n"
        "mcp_servers:\n  memory:\n    command: /p\n    args:\n    - -m\n    - memory_mcp\n"
    )
    assert _uninstall(rewritten) == "plugins:\n  enabled:\n  - x\nmcp_servers:\n"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("plugins: {enabled: [a]}\n", "plugins"),
        ("plugins:\n  enabled: !!seq [a]\n", "plugins.enabled"),
        ("plugins:\n  enabled: *anchor\n", "plugins.enabled"),
        ("mcp_servers: {files: {command: npx}}\n", "mcp_servers"),
    ],
)
def test_shapes_we_do_not_understand_are_refused_with_what_to_add(text: str, key: str) -> None:
    with pytest.raises(ConfigNotEditable, match=key.replace(".", r"\.")):
        _install(text)


def test_a_server_named_memory_that_is_not_ours_is_reported_by_its_block() -> None:
    text = "mcp_servers:\n  memory:\n    command: someone-elses\n"
    assert mcp_server_block(text, "memory") == "  memory:\n    command: someone-elses\n"
    assert add_mcp_server(text, "memory", FIELDS) == text


def test_the_python_path_is_written_as_a_yaml_string_whatever_it_holds() -> None:
    from memory_hermes.yamltext import yaml_string

    odd = '/opt/a "quoted" #not-a-comment: dir/python'
    text = add_mcp_server("", "memory", [("command", yaml_string(odd))])
    [parsed] = _load_yaml(text)
    assert parsed["mcp_servers"]["memory"]["command"] == odd
    assert sys.executable  # the installer passes sys.executable through the same function


def test_hermes_deny_list_is_read_in_both_styles() -> None:
    from memory_hermes.yamltext import plugin_disabled

    assert plugin_disabled("plugins:\n  disabled:\n  - memory-hermes\n", NAME)
    assert plugin_disabled("plugins:\n  disabled: [a, 'memory-hermes']\n", NAME)
    assert not plugin_disabled("plugins:\n  enabled: [memory-hermes]\n  disabled: []\n", NAME)
    assert not plugin_disabled(None, NAME)
