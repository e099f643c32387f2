//go:build integration

package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
)

// The demo against a real Pinot cluster: floe creates the schema and
// table through the controller, pushes its segments, and the broker
// answers with exactly the rows of the Iceberg snapshot floe checkpointed,
// first and after an incremental snapshot.
func TestDemo_AgainstPinotCluster(t *testing.T) {
	c := testpeer.StartPinot(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	o := demoOptions{dataDir: dir, addr: addr, interval: 3 * time.Second, rows: 250, schedule: "* * * * * ?"}
	cfg := config.Default()
	cfg.Server.Addr = addr
	cfg.Store.Path = filepath.Join(dir, "floe.db")
	cfg.Pinot.ControllerURL = c.ControllerURL
	cfg.Watcher.WorkDir = filepath.Join(dir, "work")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDemo(ctx, cfg, o, newLogger(cfg.Log, io.Discard), io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v", err)
		}
	}()
	b := pinot.NewBroker(c.BrokerURL, time.Minute, nil)
	b.NullHandling = false // the test cluster is Pinot 0.11
	first := waitSnapshot(t, addr, 0)
	waitPinotRows(t, b, 250)
	second := waitSnapshot(t, addr, first.Checkpoint.SnapshotID)
	// The run that synced the snapshot: the newest run may already be the
	// next one, still RUNNING.
	if run := runOf(t, addr, second.Checkpoint.SnapshotID); run.SegmentsGenerated != 1 {
		t.Fatalf("incremental run should push one segment: %+v", run)
	}
	waitPinotRows(t, b, 500)
	rt, err := b.Query(context.Background(), "SELECT count(DISTINCT id), min(id), max(id) FROM demo_events")
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.Rows[0]; num(got[0]) < 500 || num(got[1]) != 0 {
		t.Fatalf("distinct ids %v", got)
	}
}

// waitPinotRows polls until the broker counts at least want rows, and
// checks the count is a whole number of appends (no partial segment).
func waitPinotRows(t *testing.T, b *pinot.Broker, want int64) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last any
	for time.Now().Before(deadline) {
		rt, err := b.Query(context.Background(), "SELECT count(*) FROM demo_events")
		if err == nil && len(rt.Rows) == 1 {
			n := int64(num(rt.Rows[0][0]))
			if n%250 != 0 {
				t.Fatalf("Pinot shows %d rows: not a whole number of snapshots", n)
			}
			if n >= want {
				return
			}
			last = n
		} else {
			last = err
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("Pinot never reached %d rows (last %v)", want, last)
}

func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}
