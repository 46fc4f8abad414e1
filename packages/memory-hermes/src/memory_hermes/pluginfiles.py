"""The directory plugin's files: copied into `~/.hermes/plugins/memory-hermes/`, removed again.

The copy is two small files (`plugin.yaml`, `__init__.py`) that import `memory_hermes` from
Hermes's interpreter, so a copy does not go stale when the package is upgraded; the installer
re-copies only when a file differs. Hermes leaves a `__pycache__/` beside them once it has
loaded the plugin; uninstall removes that too, and the folder when nothing else is in it (a
file someone added there stays, and so does the folder).

Failure: `OSError` from the file system propagates (the CLI prints it as one line).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from memory_hermes import PLUGIN_NAME

__all__ = ["PLUGIN_FILES", "source_dir", "differs", "PluginCopy", "PluginRemoval", "is_ours"]

PLUGIN_FILES = ("plugin.yaml", "__init__.py")


def source_dir() -> Path:
    """The plugin folder inside this package."""
    return Path(__file__).resolve().parent / "plugin"


def differs(target: Path) -> bool:
    """Whether `target` lacks our plugin files or holds other versions of them."""
    source = source_dir()
    for name in PLUGIN_FILES:
        try:
            if (target / name).read_bytes() != (source / name).read_bytes():
                return True
        except FileNotFoundError:
            return True
    return False


def is_ours(target: Path) -> bool:
    """Whether `target` holds a plugin.yaml naming our plugin."""
    try:
        text = (target / "plugin.yaml").read_text(encoding="utf-8")
    except OSError:
        return False
    return any(line.strip() == f"name: {PLUGIN_NAME}" for line in text.splitlines())


@dataclass(frozen=True, slots=True)
class PluginCopy:
    """Copy our plugin files into `target`."""

    target: Path

    def describe(self) -> str:
        """One line for `--dry-run`."""
        return f"copy the Hermes plugin ({', '.join(PLUGIN_FILES)}) into {self.target}"

    def run(self) -> None:
        """Copy the files (each through a temp file, so Hermes never reads half of one)."""
        self.target.mkdir(parents=True, exist_ok=True)
        for name in PLUGIN_FILES:
            tmp = self.target / f".{name}.tmp"
            shutil.copyfile(source_dir() / name, tmp)
            tmp.replace(self.target / name)


@dataclass(frozen=True, slots=True)
class PluginRemoval:
    """Remove our plugin files (and Hermes's bytecode cache of them) from `target`."""

    target: Path

    def describe(self) -> str:
        """One line for `--dry-run`."""
        return f"remove the Hermes plugin folder {self.target}"

    def run(self) -> None:
        """Remove our files, the cache, and the folder if that leaves it empty."""
        for name in PLUGIN_FILES:
            (self.target / name).unlink(missing_ok=True)
        shutil.rmtree(self.target / "__pycache__", ignore_errors=True)
        try:
            self.target.rmdir()
        except OSError:
            pass  # someone keeps other files here: leave the folder to them
