"""`memory ui` costs nothing to anyone who does not run it: its web stack loads only for `memory ui`."""

from __future__ import annotations

import json
import subprocess
import sys

_WEB_STACK = ("starlette", "uvicorn", "jinja2", "memory_core.ui.app")


def test_the_cli_and_the_service_import_no_part_of_the_web_stack() -> None:
    probe = (
        "import json, sys\n"
        "from memory_core.cli import build_parser\n"
        "import memory_core.service, memory_core.ui\n"
        "build_parser().parse_args(['ui', '--no-open'])\n"
        f"print(json.dumps([m for m in {_WEB_STACK!r} if m in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []
