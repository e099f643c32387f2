package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// commitDeltaLua: KEYS lease, staged set (hash), staged deletions (set),
// files, checkpoint, index stamp, segs, units, small, staged segs, units,
// small, unit deletions, small deletions; ARGV owner, token, header JSON,
// index mode ("edit" | "fresh"), the header and stamp the index change
// was computed from ("" for none), the new stamp JSON, then the entry
// counts of the seven staged keys. Returns "ok" | "fenced" | "staging" |
// "stale" (map and header applied, index left out of step: its base
// moved). A script run again after it committed (a client's retry) finds
// its header stored and returns "ok".
const commitDeltaLua = stagedLua + `
local staged = {KEYS[2], KEYS[3], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14]}
local cur = redis.call('HMGET', KEYS[1], 'owner', 'token')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  redis.call('DEL', unpack(staged))
  return 'fenced'
end
if redis.call('GET', KEYS[5]) == ARGV[3] then
  redis.call('DEL', unpack(staged))
  return 'ok'
end
if not whole({2, 3, 10, 11, 12, 13, 14}, 'hshhzss', 8) then
  redis.call('DEL', unpack(staged))
  return 'staging'
end
local base = (redis.call('GET', KEYS[5]) or '') == ARGV[5] and (redis.call('GET', KEYS[6]) or '') == ARGV[6]
local del = redis.call('SMEMBERS', KEYS[3])
for i = 1, #del do redis.call('HDEL', KEYS[4], del[i]) end
local set = redis.call('HGETALL', KEYS[2])
for i = 1, #set, 2 do redis.call('HSET', KEYS[4], set[i], set[i + 1]) end
redis.call('SET', KEYS[5], ARGV[3])
if not base then
  redis.call('DEL', KEYS[6], unpack(staged))
  return 'stale'
end
if ARGV[4] == 'fresh' then
  swap(KEYS[10], KEYS[7])
  swap(KEYS[11], KEYS[8])
  swap(KEYS[12], KEYS[9])
else
  local inc = redis.call('HGETALL', KEYS[10])
  for i = 1, #inc, 2 do
    if redis.call('HINCRBY', KEYS[7], inc[i], inc[i + 1]) <= 0 then redis.call('HDEL', KEYS[7], inc[i]) end
  end
  local gone = redis.call('SMEMBERS', KEYS[13])
  for i = 1, #gone do redis.call('HDEL', KEYS[8], gone[i]) end
  local units = redis.call('HGETALL', KEYS[11])
  for i = 1, #units, 2 do redis.call('HSET', KEYS[8], units[i], units[i + 1]) end
  local out = redis.call('SMEMBERS', KEYS[14])
  for i = 1, #out do redis.call('ZREM', KEYS[9], out[i]) end
  local put = redis.call('ZRANGE', KEYS[12], 0, -1)
  for i = 1, #put do redis.call('ZADD', KEYS[9], 0, put[i]) end
end
redis.call('SET', KEYS[6], ARGV[7])
redis.call('DEL', unpack(staged))
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

// CommitCheckpointDelta computes the change d makes to the table's file
// index from the entries it touches (or the whole index, when the stored
// one is out of step), stages d's files and that change, then one script
// checks the lease and applies deletions, writes, the header and the
// index at once (C1, C9, C14). The header's file count is the index's.
func (r *Redis) CommitCheckpointDelta(ctx context.Context, lease Lease, d CheckpointDelta) error {
	if err := checkDelta(lease, d); err != nil {
		return fmt.Errorf("commit checkpoint delta: %w", err)
	}
	op := "commit checkpoint delta of table " + quote(lease.Table)
	dels := d.deletions()
	base, w, err := r.deltaIndex(ctx, lease.Table, d, dels)
	if err != nil {
		return redisErr(op, err)
	}
	return r.applyDelta(ctx, op, lease, d, dels, base, w)
}

// applyDelta stages d and w, the index change computed from base, and
// runs the script that commits them.
func (r *Redis) applyDelta(ctx context.Context, op string, lease Lease, d CheckpointDelta, dels []string,
	base redisIndexBase, w *redisIndexWrite) error {
	h := newHeader(stampCheckpoint(d.Header, lease, time.Now()))
	h.FileCount = w.counts.Files
	hdr, stamp, err := encodeHeaderAndStamp(h, w.counts)
	if err != nil {
		return err
	}
	n := nonce()
	staged, stagedDels, st := r.keys.staging(lease.Table, n), r.keys.staging(lease.Table, n+":del"), r.keys.indexStaging(lease.Table, n)
	b, err := r.stageCommit(ctx, staged, stagedDels, st, d.Set, dels, w)
	if err != nil {
		return redisErr(op, err)
	}
	keys := slices.Concat([]string{r.keys.lease(lease.Table), staged, stagedDels, r.keys.files(lease.Table),
		r.keys.checkpoint(lease.Table)}, r.keys.index(lease.Table), st.keys())
	mode := "edit"
	if w.fresh {
		mode = "fresh"
	}
	args := append([]any{lease.Owner, strconv.FormatInt(lease.Token, 10), hdr, mode, base.header, base.stamp, stamp,
		len(d.Set), len(dels)}, w.sizes()...)
	res, err := b.commit(r.scripts.commitDelta, keys, args...)
	if err != nil {
		return redisErr(op, err)
	}
	switch res {
	case "ok", "stale": // stale: committed; the next commit rebuilds the index (C14)
		return nil
	case "fenced":
		return fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
	default:
		return fmt.Errorf("%s: staged change incomplete (%s); nothing committed", op, res)
	}
}

// stageCommit stages a commit's files set (a whole map, or a delta's),
// the paths a delta deletes (none for a whole commit) and the index
// change, but for the last round trip, which the commit's script joins.
func (r *Redis) stageCommit(ctx context.Context, staged, stagedDels string, st indexStaging,
	set map[string]FileState, dels []string, w *redisIndexWrite) (*stageBatch, error) {
	b := r.newStageBatch(ctx)
	if err := b.files(staged, set); err != nil {
		return nil, fmt.Errorf("stage files: %w", err)
	}
	if err := b.set(stagedDels, dels); err != nil {
		return nil, fmt.Errorf("stage deletions: %w", err)
	}
	if err := w.stage(b, st); err != nil {
		return nil, fmt.Errorf("stage file index: %w", err)
	}
	return b, nil
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
