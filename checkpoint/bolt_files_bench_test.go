package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// BenchmarkBolt_CommitCheckpointDelta_Compaction measures the commit of a
// remap on a Bolt store: 10,000 files of a 10,100-file checkpoint leave
// it, 100 new files take their segments (what a compaction of the table
// into a hundredth commits).
func BenchmarkBolt_CommitCheckpointDelta_Compaction(b *testing.B) {
	ctx := b.Context()
	dir := b.TempDir()
	seed := filepath.Join(dir, "seed.db")
	s, err := checkpoint.OpenBolt(seed)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	l, err := s.AcquireLease(ctx, "bench", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	const old, kept, fresh = 10_000, 100, 100
	files := make(map[string]checkpoint.FileState, old+kept)
	var d checkpoint.CheckpointDelta
	d.Set = map[string]checkpoint.FileState{}
	for i := range old + kept {
		path := fmt.Sprintf("s3://bucket/wh/db/t/data/00000-%d-6f1c1a52-7a4b-4d0e.parquet", i)
		files[path] = checkpoint.FileState{Segments: []string{"bench_g0_0"}, Rows: 100, SizeBytes: 1500, Group: "bench_g0",
			DataSeq: 1}
		if i < old {
			d.Delete = append(d.Delete, path)
		}
	}
	for i := range fresh {
		d.Set[fmt.Sprintf("s3://bucket/wh/db/t/data/c-%d.parquet", i)] = checkpoint.FileState{Rows: 10_000, DataSeq: 1}
	}
	if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "bench", SnapshotID: 1, Files: files}); err != nil {
		b.Fatal(err)
	}
	s.Close()
	d.Header = checkpoint.Checkpoint{Table: "bench", SnapshotID: 2}
	b.ReportAllocs()
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db := filepath.Join(dir, fmt.Sprintf("%d.db", i))
		raw, err := os.ReadFile(seed)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(db, raw, 0o644); err != nil {
			b.Fatal(err)
		}
		s, err := checkpoint.OpenBolt(db)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cpuTime()
		if err := s.CommitCheckpointDelta(ctx, l, d); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - cpu0
		b.StopTimer()
		got, err := s.GetCheckpoint(ctx, "bench")
		if err != nil || len(got.Files) != kept+fresh {
			b.Fatalf("checkpoint holds %d files, want %d: %v", len(got.Files), kept+fresh, err)
		}
		s.Close()
		os.Remove(db)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
