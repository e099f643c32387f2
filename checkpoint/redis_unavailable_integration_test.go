//go:build integration

package checkpoint_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// A stopped or frozen Redis makes store calls fail with an error
// IsUnavailable recognises, and a frozen one fails at the caller's
// deadline instead of hanging; a missing key is never unavailability.
func TestRedis_IsUnavailable(t *testing.T) {
	rs := testpeer.StartRedisServer(t, "")
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.GetTable(context.Background(), "nope"); !errors.Is(err, checkpoint.ErrNotFound) || checkpoint.IsUnavailable(err) {
		t.Fatalf("missing table: %v", err)
	}
	rs.Freeze()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = s.ListTables(ctx)
	cancel()
	if !checkpoint.IsUnavailable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("frozen redis: %v", err)
	}
	rs.Thaw()
	rs.Stop()
	if _, err := s.ListTables(context.Background()); !checkpoint.IsUnavailable(err) {
		t.Fatalf("stopped redis: %v", err)
	}
	rs.Start()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := s.ListTables(context.Background())
		if err == nil {
			break
		}
		if !checkpoint.IsUnavailable(err) || time.Now().After(deadline) {
			t.Fatalf("restarted redis: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
