package checkpointtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

func testLease(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	_, err := s.GetLease(ctx, "orders")
	wantErr(t, "GetLease(free)", err, checkpoint.ErrNotFound)
	before := time.Now()
	a, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease", err)
	if a.Table != "orders" || a.Owner != "r1" || a.Token <= 0 || a.ExpiresAt.Before(before.Add(longTTL)) {
		t.Fatalf("AcquireLease = %+v, want table orders, owner r1, token > 0, expiry >= now+%s", a, longTTL)
	}
	_, err = s.AcquireLease(ctx, "orders", "r2", longTTL)
	wantErr(t, "AcquireLease by another owner", err, checkpoint.ErrLeaseHeld)

	// The holder re-acquiring keeps its token and extends the lease.
	again, err := s.AcquireLease(ctx, "orders", "r1", 2*longTTL)
	must(t, "AcquireLease again by holder", err)
	if again.Token != a.Token || !again.ExpiresAt.After(a.ExpiresAt) {
		t.Fatalf("re-acquire = %+v, want token %d and expiry after %v", again, a.Token, a.ExpiresAt)
	}
	renewed, err := s.RenewLease(ctx, a, 3*longTTL)
	must(t, "RenewLease", err)
	if renewed.Token != a.Token || !renewed.ExpiresAt.After(again.ExpiresAt) {
		t.Fatalf("RenewLease = %+v, want token %d and expiry after %v", renewed, a.Token, again.ExpiresAt)
	}
	got, err := s.GetLease(ctx, "orders")
	must(t, "GetLease", err)
	if got.Owner != "r1" || got.Token != a.Token || !got.ExpiresAt.Equal(renewed.ExpiresAt) {
		t.Fatalf("GetLease = %+v, want renewed lease %+v", got, renewed)
	}
	must(t, "CreateTable users", s.CreateTable(ctx, fullTable("users")))
	u, err := s.AcquireLease(ctx, "users", "r2", longTTL)
	must(t, "AcquireLease users", err)
	list, err := s.ListLeases(ctx)
	must(t, "ListLeases", err)
	if len(list) != 2 || list[0].Table != "orders" || list[1].Table != "users" || list[1].Token != u.Token {
		t.Fatalf("ListLeases = %+v, want orders then users", list)
	}

	must(t, "ReleaseLease", s.ReleaseLease(ctx, renewed))
	_, err = s.GetLease(ctx, "orders")
	wantErr(t, "GetLease after release", err, checkpoint.ErrNotFound)
	wantErr(t, "Commit after release", s.CommitCheckpoint(ctx, renewed, fullCheckpoint("orders", 1, nil)),
		checkpoint.ErrFenced)
	b, err := s.AcquireLease(ctx, "orders", "r2", shortTTL)
	must(t, "AcquireLease r2 after release", err)
	if b.Token <= a.Token {
		t.Fatalf("token after release = %d, want > %d", b.Token, a.Token)
	}

	// Expired but not taken over: the lease is gone all the same (C2).
	time.Sleep(3 * shortTTL)
	_, err = s.GetLease(ctx, "orders")
	wantErr(t, "GetLease after expiry", err, checkpoint.ErrNotFound)
	wantErr(t, "Commit after expiry", s.CommitCheckpoint(ctx, b, fullCheckpoint("orders", 1, nil)),
		checkpoint.ErrFenced)
	_, err = s.RenewLease(ctx, b, longTTL)
	wantErr(t, "RenewLease after expiry", err, checkpoint.ErrFenced)
	list, err = s.ListLeases(ctx)
	must(t, "ListLeases after expiry", err)
	if len(list) != 1 || list[0].Table != "users" {
		t.Fatalf("ListLeases after expiry = %+v, want only users", list)
	}
}

// testLeaseInvalid: a lease of a table that does not exist is refused
// (C8), and so are bad arguments.
func testLeaseInvalid(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.AcquireLease(ctx, "ghost", "r1", longTTL)
	wantErr(t, "AcquireLease(missing table)", err, checkpoint.ErrNotFound)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	_, err = s.AcquireLease(ctx, "orders", "r1", 0)
	wantErr(t, "AcquireLease(ttl 0)", err, checkpoint.ErrInvalid)
	_, err = s.AcquireLease(ctx, "orders", "", longTTL)
	wantErr(t, "AcquireLease(empty owner)", err, checkpoint.ErrInvalid)
	_, err = s.AcquireLease(ctx, "", "r1", longTTL)
	wantErr(t, "AcquireLease(empty table)", err, checkpoint.ErrInvalid)
	l, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease", err)
	_, err = s.RenewLease(ctx, l, -time.Second)
	wantErr(t, "RenewLease(negative ttl)", err, checkpoint.ErrInvalid)
	if _, err := s.GetLease(ctx, "orders"); err != nil {
		t.Fatalf("lease lost after refused renew: %v", err)
	}
}

// testTokenMonotonic: tokens strictly grow across expiry, release and
// re-acquire by other owners (C3).
func testTokenMonotonic(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	var last int64
	for i := range 6 {
		owner := fmt.Sprintf("replica-%d", i%2)
		// Even rounds let the lease expire; odd rounds release it, so they
		// hold it long enough that a slow store cannot expire it first.
		ttl := longTTL
		if i%2 == 0 {
			ttl = shortTTL
		}
		l, err := s.AcquireLease(ctx, "orders", owner, ttl)
		must(t, fmt.Sprintf("AcquireLease #%d", i), err)
		if l.Token <= last {
			t.Fatalf("acquire #%d by %s: token %d, want > %d", i, owner, l.Token, last)
		}
		last = l.Token
		if i%2 == 0 {
			time.Sleep(3 * shortTTL) // let it expire
		} else {
			must(t, "ReleaseLease", s.ReleaseLease(ctx, l))
		}
	}
}

// testConcurrentAcquire: many replicas race for one table; exactly one
// wins each round (C5) and every round's winner has a larger token (I4).
func testConcurrentAcquire(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	const racers = 32
	var last int64
	for round := range 4 {
		var wg sync.WaitGroup
		leases := make([]checkpoint.Lease, racers)
		errs := make([]error, racers)
		for i := range racers {
			wg.Go(func() {
				leases[i], errs[i] = s.AcquireLease(ctx, "orders", fmt.Sprintf("r%d-%d", round, i), longTTL)
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: two winners: %+v and %+v", round, leases[winner], leases[i])
			case err == nil:
				winner = i
			case !errors.Is(err, checkpoint.ErrLeaseHeld):
				t.Fatalf("round %d racer %d: error %v, want ErrLeaseHeld", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no winner", round)
		}
		if leases[winner].Token <= last {
			t.Fatalf("round %d: token %d, want > %d", round, leases[winner].Token, last)
		}
		last = leases[winner].Token
		must(t, "ReleaseLease", s.ReleaseLease(ctx, leases[winner]))
	}
}
