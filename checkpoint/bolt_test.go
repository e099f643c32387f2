package checkpoint_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/checkpoint/checkpointtest"
)

func openBolt(t *testing.T) *checkpoint.Bolt {
	t.Helper()
	s, err := checkpoint.OpenBolt(filepath.Join(t.TempDir(), "floe.db"))
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestBolt_Conformance(t *testing.T) {
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store { return openBolt(t) })
}

func TestOpenBolt_LockedFileNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	first, err := checkpoint.OpenBolt(path)
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	defer first.Close()
	second, err := checkpoint.OpenBolt(path)
	if err == nil {
		_ = second.Close()
		t.Fatal("second OpenBolt of a locked file succeeded")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("lock error %q does not name the file and the lock", err)
	}
}

func TestOpenBolt_BadPathNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "floe.db")
	_, err := checkpoint.OpenBolt(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("OpenBolt(%s) error = %v, want one naming the file", path, err)
	}
}

// TestBolt_Reopen: everything survives closing and reopening the file.
func TestBolt_Reopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "floe.db")
	s, err := checkpoint.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "orders"}); err != nil {
		t.Fatal(err)
	}
	l, err := s.AcquireLease(ctx, "orders", "r1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]checkpoint.FileState{"a.parquet": {Segments: []string{"s0"}, Rows: 3}}
	if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "orders", SnapshotID: 9, Files: files}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = checkpoint.OpenBolt(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	cp, err := s.GetCheckpoint(ctx, "orders")
	if err != nil {
		t.Fatalf("GetCheckpoint after reopen: %v", err)
	}
	if cp.SnapshotID != 9 || cp.Files["a.parquet"].Rows != 3 || cp.LeaseToken != l.Token {
		t.Fatalf("checkpoint after reopen = %+v", cp)
	}
	got, err := s.GetLease(ctx, "orders")
	if err != nil || got.Token != l.Token {
		t.Fatalf("lease after reopen = %+v, %v; want token %d", got, err, l.Token)
	}
	_, err = s.AcquireLease(ctx, "orders", "r2", time.Minute)
	if !errors.Is(err, checkpoint.ErrLeaseHeld) {
		t.Fatalf("AcquireLease by r2 after reopen: %v, want ErrLeaseHeld", err)
	}
}

func TestOpenBolt_NotABoltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not bolt ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := checkpoint.OpenBolt(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("OpenBolt(garbage) error = %v, want one naming the file", err)
	}
}
