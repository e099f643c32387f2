package checkpoint

import (
	"context"
	"errors"
	"slices"

	"github.com/redis/go-redis/v9"
)

// stagingRound is how many staging writes (each a chunk of up to
// stagingChunk entries and its PEXPIRE) go in one pipelined round trip.
const stagingRound = 8

// stageBatch writes a commit's staging keys: chunks of entries, each with
// the staging TTL, stagingRound chunks per round trip, so a commit that
// stages the file map and its index waits for few round trips.
type stageBatch struct {
	ctx    context.Context
	client *redis.Client
	pl     redis.Pipeliner
	queued int
}

func (r *Redis) newStageBatch(ctx context.Context) *stageBatch {
	return &stageBatch{ctx: ctx, client: r.client}
}

// queue adds one write to key and sends the round trip when it is full.
func (b *stageBatch) queue(key string, write func(redis.Pipeliner)) error {
	if b.pl == nil {
		b.pl = b.client.Pipeline()
	}
	write(b.pl)
	b.pl.PExpire(b.ctx, key, stagingTTL)
	b.queued++
	if b.queued >= stagingRound {
		return b.flush()
	}
	return nil
}

// flush sends what is queued.
func (b *stageBatch) flush() error {
	if b.pl == nil {
		return nil
	}
	_, err := b.pl.Exec(b.ctx)
	b.pl, b.queued = nil, 0
	return err
}

// commit queues script after what is staged, so the last staging writes
// and the script share a round trip, and returns the script's reply. A
// script the server does not know yet runs again by EVAL once the staged
// writes are in (the script checks they are whole).
func (b *stageBatch) commit(script *redis.Script, keys []string, args ...any) (string, error) {
	if b.pl == nil {
		b.pl = b.client.Pipeline()
	}
	cmd := script.EvalSha(b.ctx, b.pl, keys, args...)
	err := b.flush()
	if noScript(cmd.Err()) {
		return script.Run(b.ctx, b.client, keys, args...).Text()
	}
	if err != nil {
		return "", err
	}
	return cmd.Text()
}

func noScript(err error) bool {
	return errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT")
}

// files stages files into the hash key.
func (b *stageBatch) files(key string, files map[string]FileState) error {
	kv := make([]any, 0, 2*len(files))
	for p, fs := range files {
		raw, err := encodeFile(fs)
		if err != nil {
			return err
		}
		kv = append(kv, p, raw)
	}
	return b.hash(key, kv)
}

// hash stages the field, value pairs kv into the hash key.
func (b *stageBatch) hash(key string, kv []any) error {
	for chunk := range slices.Chunk(kv, 2*stagingChunk) {
		if err := b.queue(key, func(pl redis.Pipeliner) { pl.HSet(b.ctx, key, chunk...) }); err != nil {
			return err
		}
	}
	return nil
}

// set stages members into the set key.
func (b *stageBatch) set(key string, members []string) error {
	for chunk := range slices.Chunk(members, stagingChunk) {
		args := make([]any, len(chunk))
		for i, m := range chunk {
			args[i] = m
		}
		if err := b.queue(key, func(pl redis.Pipeliner) { pl.SAdd(b.ctx, key, args...) }); err != nil {
			return err
		}
	}
	return nil
}

// zset stages members into the sorted set key, all with score 0 (ordered
// by their bytes).
func (b *stageBatch) zset(key string, members []string) error {
	for chunk := range slices.Chunk(members, stagingChunk) {
		zs := make([]redis.Z, len(chunk))
		for i, m := range chunk {
			zs[i] = redis.Z{Member: m}
		}
		if err := b.queue(key, func(pl redis.Pipeliner) { pl.ZAdd(b.ctx, key, zs...) }); err != nil {
			return err
		}
	}
	return nil
}
