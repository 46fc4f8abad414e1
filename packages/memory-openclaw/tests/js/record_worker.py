"""Speaks the worker protocol of `memory_openclaw.worker` for tests/test_plugin.py, without memory-core.

It marks its start as `$REC_DIR/started-<pid>`. Each request's payload is recorded as
`$REC_DIR/<ns>-<pid>.json` (the pid shows which worker process served it); then it waits
`$REC_SLEEP` seconds if set, and answers with the content of the file `$REC_REPLY` (what
memory-core would have printed), or "". With `$REC_DIE_ONCE` naming a file that does not
exist yet, it creates the file and exits after recording its first request, without answering.
"""

import json
import os
import sys
import time
from pathlib import Path

folder = os.environ["REC_DIR"]
Path(folder, f"started-{os.getpid()}").touch()
reply = Path(os.environ["REC_REPLY"]).read_text() if os.environ.get("REC_REPLY") else ""
for line in sys.stdin:
    request = json.loads(line)
    tmp = os.path.join(folder, f".{os.getpid()}.tmp")
    with open(tmp, "w") as handle:
        json.dump(request["payload"], handle)
    os.replace(tmp, os.path.join(folder, f"{time.time_ns()}-{os.getpid()}.json"))
    marker = os.environ.get("REC_DIE_ONCE")
    if marker and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(0)  # dies without answering: the plugin must resend to a new worker
    if os.environ.get("REC_SLEEP"):
        time.sleep(float(os.environ["REC_SLEEP"]))
    try:
        sys.stdout.write(json.dumps({"id": request["id"], "out": reply}) + "\n")
        sys.stdout.flush()
    except OSError:
        pass
