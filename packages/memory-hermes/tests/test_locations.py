"""Finding Hermes's interpreter from the `hermes` launcher, in each shape installers write."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from memory_hermes.errors import HermesNotFound
from memory_hermes.locations import config_path, hermes_home, hermes_python, interpreter_from_launcher, plugin_dir


def _launcher(folder: Path, head: str) -> Path:
    path = folder / "hermes"
    path.write_text(head + "import sys\nfrom hermes_cli.main import main\nsys.exit(main())\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_pip_launcher_names_its_venv_python_unresolved(tmp_path: Path) -> None:
    # A venv's python is a symlink to the base interpreter; resolving it would leave the venv.
    launcher = _launcher(tmp_path, "#!/home/dev/.hermes/venv/bin/python\n# -*- coding: utf-8 -*-\n")
    assert interpreter_from_launcher(launcher) == Path("/home/dev/.hermes/venv/bin/python")


def test_the_sh_trampoline_for_long_or_spaced_paths(tmp_path: Path) -> None:
    head = "#!/bin/sh\n'''exec' \"/home/dev/My Tools/hermes venv/bin/python\" \"$0\" \"$@\"\n' '''\n"
    assert interpreter_from_launcher(_launcher(tmp_path, head)) == Path("/home/dev/My Tools/hermes venv/bin/python")


def test_an_env_shebang_is_looked_up_on_path(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path, "#!/usr/bin/env python3\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    python = bindir / "python3"
    python.symlink_to(sys.executable)
    assert interpreter_from_launcher(launcher, {"PATH": str(bindir)}) == python


def test_a_wrapper_script_is_refused_with_the_override_to_use(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path, '#!/bin/bash\nexec /opt/hermes/bin/hermes "$@"\n')
    with pytest.raises(HermesNotFound, match="MEMORY_HERMES_PYTHON"):
        interpreter_from_launcher(launcher)


def test_hermes_python_follows_path_then_checks_the_interpreter_exists(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _launcher(bindir, f"#!{sys.executable}\n")
    assert hermes_python({"PATH": str(bindir)}) == Path(sys.executable)
    _launcher(bindir, "#!/nonexistent/python\n")
    with pytest.raises(HermesNotFound, match="does not exist"):
        hermes_python({"PATH": str(bindir)})
    with pytest.raises(HermesNotFound, match="not on PATH"):
        hermes_python({"PATH": str(tmp_path / "empty")})
    assert hermes_python({"PATH": "", "MEMORY_HERMES_PYTHON": sys.executable}) == Path(sys.executable)


def test_hermes_home_is_hermes_home_or_dot_hermes(tmp_path: Path) -> None:
    assert hermes_home({"HOME": str(tmp_path)}) == tmp_path / ".hermes"
    custom = {"HOME": str(tmp_path), "HERMES_HOME": str(tmp_path / "profile")}
    assert config_path(custom) == tmp_path / "profile" / "config.yaml"
    assert plugin_dir(custom) == tmp_path / "profile" / "plugins" / "memory-hermes"
    assert os.sep in str(plugin_dir({"HOME": str(tmp_path)}))
