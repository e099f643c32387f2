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

// commitLua: KEYS lease, staging, files, checkpoint; ARGV owner, token,
// file count, header JSON. Returns "ok" | "fenced" | "staging".
const commitLua = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  redis.call('DEL', KEYS[2])
  return 'fenced'
end
local n = tonumber(ARGV[3])
if redis.call('HLEN', KEYS[2]) ~= n then
  redis.call('DEL', KEYS[2])
  return 'staging'
end
if n == 0 then
  redis.call('DEL', KEYS[3])
else
  redis.call('RENAME', KEYS[2], KEYS[3])
  redis.call('PERSIST', KEYS[3])
end
redis.call('SET', KEYS[4], ARGV[4])
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
	}
}
