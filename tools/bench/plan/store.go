package main

import (
	"context"
	"path/filepath"

	"github.com/floehq/floe/checkpoint"
)

// benchStore is where the floe processes and warm runs of one table size
// keep their checkpoint: an embedded store in the size's scratch
// directory, or, with -redis, a Redis server under a key prefix of the
// size's own.
type benchStore struct {
	path, redisURL, prefix string
}

func newBenchStore(dir, redisURL, prefix string) benchStore {
	return benchStore{path: filepath.Join(dir, "floe.db"), redisURL: redisURL, prefix: prefix}
}

// open opens the store.
func (s benchStore) open(ctx context.Context) (checkpoint.Store, error) {
	if s.redisURL == "" {
		return checkpoint.OpenBolt(s.path)
	}
	return checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: s.redisURL, Prefix: s.prefix})
}

// env is the environment that points a floe process at the store.
func (s benchStore) env() []string {
	if s.redisURL == "" {
		return []string{"FLOE_STORE_PATH=" + s.path}
	}
	return []string{"FLOE_STORE_REDIS_URL=" + s.redisURL, "FLOE_STORE_REDIS_KEYPREFIX=" + s.prefix}
}

// name says which store it is, for the report.
func (s benchStore) name() string {
	if s.redisURL == "" {
		return "Bolt store"
	}
	return "Redis store (redis-server on loopback)"
}
