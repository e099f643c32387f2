//go:build integration

package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
)

// I9, I2, I4: an overwrite streams into one open replacement built by
// three replicas. Mid-stream either the lease holder is SIGKILLed (the
// next holder resumes the replacement it left open) or a builder replica
// is frozen past the lease (SIGSTOP) and then resumed (its claimed unit is
// built elsewhere; when it wakes, W1 refuses its upload). Either way the
// table ends exact: the rows of the snapshot once each, no orphan segment,
// no open replacement, no temporary or work file left.
func TestStream_ReplacementSurvivesKillAndFreeze(t *testing.T) {
	for _, event := range []string{"kill holder", "freeze builder"} {
		t.Run(event, func(t *testing.T) { streamScenario(t, event, nil) })
	}
}

func streamScenario(t *testing.T, event string, pc *testpeer.PinotCluster) {
	table := "events_" + strings.ReplaceAll(event, " ", "_")
	c := newCluster(t, settings{replicas: 3, leaseTTL: 3 * time.Second, batchFiles: 64, buildParallelism: 1,
		claimTimeout: 2 * time.Second, schedule: "0 0 0 1 1 ?", pinot: pc})
	c.lake.appendFiles(8, 10_000)
	c.startAll()
	c.createTable(c.replicas[0], table)
	c.waitConverged(table, 60*time.Second)
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(c.redisURL, "redis://"), "/0")})
	defer rdb.Close()

	c.lake.overwrite(40_000)
	c.lake.appendFiles(23, 40_000) // 24 units replace the 8 segments
	c.replicas[0].call(t, "POST", "/api/v1/tables/"+table+"/trigger", map[string]any{}, nil)
	holder, _ := c.waitHolder(rdb, table, freeze, 10*time.Second)
	c.waitStreaming(holder, table, 30*time.Second)
	if event == "kill holder" {
		c.killAfterUpload(holder, table, 30*time.Second) // a unit lands whole in the replacement before the kill
		if c.openReplacements(table) == 0 {
			t.Fatalf("the run on %s ended its replacement before the kill: nothing was left open to resume", holder.name)
		}
		i := indexOf(c.replicas, holder)
		c.start(i) // its start-up sweeps what the kill left in the sink and its work directory
		c.triggerUntilSynced(c.live(holder), table, 90*time.Second)
	} else {
		builder := c.live(holder)
		must(t, builder.freeze())
		time.Sleep(3*c.set.leaseTTL + c.set.claimTimeout) // past the lease and the claim
		must(t, builder.thaw())
	}
	cp := c.waitConverged(table, 120*time.Second)
	c.assertExact(table, cp)
	if n := c.openReplacements(table); n != 0 {
		t.Fatalf("%d replacements left open after convergence", n)
	}
	c.assertNoOrphanTarballs(table)
	c.assertNoLeftoverTemps()
	c.assertNoDeadWorkDirs()
	built := c.buildersOf(table)
	t.Logf("units built per replica: %v (%s %s)", built, event, holder.name)
	if event == "kill holder" {
		resumed := 0
		for _, r := range c.replicas {
			resumed += len(r.logLines(`"resume open replacement"`))
		}
		if resumed == 0 {
			t.Fatal("I9: no lease holder resumed the replacement the killed one left open")
		}
		c.assertResumeReused(table)
	}
}

// killAfterUpload SIGKILLs holder once a segment of the table has landed
// whole in its open replacement. The holder is frozen while each check
// reads the sink, so it cannot end the replacement between a check that
// finds an upload and the kill, however slow the check is on a loaded
// machine; between checks it runs for a few milliseconds.
func (c *cluster) killAfterUpload(holder *replica, table string, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if err := holder.freeze(); err != nil {
			c.t.Fatalf("freeze %s: %v", holder.name, err)
		}
		if c.uploadedInto(table) > 0 {
			holder.kill()
			return
		}
		if err := holder.thaw(); err != nil {
			c.t.Fatalf("thaw %s: %v", holder.name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("no segment of %s was uploaded into its open replacement within %s", table, timeout)
}

// uploadedInto counts the To segments of the table's open replacements
// that the sink holds uploaded.
func (c *cluster) uploadedInto(table string) int {
	c.t.Helper()
	up := c.sinkUploader()
	l, err := up.(pinot.LineageReader).SegmentLineage(context.Background(), table)
	if err != nil {
		c.t.Fatalf("read lineage of %s: %v", table, err)
	}
	n := 0
	for _, o := range l.Replacements {
		got, err := up.(pinot.SegmentInspector).UploadedSegments(context.Background(), table, o.To)
		if err != nil {
			c.t.Fatalf("read uploaded segments of %s: %v", table, err)
		}
		n += len(got)
	}
	return n
}

// assertResumeReused checks, from the run records, that the run which
// resumed the killed holder's replacement built fewer units than the
// replacement holds: the units the dead run uploaded whole were kept (I9).
func (c *cluster) assertResumeReused(table string) {
	c.t.Helper()
	for _, run := range c.runsOf(c.live(), table) {
		for _, l := range run.Log {
			if l.Msg != "resume open replacement" {
				continue
			}
			units, _ := strconv.Atoi(l.Attrs["units"])
			reused, _ := strconv.Atoi(l.Attrs["reused"])
			c.t.Logf("resumed run %s: %d of %d units reused, %d segments built and uploaded", run.ID, reused, units,
				run.SegmentsGenerated)
			if units == 0 || reused == 0 || run.Status != checkpoint.RunCompleted {
				continue // a resume that stopped before it could end (a trigger turned away, a lost lease)
			}
			if built := units - reused; run.SegmentsGenerated != built {
				c.t.Fatalf("the resumed run built %d segments, want one per unit not reused (%d)", run.SegmentsGenerated, built)
			}
			return
		}
	}
	c.t.Fatal("I9: no completed run resumed the open replacement reusing a unit the killed holder uploaded")
}

// sinkUploader is the sink the replicas push to, read by the test.
func (c *cluster) sinkUploader() pinot.Uploader {
	c.t.Helper()
	if c.set.pinot == nil {
		return pinot.NewLocalDir(c.sink)
	}
	ctl, err := pinot.NewController(c.set.pinot.ControllerURL, 30*time.Second, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return ctl
}

// triggerUntilSynced triggers a run through r every few seconds (a
// trigger while the dead holder's lease lasts is turned away) until the
// checkpoint reaches the lake's snapshot.
func (c *cluster) triggerUntilSynced(r *replica, table string, timeout time.Duration) {
	c.t.Helper()
	want, _ := c.lake.snapshot()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.call(c.t, "POST", "/api/v1/tables/"+table+"/trigger", map[string]any{}, nil)
		for range 20 {
			if cp, ok := c.checkpointOf(r, table); ok && cp.SnapshotID == want {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// waitStreaming waits until r's run builds units into an open replacement
// and the sink holds some of them (hidden), then returns.
func (c *cluster) waitStreaming(r *replica, table string, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if lastPhase(r) == "build" && c.openReplacements(table) > 0 {
			time.Sleep(100 * time.Millisecond) // a unit may land in the replacement; the stream is far from done
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatalf("the run of %s on %s never streamed into an open replacement within %s", table, r.name, timeout)
}

// openReplacements counts the table's open replacements in the sink.
func (c *cluster) openReplacements(table string) int {
	c.t.Helper()
	var lr pinot.LineageReader = pinot.NewLocalDir(c.sink)
	if c.set.pinot != nil {
		ctl, err := pinot.NewController(c.set.pinot.ControllerURL, 30*time.Second, nil)
		if err != nil {
			c.t.Fatal(err)
		}
		lr = ctl
	}
	l, err := lr.SegmentLineage(context.Background(), table)
	if err != nil {
		c.t.Fatalf("read lineage of %s: %v", table, err)
	}
	return len(l.Replacements)
}

// assertNoOrphanTarballs checks, on the local sink, that a tarball exists
// for exactly the served segments: nothing an abandoned or reverted
// replacement uploaded is left.
func (c *cluster) assertNoOrphanTarballs(table string) {
	c.t.Helper()
	if c.set.pinot != nil {
		return // the controller's own segment list is what assertExact compared
	}
	matches, err := filepath.Glob(filepath.Join(c.sink, table, "*.tar.gz"))
	if err != nil {
		c.t.Fatal(err)
	}
	var got []string
	for _, m := range matches {
		got = append(got, strings.TrimSuffix(filepath.Base(m), ".tar.gz"))
	}
	slices.Sort(got)
	if want := c.manifest(table); !slices.Equal(got, want) {
		c.t.Fatalf("sink holds tarballs %v, serves %v", got, want)
	}
}

// I9, I2: a lease holder SIGKILLed while it streams an overwrite leaves
// its replacement open. Then either the table is rolled back to the synced
// snapshot and appended to (the next run only adds files) or it is only
// appended to (the next run's replacement is another swap). Either way
// the next run reverts the abandoned replacement (logged) before it
// uploads, and the table ends exact with no replacement open and no orphan
// segment.
func TestStream_RunRevertsAbandonedReplacement(t *testing.T) {
	for _, next := range []string{"append", "other swap"} {
		t.Run(next, func(t *testing.T) { abandonedScenario(t, nil, next) })
	}
}

// The same against a real Pinot cluster's segment lineage.
func TestStream_RunRevertsAbandonedReplacementCluster(t *testing.T) {
	pc := testpeer.StartPinot(t)
	for _, next := range []string{"append", "other swap"} {
		t.Run(next, func(t *testing.T) { abandonedScenario(t, pc, next) })
	}
}

func abandonedScenario(t *testing.T, pc *testpeer.PinotCluster, next string) {
	table := "events_" + strings.ReplaceAll(next, " ", "_")
	c := newCluster(t, settings{replicas: 1, leaseTTL: 3 * time.Second, batchFiles: 64, buildParallelism: 1,
		claimTimeout: 2 * time.Second, schedule: "0 0 0 1 1 ?", pinot: pc})
	c.lake.appendFiles(4, 10_000)
	r := c.start(0)
	c.createTable(r, table)
	c.waitConverged(table, 60*time.Second)
	synced, _ := c.lake.snapshot()

	c.lake.overwrite(20_000)
	c.lake.appendFiles(11, 20_000) // 12 units replace the 4 segments
	r.call(t, "POST", "/api/v1/tables/"+table+"/trigger", map[string]any{}, nil)
	c.waitStreaming(r, table, 30*time.Second)
	c.killAfterUpload(r, table, 30*time.Second)
	if c.openReplacements(table) == 0 {
		t.Fatal("the run ended its replacement before the kill: nothing was left open")
	}
	if next == "append" {
		c.lake.rollback(synced)
	}
	c.lake.appendFiles(2, 10_000)
	r = c.start(0)
	c.triggerUntilSynced(r, table, 90*time.Second)
	cp := c.waitConverged(table, 60*time.Second)
	c.assertExact(table, cp)
	if n := c.openReplacements(table); n != 0 {
		t.Fatalf("%d replacements left open after the append", n)
	}
	c.assertNoOrphanTarballs(table)
	c.assertNoLeftoverTemps()
	if len(r.logLines(`"revert open replacement of a dead run"`)) == 0 {
		t.Fatal("I9: the appending run did not revert the abandoned replacement")
	}
}

// rollback makes snapshot the table's current one.
func (l *lake) rollback(snapshot int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tx := l.load().NewTransaction()
	if err := tx.RollbackToSnapshot(snapshot); err != nil {
		l.t.Errorf("rollback: %v", err)
		return
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		l.t.Errorf("rollback: %v", err)
	}
}
