package checkpointtest

import (
	"slices"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// NewQueueFunc returns a fresh store and the work queue that belongs to it
// (both may be the same value).
type NewQueueFunc func(t *testing.T) (checkpoint.Store, checkpoint.WorkQueue)

// Stale time used to make claims go stale, and waits.
const (
	staleClaim = 100 * time.Millisecond
	longStale  = time.Minute
	shortWait  = 20 * time.Millisecond
)

// RunWorkQueue runs the work queue conformance suite (W1 and the claim,
// heartbeat, reclaim and result rules of checkpoint.WorkQueue).
func RunWorkQueue(t *testing.T, newQueue NewQueueFunc) {
	cases := []struct {
		name string
		fn   func(*testing.T, checkpoint.Store, checkpoint.WorkQueue)
	}{
		{"ClaimCompleteResults", testWorkClaimComplete},
		{"StaleClaimIsReclaimed", testWorkReclaim},
		{"HeartbeatKeepsClaim", testWorkHeartbeat},
		{"ConfirmNeedsCurrentLease", testWorkConfirmLease},
		{"CancelDropsRun", testWorkCancel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, q := newQueue(t)
			c.fn(t, s, q)
		})
	}
}

// leasedItems creates table t, takes its lease and returns n items of run.
func leasedItems(t *testing.T, s checkpoint.Store, table, run string, n int) (checkpoint.Lease, []checkpoint.WorkItem) {
	t.Helper()
	must(t, "CreateTable", s.CreateTable(ctxT(t), fullTable(table)))
	l, err := s.AcquireLease(ctxT(t), table, "holder", longTTL)
	must(t, "AcquireLease", err)
	items := make([]checkpoint.WorkItem, n)
	for i := range items {
		items[i] = checkpoint.WorkItem{Table: table, RunID: run, Owner: l.Owner, Token: l.Token,
			Key: table + "_unit" + string(rune('a'+i)), SnapshotID: 42, MetadataLocation: "s3://m.json", Unit: []byte{byte(i), 0xff}}
	}
	return l, items
}

func claim(t *testing.T, q checkpoint.WorkQueue, builder string, stale time.Duration) (checkpoint.WorkItem, bool) {
	t.Helper()
	it, ok, err := q.Claim(ctxT(t), builder, shortWait, stale)
	must(t, "Claim by "+builder, err)
	return it, ok
}

func testWorkClaimComplete(t *testing.T, s checkpoint.Store, q checkpoint.WorkQueue) {
	ctx := ctxT(t)
	_, items := leasedItems(t, s, "orders", "run-1", 3)
	published, err := q.Publish(ctx, items)
	must(t, "Publish", err)
	var keys []string
	for i, it := range published {
		if it.ID == "" {
			t.Fatalf("published item %d has no ID", i)
		}
		keys = append(keys, it.Key)
	}
	a, ok := claim(t, q, "builder-a", longStale)
	b, ok2 := claim(t, q, "builder-b", longStale)
	if !ok || !ok2 || a.ID == b.ID {
		t.Fatalf("two builders claimed %v/%v: %q and %q, want two distinct items", ok, ok2, a.ID, b.ID)
	}
	if !slices.Equal(a.Unit, items[slices.Index(keys, a.Key)].Unit) || a.Token == 0 || a.Owner != "holder" {
		t.Fatalf("claimed item %+v does not round-trip", a)
	}
	must(t, "Confirm a", q.Confirm(ctx, "builder-a", a))
	wantErr(t, "Confirm of a's item by b", q.Confirm(ctx, "builder-b", a), checkpoint.ErrFenced)
	must(t, "Complete a", q.Complete(ctx, "builder-a", a, checkpoint.WorkResult{Key: a.Key, Segments: []string{a.Key + "_0"}, Rows: 5, Builder: "builder-a"}))
	wantErr(t, "Complete a twice", q.Complete(ctx, "builder-a", a, checkpoint.WorkResult{Key: a.Key}), checkpoint.ErrFenced)
	must(t, "Complete b", q.Complete(ctx, "builder-b", b, checkpoint.WorkResult{Key: b.Key, Error: "bad file"}))
	c, ok := claim(t, q, "builder-a", longStale)
	if !ok || c.ID == a.ID || c.ID == b.ID {
		t.Fatalf("third claim = %+v (%v), want the remaining item", c, ok)
	}
	must(t, "Discard c", q.Discard(ctx, "builder-a", c))
	if _, ok := claim(t, q, "builder-b", longStale); ok {
		t.Fatal("claimed an item from an empty queue")
	}
	var got []checkpoint.WorkResult
	for range 3 {
		res, err := q.Results(ctx, "orders", "run-1", shortWait)
		must(t, "Results", err)
		got = append(got, res...)
	}
	if len(got) != 2 {
		t.Fatalf("results = %+v, want the two completed items", got)
	}
	slices.SortFunc(got, func(x, y checkpoint.WorkResult) int { return len(x.Error) - len(y.Error) })
	if got[0].Key != a.Key || got[0].Rows != 5 || !slices.Equal(got[0].Segments, []string{a.Key + "_0"}) || got[1].Error != "bad file" {
		t.Fatalf("results = %+v, want a's result and b's error", got)
	}
	res, err := q.Results(ctx, "orders", "run-1", shortWait)
	must(t, "Results after collection", err)
	if len(res) != 0 {
		t.Fatalf("results were returned twice: %+v", res)
	}
}

func testWorkReclaim(t *testing.T, s checkpoint.Store, q checkpoint.WorkQueue) {
	ctx := ctxT(t)
	_, items := leasedItems(t, s, "orders", "run-1", 1)
	_, err := q.Publish(ctx, items)
	must(t, "Publish", err)
	a, ok := claim(t, q, "builder-a", staleClaim)
	if !ok {
		t.Fatal("no item claimed")
	}
	if _, ok := claim(t, q, "builder-b", staleClaim); ok {
		t.Fatal("a fresh claim was taken over")
	}
	time.Sleep(3 * staleClaim)
	b, ok := claim(t, q, "builder-b", staleClaim)
	if !ok || b.ID != a.ID {
		t.Fatalf("stale claim not reclaimed: %+v %v", b, ok)
	}
	wantErr(t, "Heartbeat by the old builder", q.Heartbeat(ctx, "builder-a", a), checkpoint.ErrFenced)
	wantErr(t, "Confirm by the old builder (W1)", q.Confirm(ctx, "builder-a", a), checkpoint.ErrFenced)
	wantErr(t, "Complete by the old builder", q.Complete(ctx, "builder-a", a, checkpoint.WorkResult{Key: a.Key}), checkpoint.ErrFenced)
	must(t, "Confirm by the new builder", q.Confirm(ctx, "builder-b", b))
	must(t, "Complete by the new builder", q.Complete(ctx, "builder-b", b, checkpoint.WorkResult{Key: b.Key, Builder: "builder-b"}))
	res, err := q.Results(ctx, "orders", "run-1", shortWait)
	must(t, "Results", err)
	if len(res) != 1 || res[0].Builder != "builder-b" {
		t.Fatalf("results = %+v, want only builder-b's", res)
	}
}

func testWorkHeartbeat(t *testing.T, s checkpoint.Store, q checkpoint.WorkQueue) {
	ctx := ctxT(t)
	_, items := leasedItems(t, s, "orders", "run-1", 1)
	_, err := q.Publish(ctx, items)
	must(t, "Publish", err)
	a, ok := claim(t, q, "builder-a", staleClaim)
	if !ok {
		t.Fatal("no item claimed")
	}
	for range 6 {
		time.Sleep(staleClaim / 2)
		must(t, "Heartbeat", q.Heartbeat(ctx, "builder-a", a))
		if it, ok := claim(t, q, "builder-b", staleClaim); ok {
			t.Fatalf("item %s taken over despite heartbeats", it.ID)
		}
	}
	must(t, "Confirm", q.Confirm(ctx, "builder-a", a))
}

func testWorkConfirmLease(t *testing.T, s checkpoint.Store, q checkpoint.WorkQueue) {
	ctx := ctxT(t)
	l, items := leasedItems(t, s, "orders", "run-1", 2)
	_, err := q.Publish(ctx, items)
	must(t, "Publish", err)
	a, _ := claim(t, q, "builder-a", longStale)
	must(t, "Confirm under the live lease", q.Confirm(ctx, "builder-a", a))
	_, err = s.RenewLease(ctx, l, shortTTL)
	must(t, "RenewLease short", err)
	time.Sleep(3 * shortTTL)
	wantErr(t, "Confirm after the lease expired", q.Confirm(ctx, "builder-a", a), checkpoint.ErrFenced)
	_, err = s.AcquireLease(ctx, "orders", "holder", longTTL) // same owner, new token
	must(t, "AcquireLease again", err)
	wantErr(t, "Confirm under an older token (W1)", q.Confirm(ctx, "builder-a", a), checkpoint.ErrFenced)
	must(t, "Discard", q.Discard(ctx, "builder-a", a))
}

func testWorkCancel(t *testing.T, s checkpoint.Store, q checkpoint.WorkQueue) {
	ctx := ctxT(t)
	_, items := leasedItems(t, s, "orders", "run-1", 3)
	published, err := q.Publish(ctx, items)
	must(t, "Publish", err)
	a, _ := claim(t, q, "builder-a", longStale)
	must(t, "Complete", q.Complete(ctx, "builder-a", a, checkpoint.WorkResult{Key: a.Key}))
	must(t, "Cancel", q.Cancel(ctx, "orders", "run-1", published))
	if it, ok := claim(t, q, "builder-b", 0); ok {
		t.Fatalf("claimed %s after Cancel", it.Key)
	}
	res, err := q.Results(ctx, "orders", "run-1", shortWait)
	must(t, "Results after Cancel", err)
	if len(res) != 0 {
		t.Fatalf("results after Cancel: %+v", res)
	}
}
