package checkpoint_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// opRecorder is a checkpoint.Observer that keeps the operations it heard.
type opRecorder struct {
	mu  sync.Mutex
	ops []string
}

func (r *opRecorder) StoreCall(op string, _ time.Duration, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op)
}

func (r *opRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops)
}

// exercise makes a few store calls on table "orders_x".
func exercise(t *testing.T, s checkpoint.Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "orders_x", Connection: "c", Namespace: "n", Source: "s"}); err != nil {
		t.Fatal(err)
	}
	lease, err := s.AcquireLease(ctx, "orders_x", "me", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitCheckpoint(ctx, lease, checkpoint.Checkpoint{Table: "orders_x", SnapshotID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetCheckpointSummary(ctx, "orders_x"); err != nil {
		t.Fatal(err)
	}
}

// Bolt reports each transaction by what it does, without the table name.
func TestBolt_Observe(t *testing.T) {
	s, err := checkpoint.OpenBolt(filepath.Join(t.TempDir(), "floe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &opRecorder{}
	s.Observe(rec)
	exercise(t, s)
	ops := rec.seen()
	for _, want := range []string{"bolt acquire lease", "bolt commit checkpoint", "bolt get checkpoint summary"} {
		if !slices.Contains(ops, want) {
			t.Errorf("no %q in %q", want, ops)
		}
	}
	for _, op := range ops {
		if strings.Contains(op, "orders_x") || strings.Contains(op, `"`) {
			t.Fatalf("op %q names a table", op)
		}
	}
}
