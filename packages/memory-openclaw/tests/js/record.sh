#!/bin/sh
# Stands in for `<python> -m memory_openclaw.hook` in tests/test_plugin.py: it records each
# payload the plugin sends ($REC_DIR/<ns>-<pid>.json), waits $REC_SLEEP seconds if set, and
# prints the file $REC_REPLY if set (what memory-core would have printed).
cat > "$REC_DIR/.$$.tmp"
mv "$REC_DIR/.$$.tmp" "$REC_DIR/$(date +%s%N)-$$.json"
if [ -n "$REC_SLEEP" ]; then sleep "$REC_SLEEP"; fi
if [ -n "$REC_REPLY" ]; then cat "$REC_REPLY"; fi
