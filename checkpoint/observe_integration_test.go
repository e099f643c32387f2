//go:build integration

package checkpoint_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// Redis reports every command, scripts by name, without keys or values.
func TestRedis_Observe(t *testing.T) {
	url := testpeer.StartRedis(t)
	rec := &opRecorder{}
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, Prefix: "floeobs:"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Observe(rec)
	exercise(t, s)
	ops := rec.seen()
	for _, want := range []string{"pipeline", "script acquire", "script commit", "script tableWrite"} {
		if !slices.Contains(ops, want) {
			t.Errorf("no %q in %q", want, ops)
		}
	}
	for _, op := range ops {
		if strings.Contains(op, "orders_x") || strings.Contains(op, "floeobs") {
			t.Fatalf("op %q names a key", op)
		}
	}
}
