//go:build integration

package checkpoint

import (
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
)

// TestRedis_FileIndexBaseMoved: C9, C14 — when the index a delta's change
// was computed from is no longer stored by the time its script runs, the
// script still applies the delta to the map and header (the lease is
// current) but leaves the index out of step instead of applying an edit
// to an index it was not computed for; the next commit rebuilds it.
func TestRedis_FileIndexBaseMoved(t *testing.T) {
	ctx := t.Context()
	r, err := NewRedis(ctx, RedisOptions{URL: testpeer.StartRedis(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.CreateTable(ctx, Table{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	l, err := r.AcquireLease(ctx, "t", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]FileState{
		"a": {Segments: []string{"t_a_0"}, SizeBytes: 10},
		"b": {Segments: []string{"t_b_0"}, SizeBytes: 20},
		"x": {Segments: []string{"t_x_0"}, SizeBytes: 30},
		"y": {Segments: []string{"t_y_0"}, SizeBytes: 40},
	}
	if err := r.CommitCheckpoint(ctx, l, Checkpoint{Table: "t", SnapshotID: 1, Files: files}); err != nil {
		t.Fatal(err)
	}
	d := CheckpointDelta{Header: Checkpoint{Table: "t", SnapshotID: 2}, Delete: []string{"a"},
		Set: map[string]FileState{"c": {Segments: []string{"t_c_0"}, SizeBytes: 5}}}
	dels := d.deletions()
	base, w, err := r.deltaIndex(ctx, "t", d, dels)
	if err != nil || w.fresh {
		t.Fatalf("index change: fresh %v, err %v; want edits of an index in step", w != nil && w.fresh, err)
	}
	// The stored stamp moves under the computed change (what a commit in
	// between would do).
	if err := r.client.Set(ctx, r.keys.indexStamp("t"), base.stamp+" ", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.applyDelta(ctx, "commit", l, d, dels, base, w); err != nil {
		t.Fatal(err)
	}
	cp, err := r.GetCheckpoint(ctx, "t")
	if err != nil || cp.SnapshotID != 2 || len(cp.Files) != 4 || cp.Files["c"].SizeBytes != 5 {
		t.Fatalf("checkpoint %+v (%v), want snapshot 2 with b, c, x and y", cp, err)
	}
	if _, _, ok, err := r.IndexedCheckpoint(ctx, "t"); err != nil || ok {
		t.Fatalf("after a delta whose index base moved: in step %v, err %v; want out of step", ok, err)
	}
	d = CheckpointDelta{Header: Checkpoint{Table: "t", SnapshotID: 3}, Delete: []string{"b"}}
	if err := r.CommitCheckpointDelta(ctx, l, d); err != nil {
		t.Fatal(err)
	}
	_, counts, ok, err := r.IndexedCheckpoint(ctx, "t")
	if err != nil || !ok || counts.Files != 3 {
		t.Fatalf("after the next delta: counts %+v, in step %v, err %v; want 3 files in step", counts, ok, err)
	}
	orphans, err := r.UnreferencedSegments(ctx, "t", []string{"t_a_0", "t_b_0", "t_c_0"})
	if err != nil || len(orphans) != 2 || orphans[0] != "t_a_0" || orphans[1] != "t_b_0" {
		t.Fatalf("unreferenced %v (%v), want [t_a_0 t_b_0]", orphans, err)
	}
}
