package checkpoint

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestBolt_FileIndexRebuiltAfterOlderRelease: C14 — a store whose last
// commit kept no index (a release before indexes, simulated by removing
// it) reports the index out of step, and the next delta commit rebuilds
// it from the stored map.
func TestBolt_FileIndexRebuiltAfterOlderRelease(t *testing.T) {
	ctx := t.Context()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "floe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CreateTable(ctx, Table{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	l, err := b.AcquireLease(ctx, "t", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]FileState{
		"a": {Segments: []string{"t_a_0"}, SizeBytes: 10, DataSeq: 1},
		"b": {Segments: []string{"t_g_0"}, SizeBytes: 20, Group: "t_g", DataSeq: 1},
		"c": {Segments: []string{"t_g_0"}, SizeBytes: 30, Group: "t_g"},
	}
	if err := b.CommitCheckpoint(ctx, l, Checkpoint{Table: "t", SnapshotID: 1, Files: files}); err != nil {
		t.Fatal(err)
	}
	if _, c, ok, err := b.IndexedCheckpoint(ctx, "t"); err != nil || !ok || c != CountFiles(files) {
		t.Fatalf("after a commit: counts %+v, in step %v, err %v; want %+v in step", c, ok, err, CountFiles(files))
	}
	if err := b.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bktFileIndex).DeleteBucket([]byte("t")) }); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := b.IndexedCheckpoint(ctx, "t"); err != nil || ok {
		t.Fatalf("without an index: in step %v, err %v; want out of step", ok, err)
	}
	if _, err := b.SmallUnits(ctx, "t", []string{""}, 100); !errors.Is(err, ErrIndexStale) {
		t.Fatalf("small units without an index: %v, want ErrIndexStale", err)
	}
	if _, err := b.UnreferencedSegments(ctx, "t", []string{"t_a_0"}); !errors.Is(err, ErrIndexStale) {
		t.Fatalf("unreferenced segments without an index: %v, want ErrIndexStale (not every name an orphan)", err)
	}
	d := CheckpointDelta{Header: Checkpoint{Table: "t", SnapshotID: 2}, Delete: []string{"a"},
		Set: map[string]FileState{"d": {Segments: []string{"t_d_0"}, SizeBytes: 5, DataSeq: 2}}}
	if err := b.CommitCheckpointDelta(ctx, l, d); err != nil {
		t.Fatal(err)
	}
	delete(files, "a")
	files["d"] = d.Set["d"]
	if _, c, ok, err := b.IndexedCheckpoint(ctx, "t"); err != nil || !ok || c != CountFiles(files) {
		t.Fatalf("after the next delta: counts %+v, in step %v, err %v; want %+v in step", c, ok, err, CountFiles(files))
	}
	units, err := b.SmallUnits(ctx, "t", []string{""}, 100)
	if err != nil || len(units) != 2 || units[1].Group != "t_g" || units[1].Bytes != 50 || units[0].Paths[0] != "d" {
		t.Fatalf("small units %+v (%v), want d alone and t_g of 50 bytes", units, err)
	}
	orphans, err := b.UnreferencedSegments(ctx, "t", []string{"t_a_0", "t_g_0", "t_d_0"})
	if err != nil || len(orphans) != 1 || orphans[0] != "t_a_0" {
		t.Fatalf("unreferenced %v (%v), want [t_a_0]", orphans, err)
	}
}
