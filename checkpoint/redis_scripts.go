package checkpoint

import "github.com/redis/go-redis/v9"

// Lua scripts that make lease and commit operations atomic on the Redis
// server. Lease hashes hold the fields v, owner, token and expiresAt
// (doc.go); tokens are compared as the decimal strings Redis stores.

// acquireLua: KEYS table, lease, fence; ARGV owner, ttl ms, expiresAt, v.
// Returns {"ok", token} | {"held", owner} | {"nf"}.
const acquireLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local cur = redis.call('HMGET', KEYS[2], 'owner', 'token')
local tok
if cur[1] then
  if cur[1] ~= ARGV[1] then return {'held', cur[1]} end
  tok = cur[2]
else
  redis.call('INCR', KEYS[3])
  tok = redis.call('GET', KEYS[3])
end
redis.call('HSET', KEYS[2], 'v', ARGV[4], 'owner', ARGV[1], 'token', tok, 'expiresAt', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {'ok', tok}
`

// renewLua: KEYS lease; ARGV owner, token, ttl ms, expiresAt. Returns 1|0.
const renewLua = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'expiresAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`

// releaseLua: KEYS lease; ARGV owner, token. Returns 1|0.
const releaseLua = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`

// stagedLua defines the helpers of the commit scripts: swap moves a
// staged key over a stored one (or deletes the stored one when nothing
// was staged); whole reports whether each staged key (KEYS[keys[i]], of
// type kinds[i]: h hash, s set, z sorted set) holds the number of entries
// the client staged (ARGV[from + i - 1]).
const stagedLua = `
local function swap(staged, key)
  if redis.call('EXISTS', staged) == 1 then
    redis.call('RENAME', staged, key)
    redis.call('PERSIST', key)
  else
    redis.call('DEL', key)
  end
end
local card = {h = 'HLEN', s = 'SCARD', z = 'ZCARD'}
local function whole(keys, kinds, from)
  for i = 1, #keys do
    if redis.call(card[string.sub(kinds, i, i)], KEYS[keys[i]]) ~= tonumber(ARGV[from + i - 1]) then return false end
  end
  return true
end
`

// commitLua: KEYS lease, staged files, files, checkpoint, index stamp,
// segs, units, small, staged segs, units, small, unit deletions, small
// deletions (the last two unused); ARGV owner, token, file count, header
// JSON, stamp JSON, then the entry counts of the five staged index keys.
// Returns "ok" | "fenced" | "staging". A script run again after it
// committed (a client's retry) finds its header stored and returns "ok".
const commitLua = stagedLua + `
local staged = {KEYS[2], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13]}
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  redis.call('DEL', unpack(staged))
  return 'fenced'
end
if redis.call('GET', KEYS[4]) == ARGV[4] then
  redis.call('DEL', unpack(staged))
  return 'ok'
end
if not whole({2}, 'h', 3) or not whole({9, 10, 11}, 'hhz', 6) then
  redis.call('DEL', unpack(staged))
  return 'staging'
end
swap(KEYS[2], KEYS[3])
swap(KEYS[9], KEYS[6])
swap(KEYS[10], KEYS[7])
swap(KEYS[11], KEYS[8])
redis.call('SET', KEYS[4], ARGV[4])
redis.call('SET', KEYS[5], ARGV[5])
return 'ok'
`

// createLua: KEYS record, index set; ARGV JSON, name. Returns 1|0.
const createLua = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('SADD', KEYS[2], ARGV[2])
return 1
`

// putRunLua: KEYS runs hash, order zset; ARGV id, score, JSON, limit.
const putRunLua = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREM', KEYS[2], unpack(old))
  redis.call('HDEL', KEYS[1], unpack(old))
end
return 1
`

// listRunsLua: KEYS runs hash, order zset; ARGV limit. Newest first.
const listRunsLua = `
local ids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
`

// redisScripts holds the loaded scripts of one Redis store.
type redisScripts struct {
	acquire, renew, release, commit, create, putRun, listRuns *redis.Script
	commitDelta, ledger, heartbeat, confirm, complete         *redis.Script
	smallUnits                                                *redis.Script
}

func newRedisScripts() redisScripts {
	return redisScripts{
		acquire:  redis.NewScript(acquireLua),
		renew:    redis.NewScript(renewLua),
		release:  redis.NewScript(releaseLua),
		commit:   redis.NewScript(commitLua),
		create:   redis.NewScript(createLua),
		putRun:   redis.NewScript(putRunLua),
		listRuns: redis.NewScript(listRunsLua),

		commitDelta: redis.NewScript(commitDeltaLua),
		ledger:      redis.NewScript(ledgerLua),
		heartbeat:   redis.NewScript(heartbeatLua),
		confirm:     redis.NewScript(confirmLua),
		complete:    redis.NewScript(completeLua),
		smallUnits:  redis.NewScript(smallUnitsLua),
	}
}
