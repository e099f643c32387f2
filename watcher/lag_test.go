package watcher_test

import (
	"context"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// observationOf reads the table's latest observation through the store's
// batched overview read, as the API's listing does.
func observationOf(t *testing.T, h *harness) checkpoint.Observation {
	t.Helper()
	ovs, err := h.store.TableOverviews(context.Background(), []string{"events"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ovs) != 1 || ovs[0].Observation == nil {
		t.Fatalf("no observation of events: %+v", ovs)
	}
	return *ovs[0].Observation
}

// Every check records the table's lag: none after a completed run, the
// snapshots not yet in Pinot (and since when) after a failed one.
func TestWatcher_RecordsLag(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(10)
	h.sync(t)
	o := observationOf(t, h)
	cur := h.lake.load().CurrentSnapshot()
	if o.SnapshotsBehind != 0 || o.LatestSnapshotID != cur.SnapshotID || !o.OldestUnsyncedAt.IsZero() || o.CheckedAt.IsZero() {
		t.Fatalf("after a completed run: %+v, want up to date at snapshot %d", o, cur.SnapshotID)
	}

	h.lake.appendRows(3)
	first := h.lake.load().CurrentSnapshot()
	h.lake.appendRows(4)
	for _, f := range liveFiles(t, h.lake) {
		if _, ok := mustCheckpoint(t, h.store).Files[f]; !ok {
			h.builder.fail[f[strings.LastIndex(f, "/")+1:]] = true
		}
	}
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("the run with failing files succeeded")
	}
	o = observationOf(t, h)
	latest := h.lake.load().CurrentSnapshot()
	if o.SnapshotsBehind != 2 || o.LatestSnapshotID != latest.SnapshotID || o.OldestUnsyncedAt.UnixMilli() != first.TimestampMs {
		t.Fatalf("after a failed run: %+v, want 2 snapshots behind since snapshot %d (%d ms)", o, first.SnapshotID, first.TimestampMs)
	}

	clear(h.builder.fail)
	h.sync(t)
	if o = observationOf(t, h); o.SnapshotsBehind != 0 || o.LatestSnapshotID != latest.SnapshotID {
		t.Fatalf("after the retry: %+v, want up to date", o)
	}
}
