//go:build integration

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Three replicas on one Redis share the conversion of one large backfill
// (W1): the lease holder plans and commits, every replica builds and
// uploads units. One replica is SIGKILLed mid-run — a builder in one case,
// the lease holder in the other — and the result is still exact (I2).
func TestShared_ThreeReplicasBackfill(t *testing.T) {
	for _, victim := range []string{"builder", "holder"} {
		t.Run("kill "+victim, func(t *testing.T) {
			c := newCluster(t, settings{replicas: 3, leaseTTL: 3 * time.Second, batchFiles: 12, buildParallelism: 1,
				claimTimeout: 2 * time.Second, schedule: "0 0 0 1 1 ?"})
			c.lake.appendFiles(60, 12_000)
			c.startAll()
			c.createTable(c.replicas[0], "events")
			rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(c.redisURL, "redis://"), "/0")})
			defer rdb.Close()
			c.waitBackfill("events", 12, 60*time.Second)
			holder, _ := c.waitHolder(rdb, "events", freeze, 10*time.Second)
			dead := holder
			if victim == "builder" {
				dead = c.live(holder)
			}
			dead.kill()
			if victim == "holder" { // nothing schedules the table again: trigger it
				c.triggerUntilAccepted(c.live(), "events", 30*time.Second)
			}
			cp := c.waitConverged("events", 120*time.Second)
			c.assertExact("events", cp)
			built := c.buildersOf("events")
			t.Logf("units built per replica: %v (killed %s %s)", built, victim, dead.name)
			if len(built) < 3 {
				t.Fatalf("units were built by %d replicas (%v), want all three", len(built), built)
			}
		})
	}
}

// waitBackfill waits until at least files files of the table's backfill
// are committed.
func (c *cluster) waitBackfill(table string, files int, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cp, ok := c.checkpointOf(c.live(), table); ok && cp.Backfill != nil && cp.Backfill.FilesDone >= files {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("the backfill of %s did not commit %d files within %s", table, files, timeout)
}

// triggerUntilAccepted triggers a run through r until one starts (a
// trigger while the dead holder's lease lasts is skipped).
func (c *cluster) triggerUntilAccepted(r *replica, table string, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.call(c.t, "POST", "/api/v1/tables/"+table+"/trigger", map[string]any{}, nil)
		time.Sleep(time.Second)
		if cp, ok := c.checkpointOf(r, table); ok && cp.Backfill == nil && cp.SnapshotID != 0 {
			return
		}
		for _, run := range c.runsOf(r, table) {
			if run.Owner == r.name && run.Status == "RUNNING" {
				return
			}
		}
	}
}

// buildersOf sums, over the table's runs, the units each replica built.
func (c *cluster) buildersOf(table string) map[string]int {
	out := map[string]int{}
	for _, run := range c.runsOf(c.live(), table) {
		for b, n := range run.Builders {
			out[b] += n
		}
	}
	return out
}
