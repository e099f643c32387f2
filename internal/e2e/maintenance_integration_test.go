//go:build integration

package e2e

import (
	"context"
	"iter"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// eqDelete commits an equality delete (key: id) of n ids drawn from every
// id written so far, live or not, as a CDC writer's delete of keys does.
func (l *lake) eqDelete(rng *rand.Rand, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx := context.Background()
	tbl := l.load()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for range n {
		b.Field(0).(*array.Int64Builder).Append(rng.Int64N(max(l.next, 1)))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	tx := tbl.NewTransaction()
	files, err := tx.WriteEqualityDeletes(ctx, []int{1}, records)
	if err != nil {
		l.t.Errorf("write equality deletes: %v", err)
		return
	}
	if err := tx.NewRowDelta(nil).AddDeletes(files...).Commit(ctx); err != nil {
		l.t.Errorf("commit equality deletes: %v", err)
		return
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Errorf("commit equality deletes: %v", err)
	}
}

// maintain applies the lake maintenance of round i: an equality delete
// (targeted rebuilds, watcher/plan P2 and P12), a compaction (a remap,
// P11), or an append with an equality delete.
func (l *lake) maintain(rng *rand.Rand, i int) string {
	switch i % 3 {
	case 0:
		l.eqDelete(rng, 40)
		return "equality delete"
	case 1:
		l.compact()
		return "compaction"
	default:
		l.appendFiles(2, 5_000)
		l.eqDelete(rng, 20)
		return "append and equality delete"
	}
}

// I2 over lake maintenance: runs that rebuild only the segments holding
// deleted keys, and runs that remap a compaction, SIGKILLed at observed
// and random moments, then restarted, converge to exactly the snapshot's
// rows with no orphan segment, no leftover temporary file and no run left
// RUNNING.
func TestCrash_SIGKILLDuringMaintenanceConverges(t *testing.T) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	c := newCluster(t, settings{replicas: 1, leaseTTL: 2 * time.Second, batchFiles: 3, buildParallelism: 2,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?"})
	c.lake.appendFiles(8, 5_000)
	r := c.start(0)
	c.createTable(r, "events")
	c.waitConverged("events", 60*time.Second)
	phases, ops := map[string]int{}, map[string]int{}
	moments := []string{"plan", "build", "commit", "random", "swap", "push"}
	const rounds = 5
	for round := range rounds {
		ops[c.lake.maintain(rng, round)]++
		c.waitMoment(r, "events", moments[round%len(moments)], rng)
		r.kill()
		phases[lastPhase(r)]++
		r = c.start(0)
	}
	c.assertConverged("events", 90*time.Second)
	c.assertAbandoned("events")
	t.Logf("operations %v; kills by the phase the run was in: %v", ops, phases)
	if mid := rounds - phases[""]; mid < 2 {
		t.Fatalf("only %d of %d kills landed during a run (%v): the test did not exercise crashes mid-run", mid, rounds, phases)
	}
}

// I4 over lake maintenance: the lease holder frozen (SIGSTOP past its
// lease, then resumed) while compactions are remapped and equality
// deletes rebuild the segments holding their keys never changes Pinot
// after another replica took over; the rows end exact.
func TestFencing_StalledHolderDuringMaintenance(t *testing.T) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	fencingScenario(t, freeze, nil, 3, func(c *cluster) func() { return c.maintainEvery(rng, 2*time.Second) })
}

// maintainEvery applies lake maintenance every period (appends, equality
// deletes, compactions in turn) until the returned func is called.
func (c *cluster) maintainEvery(rng *rand.Rand, period time.Duration) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
				c.t.Logf("%s at %s", c.lake.maintain(rng, i), time.Now().Format("15:04:05.000"))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
