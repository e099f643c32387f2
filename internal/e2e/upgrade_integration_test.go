//go:build integration

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// previousRelease is the floe a rolling upgrade starts from: the last
// commit of the previous release. floe has tagged no release yet; once it
// does (CHANGELOG.md: vX.Y.Z tags), this names the newest tag before the
// one being made. It is the one place that names it.
const previousRelease = "75062f603869330473783f853f158b25f6ebd802"

// A rolling upgrade (a Kubernetes Deployment's default): two replicas of
// the previous release share one Redis and one sink, syncing a table that
// takes a commit every few hundred milliseconds, beside a paused table.
// Each replica in turn gets SIGTERM and comes back as this build, the
// table being synced by both releases in between. Then: exactly the
// snapshot's rows, no duplicate, the sink equal to the checkpoint (I2);
// the paused table never ran, on either release, and stays paused (I8);
// run records of both releases read back; no run failed but for a drain
// or a record its replica refused. And an old replica that meets a record
// newer than it reads (checkpoint/doc.go, "Format versions") refuses it
// with an error naming the record and the version, without touching it.
func TestUpgrade_RollingRestartFromPreviousRelease(t *testing.T) {
	oldBin, commit := testpeer.BuildFloeAt(t, previousRelease)
	oldMax := formatCurrentAt(t, commit)
	c := newCluster(t, settings{replicas: 2, leaseTTL: 5 * time.Second, batchFiles: 2, buildParallelism: 1,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?", drainGrace: 2 * time.Second})
	for _, r := range c.replicas {
		r.bin = oldBin
	}
	c.lake.appendFiles(4, 500)
	c.startAll()
	c.createTable(c.replicas[0], "events")
	c.createTable(c.replicas[0], "frozen")
	c.waitConverged("events", 60*time.Second)
	c.waitConverged("frozen", 60*time.Second)
	c.pause(c.replicas[1], "frozen")
	paused := time.Now()
	frozenCP, _ := c.checkpointOf(c.replicas[0], "frozen")
	frozenServed := c.manifest("frozen")

	stop := c.appendEvery(300*time.Millisecond, 200)
	rolling := time.Now()
	for i, r := range c.replicas {
		c.waitRunAfter(r, "events", time.Now(), 30*time.Second) // this replica syncs the table before it goes
		if err := r.proc.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		c.waitExit(r, 30*time.Second)
		r.bin = ""
		restarted := time.Now()
		c.start(i)
		c.waitRunAfter(r, "events", restarted, 30*time.Second)
		if i == 0 { // one replica of each release
			c.assertOldRefusesNewer(c.replicas[1], oldMax+1)
			c.waitRunAfter(c.replicas[1], "events", time.Now(), 30*time.Second)
		}
	}
	stop()
	t.Logf("rolling restart of %d replicas from %.12s took %s", len(c.replicas), commit, time.Since(rolling).Round(time.Millisecond))

	cp := c.waitConverged("events", 60*time.Second)
	c.assertExact("events", cp)
	c.assertPausedUntouched("frozen", paused, frozenCP, frozenServed)
	c.assertFailuresExplained("events")
}

// formatCurrentAt reads the record format version the floe of commit
// writes (checkpoint.FormatCurrent, in its checkpoint/format.go).
func formatCurrentAt(t *testing.T, commit string) int {
	t.Helper()
	out := testpeer.GitShow(t, commit, "checkpoint/format.go")
	m := regexp.MustCompile(`FormatCurrent\s*=\s*FormatV(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("checkpoint/format.go of %s names no FormatCurrent", commit)
	}
	v, _ := strconv.Atoi(m[1])
	if v > int(checkpoint.FormatCurrent) {
		t.Fatalf("the previous release writes format %d, this build reads up to %d", v, checkpoint.FormatCurrent)
	}
	return v
}

// pause pauses the table through replica r.
func (c *cluster) pause(r *replica, table string) {
	c.t.Helper()
	var out map[string]any
	if code := r.call(c.t, http.MethodPost, "/api/v1/tables/"+table+"/pause", map[string]any{}, &out); code != http.StatusOK {
		c.t.Fatalf("pause %s: HTTP %d %v", table, code, out)
	}
}

// assertOldRefusesNewer makes the checkpoint of a table the way a build
// writing format version v would mark it and triggers a run of the table
// on old, a replica of the previous release: the run fails naming the
// record and the version, and the record is left as it was. Then the
// record is put back. The table is a probe of its own, created for this
// and never scheduled, so no other run meets the record meanwhile.
func (c *cluster) assertOldRefusesNewer(old *replica, v int) {
	c.t.Helper()
	const probe = "probe"
	body := map[string]any{"connection": "lake", "namespace": "ns", "table": "events", "name": probe, "schedule": "0 0 0 1 1 ?"}
	var out map[string]any
	if code := old.call(c.t, http.MethodPost, "/api/v1/tables", body, &out); code != http.StatusCreated {
		c.t.Fatalf("create table %s: HTTP %d %v", probe, code, out)
	}
	c.waitCheckpoint(old, probe)
	c.pause(old, probe) // no schedule, notification or lag check runs it but the trigger below

	rdb := c.redis()
	defer rdb.Close()
	key := "e2e:v1:checkpoint:" + probe
	ctx := context.Background()
	orig, err := rdb.Get(ctx, key).Result()
	if err != nil {
		c.t.Fatal(err)
	}
	version := regexp.MustCompile(`"v":\d+`)
	if !version.MatchString(orig) {
		c.t.Fatalf("checkpoint record of %s has no version: %s", probe, orig)
	}
	newer := version.ReplaceAllString(orig, fmt.Sprintf(`"v":%d`, v))
	if err := rdb.Set(ctx, key, newer, 0).Err(); err != nil {
		c.t.Fatal(err)
	}
	started := time.Now()
	if code := old.call(c.t, http.MethodPost, "/api/v1/tables/"+probe+"/trigger", map[string]any{}, &out); code >= 300 {
		c.t.Fatalf("trigger %s on %s: HTTP %d %v", probe, old.name, code, out)
	}
	run := c.waitEndedAfter(old, probe, started)
	want := []string{fmt.Sprintf(`checkpoint of table %q`, probe), fmt.Sprintf("format version %d not supported", v)}
	for _, w := range want {
		if run.Status != checkpoint.RunFailed || !strings.Contains(run.Error, w) {
			c.t.Fatalf("the previous release ran %s over a format %d checkpoint: %s %q; want FAILED naming %q", probe, v, run.Status, run.Error, w)
		}
	}
	if got, _ := rdb.Get(ctx, key).Result(); got != newer {
		c.t.Fatalf("the previous release rewrote the newer record it refused:\n%s\n→ %s", newer, got)
	}
	c.t.Logf("%s (previous release) refused the newer record: %s", old.name, run.Error)
	if err := rdb.Set(ctx, key, orig, 0).Err(); err != nil {
		c.t.Fatal(err)
	}
}

// waitCheckpoint waits until the table has a checkpoint.
func (c *cluster) waitCheckpoint(r *replica, table string) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cp, ok := c.checkpointOf(r, table); ok && cp.SnapshotID != 0 && cp.Backfill == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("table %s got no checkpoint", table)
}

// waitEndedAfter waits for a run of the table by r that started after t
// and ended, and returns it.
func (c *cluster) waitEndedAfter(r *replica, table string, t time.Time) checkpoint.Run {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, run := range c.runsOf(r, table) {
			if run.Owner == r.name && !run.StartedAt.Before(t) && run.Status != checkpoint.RunRunning {
				return run
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("%s recorded no run of %s started after %s", r.name, table, t.Format(time.RFC3339Nano))
	return checkpoint.Run{}
}

func (c *cluster) redis() *redis.Client {
	c.t.Helper()
	opts, err := redis.ParseURL(c.redisURL)
	if err != nil {
		c.t.Fatal(err)
	}
	return redis.NewClient(opts)
}

// assertPausedUntouched checks I8 across the upgrade: no run of the table
// started after its pause answered, on any replica of either release;
// its checkpoint and served segments are as they were; every replica
// shows it paused.
func (c *cluster) assertPausedUntouched(table string, paused time.Time, cp checkpoint.Checkpoint, served []string) {
	c.t.Helper()
	for _, run := range c.runsOf(c.live(), table) {
		if run.StartedAt.After(paused) {
			c.t.Errorf("I8: run %s of paused table %s started on %s after the pause answered (%s, %q)",
				run.ID, table, run.Owner, run.Status, run.Error)
		}
	}
	now, ok := c.checkpointOf(c.live(), table)
	if !ok || !now.CommittedAt.Equal(cp.CommittedAt) || now.SnapshotID != cp.SnapshotID {
		c.t.Errorf("I8: the checkpoint of paused table %s moved: snapshot %d (%s) → %d (%s)",
			table, cp.SnapshotID, cp.CommittedAt, now.SnapshotID, now.CommittedAt)
	}
	if got := c.manifest(table); !slices.Equal(got, served) {
		c.t.Errorf("I8: the served segments of paused table %s changed: %v → %v", table, served, got)
	}
	for _, r := range c.replicas {
		var st struct {
			State string `json:"state"`
		}
		if code := r.call(c.t, http.MethodGet, "/api/v1/tables/"+table+"/status", nil, &st); code != http.StatusOK || st.State != "PAUSED" {
			c.t.Errorf("%s shows table %s as %q (HTTP %d), want PAUSED", r.name, table, st.State, code)
		}
	}
}

// assertFailuresExplained checks that every failed run of the table was
// stopped by a drain or refused a record, and that no run stays RUNNING.
func (c *cluster) assertFailuresExplained(table string) {
	c.t.Helper()
	n := 0
	for _, run := range c.runsOf(c.live(), table) {
		n++
		switch {
		case run.Status == checkpoint.RunRunning:
			c.t.Errorf("run %s of %s (%s) still RUNNING", run.ID, table, run.Owner)
		case run.Status == checkpoint.RunFailed && !strings.Contains(run.Error, "draining") && !strings.Contains(run.Error, "format version"):
			c.t.Errorf("run %s of %s on %s failed: %s", run.ID, table, run.Owner, run.Error)
		}
	}
	c.t.Logf("%d runs of %s recorded across the upgrade", n, table)
}
