package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
)

// ErrLeaseExpiring: the run cannot prove it still holds its lease for long
// enough to make a change to Pinot; it stops without making it (I4).
var ErrLeaseExpiring = errors.New("lease not certainly held")

// leaseKeeper holds one run's lease. It renews the lease in the background
// and judges how long the lease is certainly still the run's: until the
// moment the last successful renewal was sent plus the TTL, measured on
// both the local monotonic clock and the wall clock (a suspended VM stops
// the first, a stepped clock moves the second; the earlier end counts).
// Every change to Pinot asks it first (guard); a change needs at least
// margin of certain lease left, and a destructive one renews first.
type leaseKeeper struct {
	store  checkpoint.Store
	ttl    time.Duration
	margin time.Duration
	log    *slog.Logger
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	lease     checkpoint.Lease
	validMono time.Time // monotonic reading: sent + ttl
	validWall time.Time // wall reading (monotonic stripped): sent + ttl
	lost      error

	stop chan struct{}
	done chan struct{}
}

// keepLease starts renewing lease, acquired by a request sent at sent. The
// returned context ends when the lease is lost or certainly expiring.
func (w *Watcher) keepLease(ctx context.Context, lease checkpoint.Lease, sent time.Time) (context.Context, *leaseKeeper) {
	runCtx, cancel := context.WithCancelCause(ctx)
	k := &leaseKeeper{
		store: w.deps.Store, ttl: w.opts.LeaseTTL, margin: w.leaseMargin(), log: w.log, cancel: cancel,
		lease: lease, stop: make(chan struct{}), done: make(chan struct{}),
	}
	k.noteRenewed(sent)
	go k.loop(runCtx)
	return runCtx, k
}

// leaseMargin is the configured safety margin, else a third of the TTL.
func (w *Watcher) leaseMargin() time.Duration {
	if w.opts.LeaseMargin > 0 {
		return w.opts.LeaseMargin
	}
	return w.opts.LeaseTTL / 3
}

func (k *leaseKeeper) noteRenewed(sent time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.validMono = sent.Add(k.ttl)
	k.validWall = sent.Round(0).Add(k.ttl)
}

// loop renews every quarter TTL until Close or the run's end.
func (k *leaseKeeper) loop(ctx context.Context) {
	defer close(k.done)
	tick := time.NewTicker(k.ttl / 4)
	defer tick.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := k.renew(ctx); err != nil {
				return
			}
		}
	}
}

// renew renews the lease once. A fenced lease is lost at once; any other
// failure is tolerated while the lease is still certainly held, so a
// short store outage does not end a run that can still commit.
func (k *leaseKeeper) renew(ctx context.Context) error {
	k.mu.Lock()
	lease, lost := k.lease, k.lost
	k.mu.Unlock()
	if lost != nil {
		return lost
	}
	sent := time.Now()
	l, err := k.store.RenewLease(ctx, lease, k.ttl)
	if err == nil {
		k.mu.Lock()
		k.lease.ExpiresAt = l.ExpiresAt
		k.mu.Unlock()
		k.noteRenewed(sent)
		return nil
	}
	if errors.Is(err, checkpoint.ErrFenced) {
		return k.lose(fmt.Errorf("%w: lease on table %s lost (token %d): %w", ErrLeaseExpiring, lease.Table, lease.Token, err))
	}
	if left := k.left(); left < k.margin {
		return k.lose(fmt.Errorf("%w: lease on table %s could not be renewed and has %s left: %w",
			ErrLeaseExpiring, lease.Table, left.Round(time.Millisecond), err))
	}
	k.log.Warn("renew lease", slog.String(attrTable, lease.Table), slog.String("error", err.Error()))
	return nil
}

// lose marks the lease lost and ends the run's context.
func (k *leaseKeeper) lose(err error) error {
	k.mu.Lock()
	if k.lost == nil {
		k.lost = err
	}
	err = k.lost
	k.mu.Unlock()
	k.cancel(err)
	return err
}

// left is how long the lease is certainly still held.
func (k *leaseKeeper) left() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	return min(k.validMono.Sub(now), k.validWall.Sub(now.Round(0)))
}

// check fails unless at least margin of certain lease is left.
func (k *leaseKeeper) check(op string) error {
	k.mu.Lock()
	lost := k.lost
	k.mu.Unlock()
	if lost != nil {
		return lost
	}
	if left := k.left(); left < k.margin {
		return k.lose(fmt.Errorf("%w: %s refused: lease on table %s has %s certainly left, the margin is %s",
			ErrLeaseExpiring, op, k.lease.Table, left.Round(time.Millisecond), k.margin))
	}
	return nil
}

// guard is the pinot.Guard of the run: every change to Pinot asks it right
// before it is sent. A destructive change renews the lease first, so it is
// judged on a fresh answer from the store, not only on elapsed time.
func (k *leaseKeeper) guard(ctx context.Context, w pinot.Write) error {
	op := w.Op + " on table " + w.Table
	if w.Destructive {
		if err := k.renew(ctx); err != nil {
			return err
		}
	}
	return k.check(op)
}

// current returns the lease as last renewed.
func (k *leaseKeeper) current() checkpoint.Lease {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lease
}

// Close stops renewing; it does not release the lease.
func (k *leaseKeeper) Close() {
	select {
	case <-k.stop:
	default:
		close(k.stop)
	}
	<-k.done
}
