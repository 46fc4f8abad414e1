r"""The Redis store's timelines (`memory_core.store.base.Timelines`): Lua scripts over one scope's keys.

A record's events live under its scope's hash tag, so each script touches one Cluster slot:
`ev:<id>` maps an event id to `<position>\\t<event JSON>` (a second write of an id is `HSETNX`'s
no-op, which is what stores an event once), and `evb` maps a record id to its events' UTF-8 bytes
(what `prune` bounds). `DELETE` of `_redis_scripts` is followed by `DROP` for each deleted id;
a rewrite of a record (`PUT` with replace) does not touch its events.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memory_core.models import TimelineEvent

__all__ = ["PUT", "DROP", "USAGE", "encode", "decode"]

PUT = r"""
-- ARGV: P, id, then event id, bytes, encoded event, ... -> how many were new (0: no such record)
local P, id = ARGV[1], ARGV[2]
if redis.call('HEXISTS', P..'rec', id) == 0 then return 0 end
local key = P..'ev:'..id
local pos = redis.call('HLEN', key)
local added, bytes = 0, 0
for i = 3, #ARGV, 3 do
  if redis.call('HSETNX', key, ARGV[i], pos..'\t'..ARGV[i + 2]) == 1 then
    pos = pos + 1
    added = added + 1
    bytes = bytes + tonumber(ARGV[i + 1])
  end
end
if added > 0 then redis.call('HINCRBY', P..'evb', id, bytes) end
return added
"""

DROP = r"""
-- ARGV: P, id, id, ... -> how many events were deleted
local P = ARGV[1]
local n = 0
for i = 2, #ARGV do
  n = n + redis.call('HLEN', P..'ev:'..ARGV[i])
  redis.call('DEL', P..'ev:'..ARGV[i])
  redis.call('HDEL', P..'evb', ARGV[i])
end
return n
"""

USAGE = r"""
-- ARGV: P -> id, bytes, created_at, ... for each record with events
local P = ARGV[1]
local sizes = redis.call('HGETALL', P..'evb')
local out = {}
for i = 1, #sizes, 2 do
  local at = redis.call('ZSCORE', P..'time', sizes[i])
  if at then
    out[#out + 1] = sizes[i]
    out[#out + 1] = sizes[i + 1]
    out[#out + 1] = at
  end
end
return out
"""


def encode(events: Sequence[TimelineEvent]) -> list[str | int]:
    """The ARGV tail of `PUT`: id, bytes, JSON for each event."""
    flat: list[str | int] = []
    for e in events:
        body = json.dumps([e.kind, e.text, e.name, e.call_id, e.at], ensure_ascii=False, separators=(",", ":"))
        flat += [e.event_id, len(e.text.encode("utf-8")), body]
    return flat


def decode(raw: dict[Any, Any]) -> list[TimelineEvent]:
    """`HGETALL ev:<id>` as events in position order."""
    rows: list[tuple[int, TimelineEvent]] = []
    for event_id, value in raw.items():
        pos, _, body = str(value).partition("\t")
        kind, text, name, call_id, at = json.loads(body)
        rows.append((int(pos), TimelineEvent(kind, str(event_id), text, name, call_id, float(at))))
    return [event for _, event in sorted(rows, key=lambda row: row[0])]
