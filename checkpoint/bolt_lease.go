package checkpoint

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltLease reads the table's lease if it has not expired at now.
func boltLease(tx *bolt.Tx, table string, now time.Time) (Lease, bool, error) {
	var r leaseRecord
	err := getJSON(tx.Bucket(bktLeases), table, "lease on table "+quote(table), &r)
	if errors.Is(err, ErrNotFound) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, err
	}
	if !now.Before(r.ExpiresAt) {
		return Lease{}, false, nil
	}
	return r.Lease, true, nil
}

func checkBoltLease(tx *bolt.Tx, lease Lease, now time.Time) error {
	cur, ok, err := boltLease(tx, lease.Table, now)
	if err != nil {
		return err
	}
	if !ok || cur.Token != lease.Token || cur.Owner != lease.Owner {
		return fmt.Errorf("%w (token %d)", ErrFenced, lease.Token)
	}
	return nil
}

func putLease(tx *bolt.Tx, l Lease) error {
	return putJSON(tx.Bucket(bktLeases), l.Table, "lease", leaseRecord{versioned{FormatCurrent}, l})
}

// nextFence increments and returns the table's fencing counter.
func nextFence(tx *bolt.Tx, table string) (int64, error) {
	bkt := tx.Bucket(bktFences)
	var n uint64
	if raw := bkt.Get([]byte(table)); len(raw) == 8 {
		n = binary.BigEndian.Uint64(raw)
	}
	n++
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], n)
	return int64(n), bkt.Put([]byte(table), buf[:])
}

// AcquireLease takes or extends the table's lease for owner.
func (b *Bolt) AcquireLease(_ context.Context, table, owner string, ttl time.Duration) (Lease, error) {
	if err := checkAcquire(table, owner, ttl); err != nil {
		return Lease{}, fmt.Errorf("acquire lease: %w", err)
	}
	var out Lease
	err := b.update("acquire lease on table "+quote(table), func(tx *bolt.Tx) error {
		if tx.Bucket(bktTables).Get([]byte(table)) == nil {
			return ErrNotFound
		}
		now := time.Now()
		cur, held, err := boltLease(tx, table, now)
		if err != nil {
			return err
		}
		if held && cur.Owner != owner {
			return fmt.Errorf("%w (owner %q)", ErrLeaseHeld, cur.Owner)
		}
		if !held {
			tok, err := nextFence(tx, table)
			if err != nil {
				return err
			}
			cur = Lease{Table: table, Owner: owner, Token: tok}
		}
		cur.ExpiresAt = now.Add(ttl).UTC()
		out = cur
		return putLease(tx, cur)
	})
	return out, err
}

// RenewLease extends a lease that is still current.
func (b *Bolt) RenewLease(_ context.Context, lease Lease, ttl time.Duration) (Lease, error) {
	if err := checkTTL(ttl); err != nil {
		return Lease{}, fmt.Errorf("renew lease: %w", err)
	}
	out := lease
	err := b.update("renew lease on table "+quote(lease.Table), func(tx *bolt.Tx) error {
		now := time.Now()
		if err := checkBoltLease(tx, lease, now); err != nil {
			return err
		}
		out.ExpiresAt = now.Add(ttl).UTC()
		return putLease(tx, out)
	})
	if err != nil {
		return Lease{}, err
	}
	return out, nil
}

// ReleaseLease gives up a lease that is still current.
func (b *Bolt) ReleaseLease(_ context.Context, lease Lease) error {
	return b.update("release lease on table "+quote(lease.Table), func(tx *bolt.Tx) error {
		if err := checkBoltLease(tx, lease, time.Now()); err != nil {
			return err
		}
		return tx.Bucket(bktLeases).Delete([]byte(lease.Table))
	})
}

// GetLease returns the table's unexpired lease.
func (b *Bolt) GetLease(_ context.Context, table string) (Lease, error) {
	var out Lease
	err := b.view("get lease on table "+quote(table), func(tx *bolt.Tx) error {
		l, ok, err := boltLease(tx, table, time.Now())
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		out = l
		return nil
	})
	return out, err
}

// ListLeases returns every unexpired lease sorted by table.
func (b *Bolt) ListLeases(_ context.Context) ([]Lease, error) {
	var out []Lease
	err := b.view("list leases", func(tx *bolt.Tx) error {
		now := time.Now()
		return tx.Bucket(bktLeases).ForEach(func(k, _ []byte) error {
			l, ok, err := boltLease(tx, string(k), now)
			if ok {
				out = append(out, l)
			}
			return err
		})
	})
	return out, err
}
