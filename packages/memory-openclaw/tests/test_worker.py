"""`python -m memory_openclaw.worker`: one process answering the plugin's requests, line by line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_openclaw.worker import serve


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_WORKER", "0")  # no per-user worker left running after the test
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path / 'memory.db'}")


def _question(recorded: Any) -> dict[str, Any]:
    payload = recorded("plugin/turn2.before_prompt_build.json")
    payload["ctx"].update(sessionId="another-session", runId="run-question")
    payload["event"]["prompt"] = "What is my cat called?"
    return payload


def _lines(*requests: object) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in requests)


def test_every_request_is_answered_in_order_and_junk_is_skipped(recorded: Any) -> None:
    answers = io.BytesIO()
    serve(
        io.BytesIO(
            _lines(
                {"id": 1, "payload": recorded("plugin/turn1.before_prompt_build.json")},
                b"not json",
                {"no": "id"},
                {"id": 2, "payload": recorded("plugin/turn1.agent_end.json")},
                {"id": 3, "payload": _question(recorded)},
            )
        ),
        answers,
    )
    replies = [json.loads(line) for line in answers.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[0]["out"] == replies[1]["out"] == ""
    assert "my cat is called Miso" in json.loads(replies[2]["out"])["appendContext"]


def test_the_worker_process_answers_and_exits_0_when_its_input_ends(recorded: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_openclaw.worker"],
        input=_lines(
            {"id": 7, "payload": recorded("plugin/turn1.agent_end.json")}, {"id": 8, "payload": _question(recorded)}
        ),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first == {"id": 7, "out": ""}
    assert "Miso" in json.loads(second["out"])["appendContext"]


def test_captures_already_sent_are_stored_after_openclaw_is_gone(recorded: Any, tmp_path: Path) -> None:
    # `openclaw agent --local` exits right after the turn: its pipe closes with the capture in it.
    worker = subprocess.Popen(
        [sys.executable, "-m", "memory_openclaw.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert worker.stdin is not None
    assert worker.stdout is not None
    worker.stdin.write(_lines({"id": 1, "payload": recorded("plugin/turn1.agent_end.json")}))
    worker.stdin.close()
    worker.stdout.close()  # nobody reads the answer any more
    assert worker.wait(timeout=60) == 0
    out = subprocess.run(
        [sys.executable, "-m", "memory_openclaw.hook"],
        input=json.dumps(_question(recorded)).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    ).stdout
    assert "Miso" in json.loads(out)["appendContext"]


def test_a_capture_the_store_cannot_take_is_spooled_and_stored_later(
    recorded: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_core.config import Config
    from memory_testing.servers import closed_port

    with closed_port() as (host, port):
        monkeypatch.setenv("MEMORY_URL", f"redis://{host}:{port}/5")
        answers = io.BytesIO()
        serve(io.BytesIO(_lines({"id": 1, "payload": recorded("plugin/turn1.agent_end.json")})), answers)
    assert json.loads(answers.getvalue()) == {"id": 1, "out": ""}
    assert "Miso" in Config.from_env().spool_path.read_text()

    # The store is back (here: the embedded one): the next capture writes the spooled turn first.
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path / 'back.db'}")
    later = recorded("plugin/turn1.agent_end.json")
    later["ctx"]["runId"] = "a-later-run"
    later["prompt"] = "Unrelated: the build uses make."
    later["event"]["messages"][-1]["content"] = [{"type": "text", "text": "OK."}]
    answers = io.BytesIO()
    serve(io.BytesIO(_lines({"id": 2, "payload": later}, {"id": 3, "payload": _question(recorded)})), answers)
    last = json.loads(answers.getvalue().splitlines()[-1])
    assert "my cat is called Miso" in json.loads(last["out"])["appendContext"]
