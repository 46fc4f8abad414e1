"""memory-testing is test support only: the runtime never needs it, and it ships what it promises."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import files, version
from pathlib import Path

import memory_testing
from memory_testing.version import __version__


def test_the_runtime_loads_neither_pytest_nor_the_test_support() -> None:
    probe = (
        "import sys, memory_core.service, memory_core.cli, memory_core.hookpath.worker; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'memory_testing')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_memory_core_no_longer_carries_its_own_copy() -> None:
    shipped = [str(path) for path in files("memory-core") or []]
    assert not [path for path in shipped if "memory_core/testing" in path]
    done = subprocess.run(
        [sys.executable, "-c", "import memory_core.testing"], capture_output=True, text=True, timeout=60, check=False
    )
    assert "No module named 'memory_core.testing'" in done.stderr


def test_it_is_typed_and_versioned_like_every_package() -> None:
    assert Path(memory_testing.__file__).with_name("py.typed").is_file()
    assert version("memory-testing") == __version__
