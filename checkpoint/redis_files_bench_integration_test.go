//go:build integration

package checkpoint_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// benchRedis opens a Redis store on a fresh redis-server with one table
// "bench" and its lease.
func benchRedis(b *testing.B) (*checkpoint.Redis, checkpoint.Lease) {
	url := testpeer.StartRedis(b)
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	if err := s.CreateTable(b.Context(), checkpoint.Table{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	l, err := s.AcquireLease(b.Context(), "bench", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	return s, l
}

func benchPath(i int) string {
	return fmt.Sprintf("s3://bucket/wh/db/t/data/00000-%d-6f1c1a52-7a4b-4d0e.parquet", i)
}

// BenchmarkRedis_CommitCheckpointDelta_Append measures a run's commit on
// a 10,000-file checkpoint: 10 files in, the 10 of the previous commit out.
func BenchmarkRedis_CommitCheckpointDelta_Append(b *testing.B) {
	ctx := b.Context()
	s, l := benchRedis(b)
	files := make(map[string]checkpoint.FileState, benchFiles)
	for i := range benchFiles {
		files[benchPath(i)] = checkpoint.FileState{Segments: []string{fmt.Sprintf("bench_%d_0", i)}, Rows: 100_000,
			SizeBytes: 64 << 20, DataSeq: 1}
	}
	if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "bench", SnapshotID: 1, Files: files}); err != nil {
		b.Fatal(err)
	}
	const n = 10
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "bench", SnapshotID: int64(i + 2)},
			Set: make(map[string]checkpoint.FileState, n)}
		for j := range n {
			d.Set[benchPath(benchFiles+i*n+j)] = checkpoint.FileState{Segments: []string{fmt.Sprintf("bench_a%d_%d_0", i, j)},
				Rows: 1000, SizeBytes: 1 << 20, DataSeq: int64(i + 2)}
			if i > 0 {
				d.Delete = append(d.Delete, benchPath(benchFiles+(i-1)*n+j))
			}
		}
		if err := s.CommitCheckpointDelta(ctx, l, d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedis_CommitCheckpointDelta_Compaction measures the commit of
// a remap on Redis: 10,000 files of a 10,100-file checkpoint leave it,
// 100 new files take their segments (as the Bolt benchmark of the name).
func BenchmarkRedis_CommitCheckpointDelta_Compaction(b *testing.B) {
	ctx := b.Context()
	s, l := benchRedis(b)
	const old, kept, fresh = 10_000, 100, 100
	files := make(map[string]checkpoint.FileState, old+kept)
	d := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "bench", SnapshotID: 2},
		Set: map[string]checkpoint.FileState{}}
	for i := range old + kept {
		files[benchPath(i)] = checkpoint.FileState{Segments: []string{"bench_g0_0"}, Rows: 100, SizeBytes: 1500,
			Group: "bench_g0", DataSeq: 1}
		if i < old {
			d.Delete = append(d.Delete, benchPath(i))
		}
	}
	for i := range fresh {
		d.Set[fmt.Sprintf("s3://bucket/wh/db/t/data/c-%d.parquet", i)] = checkpoint.FileState{Rows: 10_000, DataSeq: 1}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "bench", SnapshotID: 1, Files: files}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.CommitCheckpointDelta(ctx, l, d); err != nil {
			b.Fatal(err)
		}
	}
}
