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
