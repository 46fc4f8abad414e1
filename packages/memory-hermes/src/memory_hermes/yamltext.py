"""Text-level edits of Hermes's `config.yaml` that keep every byte of the user's file.

Hermes's config is YAML, and PyYAML is Hermes's dependency, not ours, so we never load and
dump the document (that would drop the user's comments and reorder keys). Instead we find
the two top-level keys we touch, `plugins` and `mcp_servers`, and their children by
indentation, insert our lines, and later remove exactly those lines.

Shapes handled: block mappings; block sequences, indented or not (`enabled:` then `- a`);
one-line flow sequences of plain or quoted scalars (`enabled: [a, 'b']`); the empty flow
mapping (`plugins: {}`); comments and blank lines anywhere; LF or CRLF line ends.
Anything else under those keys (a non-empty flow mapping, `null`, a tag, an alias) raises
`ConfigNotEditable` naming the key and what to add by hand, rather than guessing.

Exact round trip: a header line we create (`plugins:`, `enabled:`, `mcp_servers:`) carries
the comment `# added by memory install hermes`; uninstall removes our entries, then any
header with that comment that has nothing left under it. Install then uninstall therefore
restores the file byte for byte (except a missing final newline, which we add to append).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory_hermes.errors import ConfigNotEditable

__all__ = [
    "MARKER",
    "plugin_enabled",
    "plugin_disabled",
    "enable_plugin",
    "disable_plugin",
    "mcp_server_block",
    "server_entry",
    "add_mcp_server",
    "remove_mcp_server",
    "yaml_string",
]

MARKER = "# added by memory install hermes"
_DEFAULT_INDENT = 2


@dataclass
class _Doc:
    lines: list[str]
    newline: str

    @classmethod
    def parse(cls, text: str | None) -> _Doc:
        text = text or ""
        newline = "\r\n" if "\r\n" in text.split("\n", 1)[0] + "\n" else "\n"
        return cls(text.splitlines(keepends=True), newline)

    def text(self) -> str:
        return "".join(self.lines)

    def body(self, index: int) -> str:
        return self.lines[index].rstrip("\r\n")

    def is_content(self, index: int) -> bool:
        stripped = self.body(index).strip()
        return bool(stripped) and not stripped.startswith("#")

    def indent(self, index: int) -> int:
        line = self.body(index)
        return len(line) - len(line.lstrip(" "))

    def find_key(self, key: str, *, start: int, end: int, indent: int) -> int | None:
        """The line of mapping key `key` at exactly `indent` within [start, end)."""
        pattern = _key_pattern(key, indent)
        for index in range(start, end):
            if self.is_content(index) and self.indent(index) == indent and pattern.match(self.body(index)):
                return index
        return None

    def value(self, index: int, key: str) -> str:
        """What follows `key:` on its line, comment removed."""
        line = self.body(index)
        match = _key_pattern(key, self.indent(index)).match(line)
        assert match is not None
        return _strip_comment(line[match.end() :]).strip()

    def block_end(self, header: int, *, dash_at_same_indent: bool = False) -> int:
        """One past the last content line belonging to the key on line `header`."""
        indent = self.indent(header)
        last = header
        for index in range(header + 1, len(self.lines)):
            if not self.is_content(index):
                continue
            own = self.indent(index)
            if own > indent or (dash_at_same_indent and own == indent and _is_item(self.body(index))):
                last = index
                continue
            break
        return last + 1

    def child_indent(self, header: int, end: int) -> int:
        """The indent of the first child of `header`, or the header's plus the default step."""
        for index in range(header + 1, end):
            if self.is_content(index):
                return self.indent(index)
        return self.indent(header) + _DEFAULT_INDENT

    def has_children(self, header: int) -> bool:
        return self.block_end(header, dash_at_same_indent=True) > header + 1

    def insert(self, at: int, new_lines: Sequence[str]) -> None:
        self.lines[at:at] = [line + self.newline for line in new_lines]

    def append(self, new_lines: Sequence[str]) -> None:
        if self.lines and not self.lines[-1].endswith("\n"):
            self.lines[-1] += self.newline
        self.insert(len(self.lines), new_lines)

    def replace_value(self, index: int, key: str, value: str) -> None:
        line = self.lines[index]
        match = _key_pattern(key, self.indent(index)).match(line)
        assert match is not None
        rest = line[match.end() :]
        old = _strip_comment(rest.rstrip("\r\n")).strip()
        start = match.end() + rest.index(old)
        self.lines[index] = line[:start] + value + line[start + len(old) :]


def _key_pattern(key: str, indent: int) -> re.Pattern[str]:
    name = re.escape(key)
    return re.compile(rf"^ {{{indent}}}(?:{name}|\"{name}\"|'{name}')[ \t]*:(?=\s|$)")


def _is_item(line: str) -> bool:
    stripped = line.lstrip(" ")
    return stripped == "-" or stripped.startswith("- ")


def _strip_comment(text: str) -> str:
    quote = ""
    for position, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (position == 0 or text[position - 1] in " \t"):
            return text[:position]
    return text


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _not_editable(key: str, wanted: str) -> ConfigNotEditable:
    return ConfigNotEditable(f"`{key}` in Hermes's config.yaml has a shape we do not edit; add {wanted} by hand")


# -- plugins.enabled -------------------------------------------------------------------------


def _enabled_items(doc: _Doc, header: int) -> list[int]:
    end = doc.block_end(header, dash_at_same_indent=True)
    return [i for i in range(header + 1, end) if doc.is_content(i) and _is_item(doc.body(i))]


def _item_value(doc: _Doc, index: int) -> str:
    return _unquote(_strip_comment(doc.body(index).lstrip(" ")[1:]))


def _flow_items(value: str) -> list[str] | None:
    if not (value.startswith("[") and value.endswith("]")) or any(c in value[1:-1] for c in "[]{}"):
        return None
    inner = value[1:-1]
    return [_unquote(part) for part in inner.split(",")] if inner.strip() else []


def _locate_enabled(doc: _Doc, key: str = "enabled") -> tuple[int | None, int | None]:
    plugins = doc.find_key("plugins", start=0, end=len(doc.lines), indent=0)
    if plugins is None:
        return None, None
    value = doc.value(plugins, "plugins")
    if value:
        return plugins, None
    end = doc.block_end(plugins)
    enabled = doc.find_key(key, start=plugins + 1, end=end, indent=doc.child_indent(plugins, end))
    return plugins, enabled


def plugin_disabled(text: str | None, name: str) -> bool:
    """Whether `plugins.disabled` lists `name` (Hermes's deny-list, which wins over `enabled`)."""
    doc = _Doc.parse(text)
    _, disabled = _locate_enabled(doc, "disabled")
    if disabled is None:
        return False
    value = doc.value(disabled, "disabled")
    if value:
        return name in (_flow_items(value) or [])
    return any(_item_value(doc, i) == name for i in _enabled_items(doc, disabled))


def plugin_enabled(text: str | None, name: str) -> bool:
    """Whether `plugins.enabled` lists `name`."""
    doc = _Doc.parse(text)
    plugins, enabled = _locate_enabled(doc)
    if plugins is not None and enabled is None:
        value = doc.value(plugins, "plugins")
        return value == f"{{enabled: [{name}]}}"
    if enabled is None:
        return False
    value = doc.value(enabled, "enabled")
    if value:
        return name in (_flow_items(value) or [])
    return any(_item_value(doc, i) == name for i in _enabled_items(doc, enabled))


def enable_plugin(text: str | None, name: str) -> str:
    """`text` with `name` added to `plugins.enabled` (unchanged when it is already there)."""
    if plugin_enabled(text, name):
        return text or ""
    doc = _Doc.parse(text)
    wanted = f"`{name}` to plugins.enabled"
    plugins, enabled = _locate_enabled(doc)
    if plugins is None:
        doc.append([f"plugins:  {MARKER}", f"  enabled:  {MARKER}", f"    - {name}"])
        return doc.text()
    value = doc.value(plugins, "plugins")
    if value == "{}":
        doc.replace_value(plugins, "plugins", f"{{enabled: [{name}]}}")
        return doc.text()
    if value:
        raise _not_editable("plugins", wanted)
    if enabled is None:
        end = doc.block_end(plugins)
        step = doc.child_indent(plugins, end)
        doc.insert(plugins + 1, [f"{' ' * step}enabled:  {MARKER}", f"{' ' * (step + _DEFAULT_INDENT)}- {name}"])
        return doc.text()
    value = doc.value(enabled, "enabled")
    if value:
        listed = _flow_items(value)
        if listed is None:
            raise _not_editable("plugins.enabled", wanted)
        doc.replace_value(enabled, "enabled", f"{value[:-1].rstrip()}, {name}]" if listed else f"[{name}]")
        return doc.text()
    items = _enabled_items(doc, enabled)
    if items:
        end = doc.block_end(enabled, dash_at_same_indent=True)
        doc.insert(end, [f"{' ' * doc.indent(items[0])}- {name}"])
    else:
        doc.insert(enabled + 1, [f"{' ' * (doc.indent(enabled) + _DEFAULT_INDENT)}- {name}"])
    return doc.text()


def disable_plugin(text: str | None, name: str) -> str | None:
    """`text` without our `plugins.enabled` entry (and any header we created that is now empty).

    Returns None when nothing is left of the file (we created it).
    """
    if not plugin_enabled(text, name):
        return text
    doc = _Doc.parse(text)
    plugins, enabled = _locate_enabled(doc)
    assert plugins is not None
    if enabled is None:
        doc.replace_value(plugins, "plugins", "{}")
        return doc.text()
    value = doc.value(enabled, "enabled")
    if value:
        doc.replace_value(enabled, "enabled", _without_flow_item(value, name))
        return doc.text()
    for index in reversed(_enabled_items(doc, enabled)):
        if _item_value(doc, index) == name and doc.block_end(index) == index + 1:
            del doc.lines[index]
    _drop_if_ours_and_empty(doc, enabled)
    _drop_if_ours_and_empty(doc, plugins)
    return _result(doc)


def _without_flow_item(value: str, name: str) -> str:
    parts = value[1:-1].split(",")
    for position, part in enumerate(parts):
        if _unquote(part) == name:
            if position == 0:
                rest = ",".join(parts[1:]).lstrip()
                return f"[{rest}]"
            return "[" + ",".join(parts[:position] + parts[position + 1 :]) + "]"
    return value


def _drop_if_ours_and_empty(doc: _Doc, header: int) -> None:
    if MARKER in doc.body(header) and not doc.has_children(header):
        del doc.lines[header]


def _result(doc: _Doc) -> str | None:
    text = doc.text()
    return text if text.strip() else None


# -- mcp_servers -----------------------------------------------------------------------------


def _locate_servers(doc: _Doc) -> int | None:
    return doc.find_key("mcp_servers", start=0, end=len(doc.lines), indent=0)


def mcp_server_block(text: str | None, name: str) -> str | None:
    """The text of server `name` under `mcp_servers` (its lines, or its flow value), or None."""
    doc = _Doc.parse(text)
    servers = _locate_servers(doc)
    if servers is None:
        return None
    value = doc.value(servers, "mcp_servers")
    if value:
        return value if re.match(rf"^\{{\s*{re.escape(name)}\s*:", value) else None
    end = doc.block_end(servers)
    entry = doc.find_key(name, start=servers + 1, end=end, indent=doc.child_indent(servers, end))
    if entry is None:
        return None
    return "".join(doc.lines[entry : doc.block_end(entry)])


_COMMAND = re.compile(r"""\bcommand:[ \t]*("(?:[^"\\]|\\.)*"|'[^']*'|[^,}\s#][^,}\n#]*)""")
_FLOW_ARGS = re.compile(r"\bargs:[ \t]*\[([^\]]*)\]")
_BLOCK_ARGS = re.compile(r"\bargs:[ \t]*(?:#.*)?\r?\n((?:[ \t]*-[ \t]*[^\n]*\n?)+)")


def _scalar(text: str) -> str:
    text = _strip_comment(text).strip()
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            return _unquote(text)
        return value if isinstance(value, str) else text
    return _unquote(text)


def server_entry(block: str) -> dict[str, object]:
    """The `command` and `args` of one MCP server's text (`mcp_server_block`), in any shape we or
    Hermes write it (block or flow mapping, flow or block sequence); what is absent is left out.
    """
    entry: dict[str, object] = {}
    if command := _COMMAND.search(block):
        entry["command"] = _scalar(command.group(1))
    if flow := _FLOW_ARGS.search(block):
        entry["args"] = [_scalar(part) for part in flow.group(1).split(",") if part.strip()]
    elif items := _BLOCK_ARGS.search(block):
        entry["args"] = [_scalar(line.strip()[1:]) for line in items.group(1).splitlines() if line.strip()]
    return entry


def _only_flow_entry(value: str, name: str) -> bool:
    """Whether a flow mapping holds exactly one entry, `name: {...}` (quotes respected)."""
    prefix = re.match(rf"^\{{\s*{re.escape(name)}\s*:\s*\{{", value)
    if prefix is None:
        return False
    depth, quote = 1, ""
    for position in range(prefix.end(), len(value)):
        char = value[position]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return value[position + 1 :].strip() == "}"
    return False


def _render_fields(fields: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in fields)


def add_mcp_server(text: str | None, name: str, fields: Sequence[tuple[str, str]]) -> str:
    """`text` with server `name` under `mcp_servers`, `fields` being (key, YAML flow value) pairs.

    The caller removes a previous version of our entry first; an entry of that name already
    present is left alone.
    """
    if mcp_server_block(text, name) is not None:
        return text or ""
    doc = _Doc.parse(text)
    servers = _locate_servers(doc)
    if servers is None:
        doc.append([f"mcp_servers:  {MARKER}", f"  {name}:", *(f"    {k}: {v}" for k, v in fields)])
        return doc.text()
    value = doc.value(servers, "mcp_servers")
    if value == "{}":
        doc.replace_value(servers, "mcp_servers", f"{{{name}: {{{_render_fields(fields)}}}}}")
        return doc.text()
    if value:
        raise _not_editable("mcp_servers", f"a server `{name}` ({_render_fields(fields)})")
    end = doc.block_end(servers)
    step = doc.child_indent(servers, end)
    inner = " " * (2 * step)
    doc.insert(servers + 1, [f"{' ' * step}{name}:", *(f"{inner}{k}: {v}" for k, v in fields)])
    return doc.text()


def remove_mcp_server(text: str | None, name: str) -> str | None:
    """`text` without server `name` (and `mcp_servers:` itself if we created it and it is empty).

    Returns None when nothing is left of the file (we created it).
    """
    if mcp_server_block(text, name) is None:
        return text
    doc = _Doc.parse(text)
    servers = _locate_servers(doc)
    assert servers is not None
    value = doc.value(servers, "mcp_servers")
    if value:
        if not _only_flow_entry(value, name):
            raise ConfigNotEditable(f"remove the MCP server `{name}` from mcp_servers in Hermes's config.yaml by hand")
        doc.replace_value(servers, "mcp_servers", "{}")
        return doc.text()
    end = doc.block_end(servers)
    entry = doc.find_key(name, start=servers + 1, end=end, indent=doc.child_indent(servers, end))
    assert entry is not None
    del doc.lines[entry : doc.block_end(entry)]
    _drop_if_ours_and_empty(doc, servers)
    return _result(doc)


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(value, ensure_ascii=False)
