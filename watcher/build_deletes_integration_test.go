//go:build integration

package watcher_test

import (
	"context"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// The units of a run built through the Redis work queue by the replica's
// builders share its delete cache: each delete file is read once, and the
// rows are exactly iceberg-go's (B1, B2).
func TestIcebergBuilder_ReadsEachDeleteFileOnce_RedisWorkQueue(t *testing.T) {
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: testpeer.StartRedis(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	testDeletesReadOnce(t, s, s, 0)
}
