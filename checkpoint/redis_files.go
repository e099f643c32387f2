package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// commitDeltaLua: KEYS lease, staged set (hash), staged deletions (set),
// files, checkpoint; ARGV owner, token, header JSON. Returns "ok" |
// "fenced".
const commitDeltaLua = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  redis.call('DEL', KEYS[2], KEYS[3])
  return 'fenced'
end
local del = redis.call('SMEMBERS', KEYS[3])
for i = 1, #del do redis.call('HDEL', KEYS[4], del[i]) end
local set = redis.call('HGETALL', KEYS[2])
for i = 1, #set, 2 do redis.call('HSET', KEYS[4], set[i], set[i + 1]) end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('SET', KEYS[5], ARGV[3])
return 'ok'
`

// ledgerLua: KEYS lease, ledger; ARGV owner, token, mode ("set"|"del"),
// names... Returns 1 | 0 (fenced).
const ledgerLua = `
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
for i = 4, #ARGV do
  if ARGV[3] == 'set' then redis.call('HSET', KEYS[2], ARGV[i], ARGV[2])
  else redis.call('HDEL', KEYS[2], ARGV[i]) end
end
return 1
`

// CommitCheckpointDelta stages d's files, then one script checks the lease
// and applies deletions, writes and the header at once (C1, C9). The file
// count is not stored: summaries count the file hash (HLEN).
func (r *Redis) CommitCheckpointDelta(ctx context.Context, lease Lease, d CheckpointDelta) error {
	if err := checkDelta(lease, d); err != nil {
		return fmt.Errorf("commit checkpoint delta: %w", err)
	}
	op := "commit checkpoint delta of table " + quote(lease.Table)
	cp := stampCheckpoint(d.Header, lease, time.Now())
	hdr, err := encode("checkpoint", newHeader(cp))
	if err != nil {
		return err
	}
	n := nonce()
	staged, dels := r.keys.staging(lease.Table, n), r.keys.staging(lease.Table, n+":del")
	if err := r.stageFiles(ctx, staged, d.Set); err != nil {
		return redisErr(op, err)
	}
	if err := r.stageDeletions(ctx, dels, d.deletions()); err != nil {
		return redisErr(op, err)
	}
	keys := []string{r.keys.lease(lease.Table), staged, dels, r.keys.files(lease.Table), r.keys.checkpoint(lease.Table)}
	res, err := r.scripts.commitDelta.Run(ctx, r.client, keys, lease.Owner, strconv.FormatInt(lease.Token, 10), hdr).Text()
	if err != nil {
		return redisErr(op, err)
	}
	if res != "ok" {
		return fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
	}
	return nil
}

// stageDeletions writes paths into a staging set in chunks.
func (r *Redis) stageDeletions(ctx context.Context, key string, paths []string) error {
	for chunk := range slices.Chunk(paths, stagingChunk) {
		args := make([]any, len(chunk))
		for i, p := range chunk {
			args[i] = p
		}
		_, err := r.client.Pipelined(ctx, func(pl redis.Pipeliner) error {
			pl.SAdd(ctx, key, args...)
			pl.PExpire(ctx, key, stagingTTL)
			return nil
		})
		if err != nil {
			return fmt.Errorf("stage deletions: %w", err)
		}
	}
	return nil
}

// RecordSegments notes lease's token for names if lease is current.
func (r *Redis) RecordSegments(ctx context.Context, lease Lease, names []string) error {
	return r.ledgerWrite(ctx, "record segments", "set", lease, names)
}

// ForgetSegments drops names from the ledger if lease is current.
func (r *Redis) ForgetSegments(ctx context.Context, lease Lease, names []string) error {
	return r.ledgerWrite(ctx, "forget segments", "del", lease, names)
}

func (r *Redis) ledgerWrite(ctx context.Context, op, mode string, lease Lease, names []string) error {
	if err := checkNames(lease, names); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	op += " of table " + quote(lease.Table)
	keys := []string{r.keys.lease(lease.Table), r.keys.segTokens(lease.Table)}
	for chunk := range slices.Chunk(names, stagingChunk) {
		args := []any{lease.Owner, strconv.FormatInt(lease.Token, 10), mode}
		for _, n := range chunk {
			args = append(args, n)
		}
		ok, err := r.scripts.ledger.Run(ctx, r.client, keys, args...).Int()
		if err != nil {
			return redisErr(op, err)
		}
		if ok == 0 {
			return fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
		}
	}
	return nil
}

// SegmentTokens returns the recorded token of each name that has one.
func (r *Redis) SegmentTokens(ctx context.Context, table string, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(names) == 0 {
		return out, nil
	}
	vals, err := r.client.HMGet(ctx, r.keys.segTokens(table), names...).Result()
	if err != nil {
		return nil, redisErr("segment tokens of table "+quote(table), err)
	}
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		tok, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("segment tokens of table %s: segment %q: bad token %q", quote(table), names[i], s)
		}
		out[names[i]] = tok
	}
	return out, nil
}
