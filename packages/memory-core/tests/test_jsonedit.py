"""The one JSON-edit policy every installer uses (`memory_core.installing.jsonedit`).

What a user notices: a second install writes nothing; install then uninstall gives each file
back byte for byte; the bytes of what we did not change (their formatting, key order, CRLF)
stay; what we add looks like the file around it; a malformed file is refused, never rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_core.installing import backup_path
from memory_core.installing.jsonedit import dump, load_object, planned_text, splice

OURS = {"memory": {"command": "/venv/bin/python", "args": ["-m", "memory_mcp"]}}

FILES = {
    "as-harnesses-write-it": dump({"theme": "dark", "mcpServers": {"docs": {"command": "docs"}}}),
    "no-final-newline": json.dumps({"theme": "dark", "n": [1, 2]}, indent=2),
    "tabs-and-crlf": '{\r\n\t"theme": "dark",\r\n\t"mcpServers": {\r\n\t\t"docs": {"command": "docs"}\r\n\t}\r\n}\r\n',
    "one-line": '{"theme":"dark","mcpServers":{}}',
    "odd-spacing": '{ "mcpServers" :{ "docs":{"command" :"docs"} } ,"x":[ ]}\n',
    "unicode": dump({"name": "Zoë ✓", "mcpServers": {}}),
    "empty-object": "{}\n",
}


def _with_ours(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "mcpServers": {**data.get("mcpServers", {}), **OURS}}


@pytest.mark.parametrize("name", list(FILES))
def test_adding_then_removing_our_entry_gives_the_text_back(name: str) -> None:
    text = FILES[name]
    data = json.loads(text)
    added = splice(text, _with_ours(data))
    assert json.loads(added) == _with_ours(data)
    assert splice(added, data) == text


@pytest.mark.parametrize("name", list(FILES))
def test_only_what_changed_is_written(name: str) -> None:
    text = FILES[name]
    added = splice(text, _with_ours(json.loads(text)))
    # Every byte before our entry is the user's, untouched; CRLF files stay CRLF.
    assert added.startswith(text[: text.find('"mcpServers"')] if '"mcpServers"' in text else "{")
    if "\r\n" in text:
        assert added.count("\n") == added.count("\r\n")


def test_an_entry_added_to_a_file_in_the_harness_format_is_what_the_harness_writes() -> None:
    text = FILES["as-harnesses-write-it"]
    assert splice(text, _with_ours(json.loads(text))) == dump(_with_ours(json.loads(text)))


def test_an_entry_follows_its_siblings_one_line_groups_stay_one_line() -> None:
    text = '{\n    "hooks": {\n        "Stop": [\n            {"hooks": [{"command": "theirs"}]}\n        ]\n    }\n}\n'
    data = json.loads(text)
    data["hooks"]["Stop"].append({"hooks": [{"command": "ours"}]})
    assert splice(text, data) == (
        '{\n    "hooks": {\n        "Stop": [\n            {"hooks": [{"command": "theirs"}]},\n'
        '            {"hooks": [{"command": "ours"}]}\n        ]\n    }\n}\n'
    )


def test_a_changed_value_is_replaced_in_place() -> None:
    text = '{"a": {"command": "/old/python", "env": {"K": "v"}}, "b": 1}'
    assert splice(text, {"a": {"command": "/new/python", "env": {"K": "v"}}, "b": 1}) == (
        '{"a": {"command": "/new/python", "env": {"K": "v"}}, "b": 1}'
    )


def test_true_is_not_one() -> None:
    assert json.loads(splice('{"on": 1}', {"on": True})) == {"on": True}
    assert splice('{"on": 1}', {"on": True}) == '{"on": true}'


def _plan(path: Path, new: Any, **kwargs: Any) -> str | None:
    before = path.read_text(encoding="utf-8") if path.exists() else None
    return planned_text(path, before, load_object(before, path, error=ValueError), new, **kwargs)


def test_unchanged_data_keeps_the_text_so_a_second_install_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{ "a" :1 }', encoding="utf-8")
    assert _plan(path, {"a": 1}) == '{ "a" :1 }'


def test_a_file_that_did_not_exist_is_written_as_the_harnesses_write_json_and_removed_again(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert _plan(path, {"mcpServers": OURS}) == dump({"mcpServers": OURS})
    path.write_text(dump({"mcpServers": OURS}), encoding="utf-8")
    assert _plan(path, {}) is None


def test_uninstall_restores_the_backup_when_nothing_else_changed(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = '{"theme":"dark"}'
    path.write_text(dump({"theme": "dark", "mcpServers": OURS}), encoding="utf-8")  # rewritten by the harness
    backup_path(path).write_text(original, encoding="utf-8")
    assert _plan(path, {"theme": "dark"}) == original
    # What the user changed since is kept: the remainder is spliced, not the old backup restored.
    assert json.loads(_plan(path, {"theme": "light"}) or "") == {"theme": "light"}


def test_two_spellings_of_nothing_bring_back_the_users_own(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    path.write_text(dump({"hooks": {"Stop": [{}]}}), encoding="utf-8")
    backup_path(path).write_text("{}\n", encoding="utf-8")
    assert _plan(path, {"hooks": {}}, nothing=({}, {"hooks": {}})) == "{}\n"
    backup_path(path).unlink()
    assert _plan(path, {"hooks": {}}, nothing=({}, {"hooks": {}})) is None


@pytest.mark.parametrize("text", ["{not json", "[]", '"a string"'])
def test_a_file_that_is_not_a_json_object_is_refused_with_the_harnesss_error(text: str, tmp_path: Path) -> None:
    class SettingsError(Exception):
        pass

    with pytest.raises(SettingsError, match=r"settings\.json"):
        load_object(text, tmp_path / "settings.json", error=SettingsError)
    assert load_object(" \n", tmp_path / "settings.json", error=SettingsError) == {}
