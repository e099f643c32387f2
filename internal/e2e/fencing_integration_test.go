//go:build integration

package e2e

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// stall is how a scenario takes the lease holder out: frozen (SIGSTOP, a
// GC pause or VM freeze) or cut off from Redis (a partition) while its
// HTTP side and the other replica keep going.
type stall int

const (
	freeze stall = iota
	partition
)

func (s stall) String() string { return [...]string{"frozen", "cut off from Redis"}[s] }

// I4: a replica that has lost its lease never changes Pinot. Two replicas
// share one Redis and one local sink; data arrives all along; the replica
// holding the lease is stalled at varied moments of its run until the
// other replica has taken the lease and committed, then let go. At the
// end the live segments hold exactly the Iceberg rows and equal the
// checkpoint.
func TestFencing_StalledHolderNeverChangesPinot(t *testing.T) {
	for _, s := range []stall{freeze, partition} {
		t.Run(s.String(), func(t *testing.T) { fencingScenario(t, s, nil, 3, nil) })
	}
}

// fencingScenario stalls the lease holder rounds times while feed changes
// the table (nil: a file appended every 2 s); feed returns its stop.
func fencingScenario(t *testing.T, s stall, pc *testpeer.PinotCluster, rounds int, feed func(*cluster) func()) {
	table := "events_" + strings.ReplaceAll(s.String(), " ", "_")
	c := newCluster(t, settings{replicas: 2, leaseTTL: 3 * time.Second, batchFiles: 4, buildParallelism: 2,
		claimTimeout: 3 * time.Second, schedule: "* * * * * ?", pinot: pc})
	var px *proxy
	if s == partition {
		px = newProxy(t, strings.TrimPrefix(strings.TrimSuffix(c.redisURL, "/0"), "redis://"))
		c.replicas[0].redisURL = "redis://" + px.addr() + "/0"
	}
	c.lake.appendFiles(12, 20_000)
	c.startAll()
	c.createTable(c.replicas[1], table)
	if feed == nil {
		feed = func(c *cluster) func() { return c.appendEvery(2*time.Second, 30_000) }
	}
	stop := feed(c)
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(c.redisURL, "redis://"), "/0")})
	defer rdb.Close()
	stalled := 0
	for round := range rounds {
		var holder *replica
		var token int64
		var written chan struct{}
		if round == 1 { // stall a run streaming an overwrite into its open replacement (I9)
			// The writes go on while the test watches for the run: with
			// runs every second, the replacing run often starts between
			// two of them, and it streams for a moment only, within a
			// few seconds of the overwrite (cut off from Redis, only
			// replica-0 can be stalled: the other may be the one running
			// it).
			written = make(chan struct{})
			go func() {
				defer close(written)
				c.lake.overwrite(60_000)
				c.lake.appendFiles(7, 20_000)
			}()
			t.Cleanup(func() { <-written }) // also when the test stops early
			holder, token = c.waitStreamingHolder(rdb, table, s, round, 10*time.Second)
		} else {
			holder, token = c.waitHolderInPhase(rdb, table, s, round, 30*time.Second)
		}
		t.Logf("round %d: %s %s holding token %d in phase %q", round, s, holder.name, token, lastPhase(holder))
		if s == freeze {
			must(t, holder.freeze())
		} else {
			px.cut()
		}
		c.waitCommitAfter(rdb, table, token, 40*time.Second)
		if s == freeze {
			must(t, holder.thaw())
		} else {
			px.heal()
		}
		stalled++
		if written != nil {
			<-written
		}
		time.Sleep(time.Second)
	}
	stop()
	cp := c.waitConverged(table, 90*time.Second)
	c.assertExact(table, cp)
	t.Logf("%d stalls of the lease holder (%s)", stalled, s)
	c.assertRefusedStaleWrites(table)
}

// appendEvery appends a file of rows rows every period until the returned
// func is called.
func (c *cluster) appendEvery(period time.Duration, rows int) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				c.lake.appendFiles(1, rows)
				c.t.Logf("appended a file at %s", time.Now().Format("15:04:05.000"))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// waitHolder waits until a replica that s can stall holds the table's
// lease and returns it with the lease token. Cut off from Redis, only
// replica-0 can be stalled, and the other replica, once it took the lease,
// keeps it run after run: after handOverAfter of that, it is frozen until
// replica-0 holds the lease (a stall of its own, which I4 covers too),
// then let go.
func (c *cluster) waitHolder(rdb *redis.Client, table string, s stall, timeout time.Duration) (*replica, int64) {
	c.t.Helper()
	const handOverAfter = 4 * time.Second
	deadline := time.Now().Add(timeout)
	var otherSince time.Time
	var frozen *replica
	thaw := func() {
		if frozen != nil {
			must(c.t, frozen.thaw())
			frozen = nil
		}
	}
	defer thaw()
	for time.Now().Before(deadline) {
		h, err := rdb.HGetAll(context.Background(), "e2e:v1:lease:"+table).Result()
		if err == nil && h["owner"] != "" {
			for i, r := range c.replicas {
				switch {
				case r.name != h["owner"]:
				case s == freeze || i == 0:
					tok, _ := strconv.ParseInt(h["token"], 10, 64)
					return r, tok
				case otherSince.IsZero():
					otherSince = time.Now()
				case frozen == nil && time.Since(otherSince) > handOverAfter:
					c.t.Logf("%s has kept the lease for %s: frozen until replica-0 takes it", r.name, handOverAfter)
					must(c.t, r.freeze())
					frozen = r
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("no stallable replica took the lease of %s within %s", table, timeout)
	return nil, 0
}

// waitStreamingHolder waits until a replica that s can stall holds the
// table's lease while its run builds units and pushes them into an open
// replacement; after the timeout it settles for any holder s can stall
// (logged).
func (c *cluster) waitStreamingHolder(rdb *redis.Client, table string, s stall, round int, timeout time.Duration) (*replica, int64) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r, tok := c.waitHolder(rdb, table, s, timeout)
		if p := lastPhase(r); (p == "build" || p == "push") && c.openReplacements(table) > 0 {
			c.t.Logf("%s streams into an open replacement", r.name)
			return r, tok
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Logf("no stallable holder was caught streaming into an open replacement within %s", timeout)
	return c.waitHolderInPhase(rdb, table, s, round, 30*time.Second)
}

// waitHolderInPhase waits until a replica that s can stall holds the
// table's lease while its run is in the round's phase (waitPhase), so the
// stall hits a run, not a holder between runs (which no stale write could
// show); after the timeout it settles for any holder s can stall (logged).
func (c *cluster) waitHolderInPhase(rdb *redis.Client, table string, s stall, round int, timeout time.Duration) (*replica, int64) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r, tok := c.waitHolder(rdb, table, s, max(time.Until(deadline), 5*time.Second))
		if c.waitPhase(r, round) && c.holds(rdb, table, r, tok) {
			return r, tok
		}
	}
	c.t.Logf("no stallable holder was caught in a run's phase within %s", timeout)
	return c.waitHolder(rdb, table, s, timeout)
}

// holds reports whether r still holds the table's lease under token tok.
func (c *cluster) holds(rdb *redis.Client, table string, r *replica, tok int64) bool {
	h, err := rdb.HGetAll(context.Background(), "e2e:v1:lease:"+table).Result()
	return err == nil && h["owner"] == r.name && h["token"] == strconv.FormatInt(tok, 10)
}

// waitPhase varies the moment of the stall: while the run plans or
// builds, while it builds or pushes, or when it commits or swaps. It
// reports whether r's run reached one of them within 5 s.
func (c *cluster) waitPhase(r *replica, round int) bool {
	want := [][]string{{"plan", "build"}, {"build", "push"}, {"commit", "swap", "push"}}[round%3]
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if slices.Contains(want, lastPhase(r)) {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// waitCommitAfter waits until a lease newer than token has committed a
// checkpoint (the other replica took over and finished a run).
func (c *cluster) waitCommitAfter(rdb *redis.Client, table string, token int64, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		raw, err := rdb.Get(context.Background(), "e2e:v1:checkpoint:"+table).Result()
		if err == nil {
			if i := strings.Index(raw, `"leaseToken":`); i >= 0 {
				rest := raw[i+len(`"leaseToken":`):]
				end := strings.IndexAny(rest, ",}")
				if tok, err := strconv.ParseInt(rest[:end], 10, 64); err == nil && tok > token {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("no run with a lease newer than token %d committed %s within %s", token, table, timeout)
}

// assertRefusedStaleWrites checks that the stalled runs were stopped by
// the lease guard or the store's fencing, so the test proves the
// mechanism rather than a lucky timing.
func (c *cluster) assertRefusedStaleWrites(table string) {
	c.t.Helper()
	refused := 0
	for _, run := range c.runsOf(c.live(), table) {
		if run.Status == checkpoint.RunFailed && (strings.Contains(run.Error, "lease not certainly held") ||
			strings.Contains(run.Error, "fenced") || strings.Contains(run.Error, "checkpoint changed under the run")) {
			refused++
		}
	}
	if refused == 0 {
		c.t.Fatal("no stalled run was refused by the lease guard or fencing: the stalls did not hit a run")
	}
	c.t.Logf("%d stale runs refused by the lease guard or fencing", refused)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
