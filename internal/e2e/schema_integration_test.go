//go:build integration

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/segments/read"
)

// Schema changes committed without data, as Spark's ALTER TABLE … RENAME
// COLUMN and DROP COLUMN commit them (a new metadata file with a new
// current schema, no snapshot), reach Pinot through `floe serve`'s lag
// check, whatever the table's schedule (here: once a year): the rename is
// recorded by a run and changes no segment; after the drop no served row
// holds the column's old values (read back by floe's reader and by Pinot
// 1.5.1's engine), every segment was rebuilt, and the segments hold
// exactly the snapshot's rows (I2).
func TestSchema_MetadataOnlyChangesAppliedByTheCheck(t *testing.T) {
	c := newCluster(t, settings{replicas: 1, leaseTTL: 10 * time.Second, batchFiles: 4, buildParallelism: 1,
		claimTimeout: 2 * time.Second, schedule: "0 0 0 1 1 ?", lagInterval: time.Second})
	c.lake.appendFiles(3, 100)
	c.startAll()
	c.createTable(c.replicas[0], "events")
	cp := c.waitConverged("events", 60*time.Second)
	if n, rows := c.servedNonNull("events", "v"); n != 300 || rows != 300 {
		t.Fatalf("before any schema change: %d of %d served rows hold v, want 300 of 300", n, rows)
	}
	before := c.manifest("events")
	engine := pinottest.New(t).NewEngine(t)
	c.assertEngineCounts(engine, "events", "v", 300, 300)

	c.lake.alter(func(u *table.UpdateSchema) { u.RenameColumn([]string{"v"}, "value") })
	cp = c.waitSchemaApplied("events", cp)
	run := c.runWithSchemaChange("events", `from "v" to "value"`)
	if run.Status != checkpoint.RunCompleted || run.SegmentsGenerated != 0 || run.SnapshotID != cp.SnapshotID {
		t.Errorf("the rename's run: %s, %d segments built, snapshot %d; want a completed run at snapshot %d building nothing",
			run.Status, run.SegmentsGenerated, run.SnapshotID, cp.SnapshotID)
	}
	if after := c.manifest("events"); !slices.Equal(after, before) {
		t.Errorf("a rename changed the served segments: %v → %v", before, after)
	}

	c.lake.alter(func(u *table.UpdateSchema) { u.DeleteColumn([]string{"value"}) })
	cp = c.waitSchemaApplied("events", cp)
	if n, rows := c.servedNonNull("events", "v"); n != 0 || rows != 300 {
		t.Errorf("after the drop: %d of %d served rows still hold the dropped column's values, want 0 of 300", n, rows)
	}
	for _, s := range c.manifest("events") {
		if slices.Contains(before, s) {
			t.Errorf("segment %s was not rebuilt for the drop", s)
		}
	}
	c.runWithSchemaChange("events", "rebuild: ")
	c.assertExact("events", cp)
	c.assertEngineCounts(engine, "events", "v", 300, 0)
}

// assertEngineCounts loads the table's served segments into Pinot 1.5.1's
// engine with the schema and table config in the sink, as a server loads
// them, and checks its count of rows and of rows where col is not null.
func (c *cluster) assertEngineCounts(engine *pinottest.Engine, table, col string, rows, nonNull int) {
	c.t.Helper()
	ctx := context.Background()
	dir := filepath.Join(c.sink, table)
	schemaJSON, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		c.t.Fatal(err)
	}
	tableJSON, err := os.ReadFile(filepath.Join(dir, "tableConfig.json"))
	if err != nil {
		c.t.Fatal(err)
	}
	var segs []string
	for _, n := range c.manifest(table) {
		segs = append(segs, filepath.Join(dir, n+".tar.gz"))
	}
	if _, err := engine.Load(ctx, table, schemaJSON, tableJSON, segs); err != nil {
		c.t.Fatalf("Pinot 1.5.1 loads the served segments of %s: %v", table, err)
	}
	q := fmt.Sprintf("SELECT COUNT(*), COUNT(%s) FROM %s", col, table)
	res, err := engine.Query(ctx, q)
	if err != nil || len(res.Rows) != 1 {
		c.t.Fatalf("Pinot 1.5.1: %s: %v, %v", q, res, err)
	}
	got := fmt.Sprint(numbers(res.Rows[0]))
	if want := fmt.Sprint([]any{float64(rows), float64(nonNull)}); got != want {
		c.t.Errorf("Pinot 1.5.1 answers %s for %q, want %s (rows, rows holding %s)", got, q, want, col)
	}
}

// alter commits a schema change and no data (a new metadata file).
func (l *lake) alter(fn func(*table.UpdateSchema)) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	tx := l.load().NewTransaction()
	u := tx.UpdateSchema(true, false)
	fn(u)
	if err := u.Commit(); err != nil {
		l.t.Fatalf("update schema: %v", err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		l.t.Fatalf("commit schema update: %v", err)
	}
}

// waitSchemaApplied waits until a checkpoint of the table records the
// lake's current schema at the same snapshot as prev, and returns it.
func (c *cluster) waitSchemaApplied(table string, prev checkpoint.Checkpoint) checkpoint.Checkpoint {
	c.t.Helper()
	want := c.lake.load().Schema().ID
	since := time.Now()
	deadline := since.Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cp, ok := c.checkpointOf(c.live(), table); ok && cp.SchemaID == want {
			if cp.SnapshotID != prev.SnapshotID {
				c.t.Fatalf("the schema change moved the checkpoint from snapshot %d to %d", prev.SnapshotID, cp.SnapshotID)
			}
			c.t.Logf("Iceberg schema %d of %s applied %s after its commit (watcher.lagInterval %s)",
				want, table, time.Since(since).Round(time.Millisecond), c.set.lagInterval)
			return cp
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("no run applied Iceberg schema %d of %s", want, table)
	return prev
}

// runWithSchemaChange returns the newest ended run of the table whose
// schemaChange holds sub.
func (c *cluster) runWithSchemaChange(table, sub string) checkpoint.Run {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, run := range c.runsOf(c.live(), table) {
			if run.Status != checkpoint.RunRunning && strings.Contains(run.SchemaChange, sub) {
				return run
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("no run of %s records a schema change with %q", table, sub)
	return checkpoint.Run{}
}

// servedNonNull counts the served rows of the table and those whose
// column col is not null.
func (c *cluster) servedNonNull(table, col string) (nonNull, rows int) {
	c.t.Helper()
	for _, n := range c.manifest(table) {
		seg, err := read.Open(filepath.Join(c.sink, table, n+".tar.gz"))
		if err != nil {
			c.t.Fatalf("open served segment %s: %v", n, err)
		}
		v, err := seg.ReadColumn(col)
		if err != nil {
			c.t.Fatalf("read column %s of segment %s: %v", col, n, err)
		}
		rows += seg.TotalDocs
		for i := range seg.TotalDocs {
			if v.Nulls == nil || !v.Nulls[i] {
				nonNull++
			}
		}
	}
	return nonNull, rows
}
