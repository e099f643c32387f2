//go:build integration

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments/read"
	"github.com/floehq/floe/watcher"
)

// checkpointOf reads the table's checkpoint through replica r (ok false
// when there is none yet or r did not answer).
func (c *cluster) checkpointOf(r *replica, table string) (checkpoint.Checkpoint, bool) {
	var cp checkpoint.Checkpoint
	for page := 1; ; page++ {
		var p struct {
			Summary checkpoint.CheckpointSummary `json:"summary"`
			Files   []struct {
				Path string `json:"path"`
				checkpoint.FileState
			} `json:"files"`
			Pages int `json:"pages"`
		}
		url := fmt.Sprintf("/api/v1/tables/%s/checkpoint?pageSize=1000&page=%d", table, page)
		if code := r.call(c.t, http.MethodGet, url, nil, &p); code != http.StatusOK {
			return cp, false
		}
		if page == 1 {
			s := p.Summary
			cp = checkpoint.Checkpoint{Table: s.Table, SnapshotID: s.SnapshotID, SequenceNumber: s.SequenceNumber,
				MetadataLocation: s.MetadataLocation, TableUUID: s.TableUUID, SchemaID: s.SchemaID,
				Files: map[string]checkpoint.FileState{}, CommittedAt: s.CommittedAt, LeaseToken: s.LeaseToken,
				Backfill: s.Backfill, Rows: s.Rows}
		} else if p.Summary.CommittedAt != cp.CommittedAt || p.Summary.LeaseToken != cp.LeaseToken {
			page = 0 // a commit landed between two pages: read again from the first
			continue
		}
		for _, f := range p.Files {
			cp.Files[f.Path] = f.FileState
		}
		if page >= p.Pages {
			return cp, true
		}
	}
}

// runsOf reads the table's run history through replica r.
func (c *cluster) runsOf(r *replica, table string) []checkpoint.Run {
	var out struct {
		Runs []checkpoint.Run `json:"runs"`
	}
	r.call(c.t, http.MethodGet, "/api/v1/tables/"+table+"/runs?limit=100", nil, &out)
	return out.Runs
}

// waitConverged waits until the checkpoint sits at the lake's current
// snapshot with no backfill under way and returns it.
func (c *cluster) waitConverged(table string, timeout time.Duration) checkpoint.Checkpoint {
	c.t.Helper()
	want, _ := c.lake.snapshot()
	deadline := time.Now().Add(timeout)
	var last checkpoint.Checkpoint
	for time.Now().Before(deadline) {
		if cp, ok := c.checkpointOf(c.live(), table); ok {
			last = cp
			if cp.SnapshotID == want && cp.Backfill == nil {
				return cp
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("table %s did not reach snapshot %d within %s (checkpoint at %d, backfill %+v)",
		table, want, timeout, last.SnapshotID, last.Backfill)
	return last
}

// manifest reads the sink's list of served segments of the table (none
// when the sink has no such table yet).
func (c *cluster) manifest(table string) []string {
	names, err := pinot.NewLocalDir(c.sink).ListSegments(context.Background(), table)
	if errors.Is(err, pinot.ErrTableMissing) {
		return nil
	}
	if err != nil {
		c.t.Fatalf("read sink manifest: %v", err)
	}
	slices.Sort(names)
	return names
}

// served lists the table's served segments: the sink's manifest, or the
// controller's list (replaced segments excluded).
func (c *cluster) served(table string) []string {
	if c.set.pinot == nil {
		return c.manifest(table)
	}
	ctl, err := pinot.NewController(c.set.pinot.ControllerURL, 30*time.Second, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	names, err := ctl.ListSegments(context.Background(), table)
	if err != nil {
		c.t.Fatalf("list segments of %s: %v", table, err)
	}
	slices.Sort(names)
	return names
}

// assertBrokerRows compares what the broker answers with the snapshot:
// count, distinct count, sum, min and max of the (unique) ids — equal
// only when every row is there exactly once.
func (c *cluster) assertBrokerRows(table string, rows map[int64]int) {
	c.t.Helper()
	var sum, lo, hi int64
	lo = math.MaxInt64
	for id := range rows {
		sum += id
		lo, hi = min(lo, id), max(hi, id)
	}
	q := fmt.Sprintf("SELECT COUNT(*), DISTINCTCOUNT(id), SUM(id), MIN(id), MAX(id) FROM %s", table)
	want := fmt.Sprint([]any{float64(len(rows)), float64(len(rows)), float64(sum), float64(lo), float64(hi)})
	broker := pinot.NewBroker(c.set.pinot.BrokerURL, 30*time.Second, nil)
	broker.NullHandling = false // the test cluster is Pinot 0.11
	var got string
	var qerr error
	for range 50 { // the broker's routing follows the last swap within moments
		res, err := broker.Query(context.Background(), q)
		qerr = err
		if err == nil && len(res.Rows) == 1 {
			got = fmt.Sprint(numbers(res.Rows[0]))
			if got == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("broker answers %s (error %v) for %q, the snapshot gives %s", got, qerr, q, want)
}

func numbers(row []any) []any {
	out := make([]any, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case float64:
			out[i] = x
		case json.Number:
			f, _ := x.Float64()
			out[i] = f
		default:
			out[i] = v
		}
	}
	return out
}

// servedIDs reads the id column of every served segment of the table.
func (c *cluster) servedIDs(table string, names []string) map[int64]int {
	ids := map[int64]int{}
	for _, n := range names {
		seg, err := read.Open(filepath.Join(c.sink, table, n+".tar.gz"))
		if err != nil {
			c.t.Fatalf("open served segment %s: %v", n, err)
		}
		col, err := seg.ReadColumn("id")
		if err != nil {
			c.t.Fatalf("read segment %s: %v", n, err)
		}
		for _, v := range col.Values {
			ids[v.(int64)]++
		}
	}
	return ids
}

// assertConverged waits for table to reach the lake's snapshot (I2 after
// a crash series) and checks it: exactly the snapshot's rows, nothing of a
// dead run in the work directory, no temporary file in the sink.
func (c *cluster) assertConverged(table string, timeout time.Duration) checkpoint.Checkpoint {
	c.t.Helper()
	cp := c.waitConverged(table, timeout)
	c.assertExact(table, cp)
	c.assertNoDeadWorkDirs()
	c.assertNoLeftoverTemps()
	return cp
}

// assertExact checks I2 on the converged table: the served segments are
// exactly the checkpoint's (no orphan, none missing), they hold exactly the
// snapshot's rows (no duplicate, none missing), and no run stays RUNNING.
func (c *cluster) assertExact(table string, cp checkpoint.Checkpoint) {
	c.t.Helper()
	var want []string
	for _, fs := range cp.Files {
		want = append(want, fs.Segments...)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	got := c.served(table)
	if !slices.Equal(got, want) {
		c.t.Fatalf("sink serves %d segments, the checkpoint names %d: sink != checkpoint\nsink: %v\ncheckpoint: %v",
			len(got), len(want), got, want)
	}
	snap, rows := c.lake.snapshot()
	if c.set.pinot != nil {
		c.assertBrokerRows(table, rows)
	} else if served := c.servedIDs(table, got); !maps.Equal(served, rows) {
		missing, dup, extra := diffIDs(rows, served)
		c.t.Fatalf("snapshot %d: Iceberg has %d rows, the served segments %d: %d missing, %d duplicated, %d not in Iceberg",
			snap, len(rows), total(served), missing, dup, extra)
	}
	for _, run := range c.runsOf(c.live(), table) {
		if run.Status == checkpoint.RunRunning {
			c.t.Errorf("run %s (owner %s) still RUNNING after convergence", run.ID, run.Owner)
		}
	}
	c.t.Logf("table %s exact at snapshot %d: %d rows in %d segments", table, snap, len(rows), len(got))
}

func diffIDs(want, got map[int64]int) (missing, dup, extra int) {
	for id := range want {
		if got[id] == 0 {
			missing++
		}
	}
	for id, n := range got {
		switch {
		case want[id] == 0:
			extra++
		case n > want[id]:
			dup++
		}
	}
	return missing, dup, extra
}

func total(m map[int64]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// assertNoDeadWorkDirs checks that no run directory is left in the work
// directory of any replica (a dead run's files are removed at start-up).
func (c *cluster) assertNoDeadWorkDirs() {
	c.t.Helper()
	var left []string
	keyIndex := filepath.Join(c.work, watcher.KeyIndexDirName) // kept across runs (plan P12), not a run's
	_ = filepath.WalkDir(c.work, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Dir(path) != keyIndex || strings.Contains(d.Name(), ".tmp-")) {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		c.t.Fatalf("files of dead runs left in the work directory: %v", left)
	}
}

// assertNoLeftoverTemps checks that no temporary file (a tarball being
// copied in, a state version being published) is left in the sink: every
// process start sweeps those of killed writers.
func (c *cluster) assertNoLeftoverTemps() {
	c.t.Helper()
	var left []string
	_ = filepath.WalkDir(c.sink, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		c.t.Fatalf("temporary files of killed writers left in the sink: %v", left)
	}
}
