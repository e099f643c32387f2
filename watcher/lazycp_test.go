package watcher_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/metrics"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// wholeReads is an indexing store (Memory's file index) that counts the
// whole file maps runs read.
type wholeReads struct {
	*checkpoint.Memory
	n atomic.Int64
}

func (s *wholeReads) GetCheckpoint(ctx context.Context, table string) (checkpoint.Checkpoint, error) {
	s.n.Add(1)
	return s.Memory.GetCheckpoint(ctx, table)
}

// P14, I2: a watcher that runs once plans from the store's index of the
// file map: appends, merges of small units, dropped files and orphan
// clean-ups read no whole map and leave Pinot exactly as the snapshot;
// a coalesced unit that loses members and live delete files read the
// whole map. floe_checkpoint_files counts the store's map after each run
// although the watcher keeps no checkpoint.
func TestRun_OnceReadsOnlyTheFilesItTouches(t *testing.T) {
	var store *wholeReads
	opts := watcher.Options{Owner: "test", LeaseTTL: time.Minute, RunsOnce: true,
		Plan: plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 3}}
	h := newRunHarness(t, nil, opts,
		func(s checkpoint.Store) checkpoint.Store {
			store = &wholeReads{Memory: s.(*checkpoint.Memory)}
			return store
		})
	*h.lake = *newLake(t, iceberg.Properties{"format-version": "2"}) // equality deletes below
	reg := metrics.New()
	opts.WorkDir = t.TempDir()
	h.w = watcher.New(watcher.Deps{Store: store, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up, Metrics: reg}, opts)
	ctx := context.Background()
	step := func(what string, wantWhole int64) checkpoint.Run {
		t.Helper()
		before := store.n.Load()
		run := h.sync(t)
		h.assertConsistent(t)
		if got := store.n.Load() - before; got != wantWhole {
			t.Fatalf("%s: the run read %d whole file maps, want %d (run %+v)", what, got, wantWhole, run)
		}
		cp, err := store.Memory.GetCheckpoint(ctx, "events") // uncounted
		if err != nil {
			t.Fatal(err)
		}
		// A checkpoint the watcher does not cache is counted from the store.
		wantSamples(t, reg, map[string]float64{`floe_checkpoint_files{table="events"}`: float64(len(cp.Files))})
		return run
	}
	h.lake.appendRows(10)
	step("first sync (no checkpoint yet)", 1)
	merged := false
	for i := range 5 {
		h.lake.appendRows(10)
		run := step("append "+string(rune('1'+i)), 0)
		merged = merged || run.Kind == checkpoint.RunMerge
	}
	if !merged {
		t.Fatal("no run merged small units (P10) from the index")
	}

	orphan := plan.SegmentPrefix("events") + "dead_run_0"
	tar := filepath.Join(t.TempDir(), orphan+".tar.gz")
	if err := os.WriteFile(tar, []byte("dead"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.up.Upload(ctx, "events", pinot.Segment{Name: orphan, TarPath: tar}); err != nil {
		t.Fatal(err)
	}
	h.lake.appendRows(10)
	step("append with an orphan in Pinot", 0)
	if served, _ := h.up.ListSegments(ctx, "events"); slices.Contains(served, orphan) {
		t.Fatalf("orphan %s still served", orphan)
	}

	h.lake.overwrite(20)
	step("overwrite dropping merged units (their members are read whole)", 1)
	h.lake.appendRows(10)
	step("append after the overwrite", 0)
	h.lake.overwrite(20)
	step("overwrite dropping files built on their own", 0)
	h.lake.upsert([]int64{3})
	step("live delete files", 1)
}
