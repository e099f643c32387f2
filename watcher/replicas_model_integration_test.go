//go:build integration

package watcher_test

import (
	"context"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// TestWatcher_ReplicasModel_Redis runs the model (replicas_model_test.go)
// with three watchers, each with its own client of one real redis-server,
// as three floe processes would be: changes reach them through the
// change stream, and a restarted replica opens a new client.
func TestWatcher_ReplicasModel_Redis(t *testing.T) {
	url := testpeer.StartRedis(t)
	open := func(string) (checkpoint.Store, func()) {
		s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url})
		if err != nil {
			t.Fatalf("NewRedis: %v", err)
		}
		return s, func() { _ = s.Close() }
	}
	shared, closeShared := open("model")
	t.Cleanup(closeShared)
	runModel(t, shared, open, 3, 3000)
}
