//go:build integration

package checkpoint

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	r, l := leasedRedis(t)
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

// TestRedis_CommitScriptRunTwice: C1, C14 — a commit's script that runs
// again after it committed (a client that resends it after a read
// timeout) reports the commit done, changes nothing and leaves no staging
// key, for a delta as for a whole commit.
func TestRedis_CommitScriptRunTwice(t *testing.T) {
	ctx := t.Context()
	r, l := leasedRedis(t)
	cp := stampCheckpoint(Checkpoint{Table: "t", SnapshotID: 1, Files: map[string]FileState{"a": {Segments: []string{"t_a_0"}, SizeBytes: 10}}},
		l, time.Now())
	w, err := freshIndexWrite(cp.Files)
	if err != nil {
		t.Fatal(err)
	}
	hdr, stamp, err := encodeHeaderAndStamp(newHeader(cp), w.counts)
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Concat([]string{r.keys.lease("t"), r.keys.staging("t", "n"), r.keys.files("t"), r.keys.checkpoint("t")},
		r.keys.index("t"), r.keys.indexStaging("t", "n").keys())
	tok := strconv.FormatInt(l.Token, 10)
	args := append([]any{l.Owner, tok, 1, hdr, stamp}, w.sizes()...)
	b := r.newStageBatch(ctx)
	if err := b.files(r.keys.staging("t", "n"), cp.Files); err != nil {
		t.Fatal(err)
	}
	if err := w.stage(b, r.keys.indexStaging("t", "n")); err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		if res, err := b.commit(r.scripts.commit, keys, args...); err != nil || res != "ok" {
			t.Fatalf("whole commit's script, run %d: %q, %v; want ok", run+1, res, err)
		}
		b = r.newStageBatch(ctx)
	}
	want := indexDumpOf(t, r)
	d := CheckpointDelta{Header: Checkpoint{Table: "t", SnapshotID: 2}, Set: map[string]FileState{"b": {Segments: []string{"t_b_0"}}}}
	if err := r.CommitCheckpointDelta(ctx, l, d); err != nil {
		t.Fatal(err)
	}
	if want == indexDumpOf(t, r) {
		t.Fatal("the delta changed nothing")
	}
	want = indexDumpOf(t, r)
	stored, err := r.client.Get(ctx, r.keys.checkpoint("t")).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The delta's script again, with its own header: as a resend finds it.
	dkeys := slices.Concat([]string{r.keys.lease("t"), r.keys.staging("t", "m"), r.keys.staging("t", "m:del"),
		r.keys.files("t"), r.keys.checkpoint("t")}, r.keys.index("t"), r.keys.indexStaging("t", "m").keys())
	res, err := r.scripts.commitDelta.Run(ctx, r.client, dkeys, l.Owner, tok, stored, "edit", "", "", "",
		1, 0, 1, 1, 1, 0, 0).Text()
	if err != nil || res != "ok" {
		t.Fatalf("delta's script run again: %q, %v; want ok", res, err)
	}
	if got := indexDumpOf(t, r); got != want {
		t.Fatalf("the delta's script run again changed the store:\n%s\nwant\n%s", got, want)
	}
}

// TestRedis_FileIndexCountsTheMap: C14 — an index whose count is not the
// file map's length (an entry written behind the commit scripts' back) is
// out of step: IndexedCheckpoint says so and the index reads refuse.
func TestRedis_FileIndexCountsTheMap(t *testing.T) {
	ctx := t.Context()
	r, l := leasedRedis(t)
	if err := r.CommitCheckpoint(ctx, l, Checkpoint{Table: "t", SnapshotID: 1,
		Files: map[string]FileState{"a": {Segments: []string{"t_a_0"}, SizeBytes: 10}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := r.IndexedCheckpoint(ctx, "t"); err != nil || !ok {
		t.Fatalf("after a whole commit: in step %v, err %v", ok, err)
	}
	if err := r.client.HSet(ctx, r.keys.files("t"), "b", `{"v":1,"segments":["t_b_0"],"rows":1}`).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := r.IndexedCheckpoint(ctx, "t"); err != nil || ok {
		t.Fatalf("with an entry the index does not count: in step %v, err %v; want out of step", ok, err)
	}
	if _, err := r.SmallUnits(ctx, "t", []string{""}, 100); !errors.Is(err, ErrIndexStale) {
		t.Fatalf("small units: %v, want ErrIndexStale", err)
	}
	if _, err := r.UnreferencedSegments(ctx, "t", []string{"t_b_0"}); !errors.Is(err, ErrIndexStale) {
		t.Fatalf("unreferenced segments: %v, want ErrIndexStale", err)
	}
}

// indexDumpOf is the table t's header, map and index keys, for comparing
// the store before and after.
func indexDumpOf(t *testing.T, r *Redis) string {
	t.Helper()
	ctx := t.Context()
	var b strings.Builder
	for _, k := range []string{r.keys.checkpoint("t"), r.keys.indexStamp("t")} {
		v, _ := r.client.Get(ctx, k).Result()
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	for _, k := range []string{r.keys.files("t"), r.keys.indexSegs("t"), r.keys.indexUnits("t")} {
		v, _ := r.client.HGetAll(ctx, k).Result()
		fmt.Fprintf(&b, "%s=%v\n", k, v)
	}
	z, _ := r.client.ZRange(ctx, r.keys.indexSmall("t"), 0, -1).Result()
	fmt.Fprintf(&b, "small=%v\n", z)
	staged, _ := r.client.Keys(ctx, "*staging*").Result()
	fmt.Fprintf(&b, "staging=%v\n", staged)
	return b.String()
}

// leasedRedis is a Redis store on a fresh redis-server with table "t"
// and a lease on it (closed with the test).
func leasedRedis(t *testing.T) (*Redis, Lease) {
	t.Helper()
	ctx := t.Context()
	r, err := NewRedis(ctx, RedisOptions{URL: testpeer.StartRedis(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if err := r.CreateTable(ctx, Table{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	l, err := r.AcquireLease(ctx, "t", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return r, l
}
