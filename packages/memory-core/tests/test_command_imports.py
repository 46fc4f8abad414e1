"""`command_imports`: what a status check learns by asking an interpreter to import a module."""

from __future__ import annotations

import sys
from pathlib import Path

from memory_core.installing import command_imports


def test_an_interpreter_that_imports_the_module_passes() -> None:
    assert command_imports(sys.executable, "memory_core.installing") == (True, "")


def test_a_module_the_interpreter_lacks_fails_with_the_import_error() -> None:
    ok, why = command_imports(sys.executable, "memory_no_such_module")
    assert not ok
    assert "ModuleNotFoundError" in why
    assert "memory_no_such_module" in why


def test_an_interpreter_that_is_gone_fails_saying_it_did_not_run(tmp_path: Path) -> None:
    gone = str(tmp_path / "bin" / "python3")
    ok, why = command_imports(gone, "json")
    assert not ok
    assert why.startswith(f"{gone} did not run")


def test_an_interpreter_that_hangs_fails_within_the_bound(tmp_path: Path) -> None:
    hangs = tmp_path / "python3"
    hangs.write_text("#!/bin/sh\nexec sleep 30\n")
    hangs.chmod(0o755)
    ok, why = command_imports(str(hangs), "json", timeout=0.5)
    assert not ok
    assert "within 0.5 s" in why
