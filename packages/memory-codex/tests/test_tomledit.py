"""The config.toml scanner reads table headers as TOML does, and its edits invert exactly."""

from __future__ import annotations

import tomllib

import pytest
from memory_codex._tomledit import append_tables, header, remove_table, set_value, tables
from memory_codex.errors import ConfigFileError

TEXT = """top = 1
  [ a . "b.c" . 'd]e' ]   # spaced, quoted, with a comment
x = "[not.a.header]"
y = '''
[also.not]
'''
z = \"\"\"
[nor.this] \\\"\"\"
\"\"\"
arr = [
  [1, 2],
  { k = "[v]" },
]
[[list]]
n = 1
[[list]]
n = 2
["k\\u00e9y"]
v = 1
"""


def test_headers_are_found_where_toml_finds_tables_and_nowhere_else() -> None:
    found = [(t.key, t.array) for t in tables(TEXT)]
    assert found == [(("a", "b.c", "d]e"), False), (("list",), True), (("list",), True), (("kéy",), False)]
    parsed = tomllib.loads(TEXT)
    assert parsed["a"]["b.c"]["d]e"]["x"] == "[not.a.header]"


def test_a_table_ends_at_its_last_value_not_at_the_comments_after_it() -> None:
    text = "[a]\nx = 1\n# about b\n\n[b]\ny = 2\n"
    first = tables(text)[0]
    assert text[first.start : first.end] == "[a]\nx = 1"


@pytest.mark.parametrize("original", ["", "x = 1", "x = 1\n", "# c\n\n\n", "[t]\nk = 'v'  # c", TEXT])
def test_appending_then_removing_tables_gives_the_text_back(original: str) -> None:
    chunks = [
        f'{header(("mcp_servers", "memory"))}\ncommand = "py"',
        f"{header(('hooks', 'state', '/p:stop:0:0'))}\nh = 1",
    ]
    added = append_tables(original, chunks)
    assert added is not None
    assert tomllib.loads(added)["mcp_servers"]["memory"] == {"command": "py"}
    for table in sorted((t for t in tables(added) if t.key[0] in ("mcp_servers", "hooks")), key=lambda t: -t.start):
        added = remove_table(added, table)
    assert added == original


def test_set_value_replaces_a_multi_line_array_in_place() -> None:
    text = '[s]\nargs = [\n  "a",  # one\n  "b",\n]\nkeep = true\n'
    (table,) = tables(text)
    edited = set_value(text, table, "args", '["c"]')
    assert edited == '[s]\nargs = ["c"]\nkeep = true\n'


def test_an_unreadable_header_is_an_error_not_a_guess() -> None:
    with pytest.raises(ConfigFileError):
        tables("[a.\n")
