package checkpoint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

const benchFiles = 10_000

// benchCommit measures one full checkpoint commit of a 10k-file map.
func benchCommit(b *testing.B, s checkpoint.Store) {
	ctx := context.Background()
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	l, err := s.AcquireLease(ctx, "bench", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	files := make(map[string]checkpoint.FileState, benchFiles)
	for i := range benchFiles {
		path := fmt.Sprintf("s3://bucket/wh/db/t/data/00000-%d-6f1c1a52-7a4b-4d0e.parquet", i)
		files[path] = checkpoint.FileState{Segments: []string{fmt.Sprintf("bench_%d_0", i)}, Rows: 100_000, SizeBytes: 64 << 20}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cp := checkpoint.Checkpoint{Table: "bench", SnapshotID: int64(i), Files: files}
		if err := s.CommitCheckpoint(ctx, l, cp); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStore_CommitCheckpoint(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchCommit(b, checkpoint.NewMemory()) })
	b.Run("bolt", func(b *testing.B) {
		s, err := checkpoint.OpenBolt(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchCommit(b, s)
	})
}

// BenchmarkStore_GetCheckpoint measures reading a 100,000-file checkpoint
// whose files were coalesced 1,000 to a unit (what a cold `floe sync` of a
// large table of small files reads first).
func BenchmarkStore_GetCheckpoint(b *testing.B) {
	ctx := context.Background()
	s, err := checkpoint.OpenBolt(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	l, err := s.AcquireLease(ctx, "bench", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	const n = 100_000
	files := make(map[string]checkpoint.FileState, n)
	for i := range n {
		unit := fmt.Sprintf("bench_c%08x", i/1000)
		files[fmt.Sprintf("s3://bucket/wh/db/t/data/00000-%d-6f1c1a52-7a4b-4d0e.parquet", i)] = checkpoint.FileState{
			Segments: []string{unit + "_0"}, Rows: 100, SizeBytes: 1500, Group: unit, DataSeq: int64(i/1000 + 1),
			KeyBounds: checkpoint.KeyBounds{1: {[]byte{1, 0, 0, 0, 0, 0, 0, 0}, []byte{99, 0, 0, 0, 0, 0, 0, 0}}}}
	}
	if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "bench", SnapshotID: 1, Files: files}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cp, err := s.GetCheckpoint(ctx, "bench")
		if err != nil || len(cp.Files) != n {
			b.Fatalf("read %d files: %v", len(cp.Files), err)
		}
	}
}
