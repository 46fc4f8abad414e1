#!/bin/sh
# Stands in for `<python> -m memory_openclaw.worker` in tests/test_plugin.py (see record_worker.py).
exec python3 "$(dirname "$0")/record_worker.py"
