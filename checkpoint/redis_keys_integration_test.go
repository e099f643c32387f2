//go:build integration

package checkpoint_test

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// redisKeys lists every key of the server at url, sorted, through a
// client of its own (the store has no listing API by design).
func redisKeys(t *testing.T, url string) []string {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	slices.Sort(keys)
	return keys
}
