"""Lua scripts of the Redis store: every multi-key change of one scope, done atomically on the server.

Each script touches only keys of one scope (one hash tag, so one Cluster slot). The first
key in KEYS routes the call; the others are built from the scope's key prefix passed as
ARGV[1], which is safe on Cluster because they share that hash tag. Scripts run with EVAL
(not EVALSHA): the text is a few hundred bytes on loopback, and EVAL never meets NOSCRIPT
after a failover or a `SCRIPT FLUSH`, so there is no second round trip to recover.

Key layout under a scope prefix P (`memory:{<kind>:<key>}:`):

- `P rec`    hash id -> record JSON (every field but standing)
- `P st`     hash id -> standing
- `P terms`  hash id -> the record's terms as JSON (searchable records only; `{}` when it has none)
- `P len`    hash id -> the record's length in terms (same records)
- `P stats`  hash `documents`, `total_length`: what `index_stats` reads
- `P time`   sorted set id by created_at (scan order)
- `P a:<author>`  sorted set id by created_at
- `P s:<session>` sorted set id by seq
- `P t:<term>`    hash id -> "tf:length" (the postings of one term)
- `P v:<model>`   hash id -> the record's passage vectors by `model`, each passage's float32
  bytes in base64, comma-separated ('' for a record with no passage: done, nothing to match)
- `P vmodels`     set of the models with a `P v:<model>` hash, so removing a record removes its vectors
- `P vlog:<model>` sorted set id by the change sequence its vectors were written at (`P vseq`,
  a counter), and `P vdel` a counter of removals: what a process's cache reads to stay current

A record is in the index (and counted in `stats`, even with no terms, as the embedded store
counts it) when it is searchable and its standing is not negative.
"""

from __future__ import annotations

__all__ = [
    "PUT_VECTORS",
    "VECTORS_AFTER",
    "RANKED",
    "UNVECTORED",
    "VECTOR_COUNTS",
    "DROP_VECTORS",
    "PUT",
    "DELETE",
    "ADJUST_STANDING",
    "POSTINGS",
    "GET_AROUND",
    "SCAN_BATCH",
    "SESSION_RECORDS",
    "PAGE",
    "STASH",
    "TAKE",
]

_HELPERS = r"""
local function unindex(P, id)
  local raw = redis.call('HGET', P..'terms', id)
  if not raw then return end
  local length = tonumber(redis.call('HGET', P..'len', id) or '0')
  for term, _ in pairs(cjson.decode(raw)) do
    redis.call('HDEL', P..'t:'..term, id)
  end
  redis.call('HINCRBY', P..'stats', 'documents', -1)
  -- 0 - length, not -length: Lua's -0 reaches Redis as "-0", which HINCRBY refuses
  redis.call('HINCRBY', P..'stats', 'total_length', 0 - length)
end

local function reindex(P, id)
  local raw = redis.call('HGET', P..'terms', id)
  if not raw then return end
  local length = redis.call('HGET', P..'len', id) or '0'
  for term, tf in pairs(cjson.decode(raw)) do
    redis.call('HSET', P..'t:'..term, id, string.format('%d:%s', tf, length))
  end
  redis.call('HINCRBY', P..'stats', 'documents', 1)
  redis.call('HINCRBY', P..'stats', 'total_length', tonumber(length))
end

local function drop_vectors(P, id)
  -- the record's vectors of every model; each removal is counted for the caches
  for _, model in ipairs(redis.call('SMEMBERS', P..'vmodels')) do
    if redis.call('HDEL', P..'v:'..model, id) == 1 then
      redis.call('ZREM', P..'vlog:'..model, id)
      redis.call('INCR', P..'vdel')
    end
  end
end

local function remove(P, id)
  local raw = redis.call('HGET', P..'rec', id)
  if not raw then return 0 end
  local standing = tonumber(redis.call('HGET', P..'st', id) or '0')
  if standing >= 0 then unindex(P, id) end
  local rec = cjson.decode(raw)
  if type(rec.author) == 'string' and rec.author ~= '' then
    redis.call('ZREM', P..'a:'..rec.author, id)
  end
  if type(rec.session_id) == 'string' and rec.session_id ~= '' then
    redis.call('ZREM', P..'s:'..rec.session_id, id)
  end
  redis.call('ZREM', P..'time', id)
  redis.call('HDEL', P..'rec', id)
  redis.call('HDEL', P..'st', id)
  redis.call('HDEL', P..'terms', id)
  redis.call('HDEL', P..'len', id)
  drop_vectors(P, id)
  return 1
end

local function ranked(P, id)
  -- whether a record is in the index: searchable (it has terms) with a standing not negative
  if redis.call('HEXISTS', P..'terms', id) == 0 then return false end
  return tonumber(redis.call('HGET', P..'st', id) or '0') >= 0
end
"""

PUT = (
    _HELPERS
    + r"""
-- ARGV: P, id, replace, record JSON, standing, created_at, author, session, seq, terms JSON, length,
--       then term, tf, term, tf, ...
local P, id = ARGV[1], ARGV[2]
if redis.call('HEXISTS', P..'rec', id) == 1 then
  if ARGV[3] ~= '1' then return 0 end
  remove(P, id)
end
local standing = tonumber(ARGV[5])
redis.call('HSET', P..'rec', id, ARGV[4])
redis.call('HSET', P..'st', id, ARGV[5])
redis.call('ZADD', P..'time', ARGV[6], id)
if ARGV[7] ~= '' then redis.call('ZADD', P..'a:'..ARGV[7], ARGV[6], id) end
if ARGV[8] ~= '' then redis.call('ZADD', P..'s:'..ARGV[8], ARGV[9], id) end
if ARGV[10] ~= '' then
  local length = ARGV[11]
  redis.call('HSET', P..'terms', id, ARGV[10])
  redis.call('HSET', P..'len', id, length)
  if standing >= 0 then
    for i = 12, #ARGV, 2 do
      redis.call('HSET', P..'t:'..ARGV[i], id, ARGV[i + 1]..':'..length)
    end
    redis.call('HINCRBY', P..'stats', 'documents', 1)
    redis.call('HINCRBY', P..'stats', 'total_length', tonumber(length))
  end
end
return 1
"""
)

DELETE = (
    _HELPERS
    + r"""
-- ARGV: P, id, id, ...  -> how many existed
local P = ARGV[1]
local n = 0
for i = 2, #ARGV do n = n + remove(P, ARGV[i]) end
return n
"""
)

ADJUST_STANDING = (
    _HELPERS
    + r"""
-- ARGV: P, id, delta -> the new standing, or nil for an unknown id
local P, id, delta = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('HEXISTS', P..'rec', id) == 0 then return false end
local new = redis.call('HINCRBY', P..'st', id, delta)
local old = new - delta
if old >= 0 and new < 0 then unindex(P, id) elseif old < 0 and new >= 0 then reindex(P, id) end
return new
"""
)

POSTINGS = r"""
-- ARGV: P, max_df (-1: none), term, term, ...
-- -> per term: {df} when df > max_df, else {df, id, "tf:length", id, "tf:length", ...}
local P, max_df = ARGV[1], tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV do
  local key = P..'t:'..ARGV[i]
  local df = redis.call('HLEN', key)
  if df == 0 or (max_df >= 0 and df > max_df) then
    out[#out + 1] = {df}
  else
    local row = redis.call('HGETALL', key)
    table.insert(row, 1, df)
    out[#out + 1] = row
  end
end
return out
"""

GET_AROUND = r"""
-- ARGV: P, span, id, id, ...
-- -> {{id, record JSON, standing, ...} for the ids found, {record JSON, standing, ...} for every
--    other record within `span` positions of their seq in their sessions}: recall reads those next.
local P, span = ARGV[1], tonumber(ARGV[2])
local found, around, seen = {}, {}, {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local raw = redis.call('HGET', P..'rec', id)
  if raw then
    found[#found + 1] = id
    found[#found + 1] = raw
    found[#found + 1] = redis.call('HGET', P..'st', id) or '0'
    local rec = cjson.decode(raw)
    if type(rec.session_id) == 'string' and rec.session_id ~= '' then
      local key = P..'s:'..rec.session_id
      for _, other in ipairs(redis.call('ZRANGE', key, rec.seq - span, rec.seq + span, 'BYSCORE')) do
        if other ~= id and not seen[other] then
          local near = redis.call('HGET', P..'rec', other)
          if near then
            seen[other] = true
            around[#around + 1] = near
            around[#around + 1] = redis.call('HGET', P..'st', other) or '0'
          end
        end
      end
    end
  end
end
return {found, around}
"""

SCAN_BATCH = r"""
-- ARGV: P, index key suffix, min score, max score, count
-- -> flat {id, score, record JSON, standing, ...} for the next `count` entries of the index
local P = ARGV[1]
local page = redis.call('ZRANGE', P..ARGV[2], ARGV[3], ARGV[4], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[5]), 'WITHSCORES')
local out = {}
for i = 1, #page, 2 do
  local id = page[i]
  out[#out + 1] = id
  out[#out + 1] = page[i + 1]
  out[#out + 1] = redis.call('HGET', P..'rec', id) or ''
  out[#out + 1] = redis.call('HGET', P..'st', id) or '0'
end
return out
"""

SESSION_RECORDS = r"""
-- ARGV: P, session, seq, seq, ...  -> flat {record JSON, standing, ...}
local P, key = ARGV[1], ARGV[1]..'s:'..ARGV[2]
local out = {}
for i = 3, #ARGV do
  for _, id in ipairs(redis.call('ZRANGE', key, ARGV[i], ARGV[i], 'BYSCORE')) do
    local raw = redis.call('HGET', P..'rec', id)
    if raw then
      out[#out + 1] = raw
      out[#out + 1] = redis.call('HGET', P..'st', id) or '0'
    end
  end
end
return out
"""

PAGE = r"""
-- ARGV: P, index key suffix, high score, low score, cursor score ('' for none), cursor id, wanted,
--       harness (''), kind (''), budget
-- Walks the index newest first (score, then id, descending) from just below the cursor, keeping
-- records whose harness and kind match, until `wanted` are kept or `budget` entries were looked
-- at, so one call never holds the server long whatever the filter.
-- -> {exhausted (1/0), last score, last id, record JSON, standing, ...}
local P, key = ARGV[1], ARGV[1]..ARGV[2]
local high, low = ARGV[3], ARGV[4]
local cscore, cid = ARGV[5], ARGV[6]
local wanted, harness, kind, budget = tonumber(ARGV[7]), ARGV[8], ARGV[9], tonumber(ARGV[10])
local out = {0, cscore, cid}
local seen, batch, kept = 0, 100, 0
while kept < wanted and seen < budget do
  local top = high
  if cscore ~= '' then top = cscore end
  local page = redis.call('ZRANGE', key, top, low, 'BYSCORE', 'REV', 'LIMIT', 0, batch, 'WITHSCORES')
  local fresh, full = 0, false
  for i = 1, #page, 2 do
    local id, score = page[i], page[i + 1]
    -- every entry is at or below the cursor's score; at its score only smaller ids are new
    if cscore == '' or tonumber(score) < tonumber(cscore) or id < cid then
      fresh = fresh + 1
      seen = seen + 1
      cscore, cid = score, id
      local raw = redis.call('HGET', P..'rec', id)
      if raw then
        local ok = true
        if harness ~= '' or kind ~= '' then
          local rec = cjson.decode(raw)
          ok = (harness == '' or rec.harness == harness) and (kind == '' or rec.kind == kind)
        end
        if ok then
          out[#out + 1] = raw
          out[#out + 1] = redis.call('HGET', P..'st', id) or '0'
          kept = kept + 1
          if kept >= wanted then full = true break end
        end
      end
    end
  end
  if not full and #page < 2 * batch then out[1] = 1 break end
  -- a whole batch tied on the cursor's score: widen the window past the ties
  if fresh == 0 then batch = batch * 2 end
end
out[2], out[3] = cscore, cid
return out
"""

# The handoff queue of one session is a small JSON list (at most `keep` entries) in one key:
# [{"t": turn id or absent, "p": prompt, "x": expiry}, ...], oldest first.
STASH = r"""
-- KEYS: queue. ARGV: now, ttl seconds, keep, has turn id (1/0), turn id, prompt
local now, ttl, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local has_turn, turn = ARGV[4] == '1', ARGV[5]
local raw = redis.call('GET', KEYS[1])
local kept = {}
if raw then
  for _, e in ipairs(cjson.decode(raw)) do
    if e.x > now and not (has_turn and e.t == turn) then kept[#kept + 1] = e end
  end
end
local entry = {p = ARGV[6], x = now + ttl}
if has_turn then entry.t = turn end
kept[#kept + 1] = entry
while #kept > keep do table.remove(kept, 1) end
redis.call('SET', KEYS[1], cjson.encode(kept), 'PX', math.max(1, math.ceil(ttl * 1000)))
return #kept
"""

TAKE = r"""
-- KEYS: queue. ARGV: now, has turn id (1/0), turn id  -> the prompt, or nil
local now, has_turn, turn = tonumber(ARGV[1]), ARGV[2] == '1', ARGV[3]
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local kept, pick = {}, nil
for _, e in ipairs(cjson.decode(raw)) do
  if e.x > now then
    kept[#kept + 1] = e
    if (not has_turn) or (e.t == turn and not pick) then pick = #kept end
  end
end
local prompt = false
if pick then
  prompt = kept[pick].p
  table.remove(kept, pick)
end
if #kept == 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], cjson.encode(kept), 'KEEPTTL')
end
return prompt
"""


PUT_VECTORS = (
    _HELPERS
    + r"""
-- ARGV: P, id, model, vectors (base64)  -> 1, or 0 when the record is gone
-- (a record has one set of vectors: another model's go, and its own are replaced)
local P, id, model = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HEXISTS', P..'rec', id) == 0 then return 0 end
drop_vectors(P, id)
redis.call('SADD', P..'vmodels', model)
redis.call('HSET', P..'v:'..model, id, ARGV[4])
redis.call('ZADD', P..'vlog:'..model, redis.call('INCR', P..'vseq'), id)
return 1
"""
)

VECTORS_AFTER = r"""
-- ARGV: P, model, sequence, limit  -> flat {id, sequence, vectors (base64), ...} of the first
-- `limit` records written after `sequence`
local P, model = ARGV[1], ARGV[2]
local log = redis.call('ZRANGE', P..'vlog:'..model, '('..ARGV[3], '+inf', 'BYSCORE',
  'LIMIT', 0, tonumber(ARGV[4]), 'WITHSCORES')
local out = {}
for i = 1, #log, 2 do
  local blob = redis.call('HGET', P..'v:'..model, log[i])
  if blob and blob ~= '' then
    out[#out + 1] = log[i]
    out[#out + 1] = log[i + 1]
    out[#out + 1] = blob
  end
end
return out
"""

RANKED = (
    _HELPERS
    + r"""
-- ARGV: P, id, id, ...  -> the ids in the index
local P = ARGV[1]
local out = {}
for i = 2, #ARGV do
  if ranked(P, ARGV[i]) then out[#out + 1] = ARGV[i] end
end
return out
"""
)

UNVECTORED = (
    _HELPERS
    + r"""
-- ARGV: P, model, limit, start, budget[, before score, before id]
-- Walks the scope newest first from rank `start`, looking at `budget` records at most (so one call
-- never holds the server long), keeping those in the index without vectors of `model`. With a
-- cursor (created_at, id), only records older than it: the first call (`start` 0) begins at the
-- rank of the first record at or below its time, and skips that time's ids at or above its id.
-- -> {next start (-1: the end), record JSON, standing, ...}
local P, key = ARGV[1], ARGV[1]..'v:'..ARGV[2]
local limit, start, budget = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local at, below = tonumber(ARGV[6]), ARGV[7]
if at and start == 0 then
  start = redis.call('ZCOUNT', P..'time', '('..ARGV[6], '+inf')
end
local out = {-1}
local kept = 0
local page = redis.call('ZRANGE', P..'time', start, start + budget - 1, 'REV', 'WITHSCORES')
local seen = #page / 2
for i = 1, seen do
  local id, score = page[2 * i - 1], tonumber(page[2 * i])
  local older = not at or score < at or (score == at and id < below)
  if older and ranked(P, id) and redis.call('HEXISTS', key, id) == 0 then
    out[#out + 1] = redis.call('HGET', P..'rec', id)
    out[#out + 1] = redis.call('HGET', P..'st', id) or '0'
    kept = kept + 1
    if kept >= limit then
      out[1] = start + i
      return out
    end
  end
end
if seen == budget then out[1] = start + budget end
return out
"""
)


VECTOR_COUNTS = (
    _HELPERS
    + r"""
-- ARGV: P, model  -> {records in the index, of which with vectors of `model`}
local P = ARGV[1]
local total = tonumber(redis.call('HGET', P..'stats', 'documents') or '0')
local done = 0
for _, id in ipairs(redis.call('HKEYS', P..'v:'..ARGV[2])) do
  if ranked(P, id) then done = done + 1 end
end
return {total, done}
"""
)

DROP_VECTORS = r"""
-- ARGV: P, keep model  -> how many records lost vectors of other models
local P = ARGV[1]
local n = 0
for _, model in ipairs(redis.call('SMEMBERS', P..'vmodels')) do
  if model ~= ARGV[2] then
    n = n + redis.call('HLEN', P..'v:'..model)
    redis.call('DEL', P..'v:'..model, P..'vlog:'..model)
    redis.call('SREM', P..'vmodels', model)
    redis.call('INCR', P..'vdel')
  end
end
return n
"""
