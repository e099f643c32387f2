package checkpoint

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CommitCheckpointDelta applies d to the table's checkpoint and file map
// in one transaction if lease is current.
func (b *Bolt) CommitCheckpointDelta(_ context.Context, lease Lease, d CheckpointDelta) error {
	if err := checkDelta(lease, d); err != nil {
		return fmt.Errorf("commit checkpoint delta: %w", err)
	}
	cp := stampCheckpoint(d.Header, lease, time.Now())
	return b.update("commit checkpoint delta of table "+quote(lease.Table), func(tx *bolt.Tx) error {
		if err := checkBoltLease(tx, lease, time.Now()); err != nil {
			return err
		}
		count, err := applyBoltDelta(tx, lease.Table, d)
		if err != nil {
			return err
		}
		h := newHeader(cp)
		h.FileCount = count
		return putJSON(tx.Bucket(bktCheckpoints), lease.Table, "checkpoint", h)
	})
}

// applyBoltDelta writes d's files and returns the new file count, kept
// from the old header's count so a commit costs the size of the delta.
func applyBoltDelta(tx *bolt.Tx, table string, d CheckpointDelta) (int, error) {
	var old checkpointHeader
	if err := getJSON(tx.Bucket(bktCheckpoints), table, "checkpoint of table "+quote(table), &old); err != nil && !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	count := old.FileCount
	bkt, err := tx.Bucket(bktFiles).CreateBucketIfNotExists([]byte(table))
	if err != nil {
		return 0, err
	}
	for _, p := range d.deletions() {
		if bkt.Get([]byte(p)) == nil {
			continue
		}
		count--
		if err := bkt.Delete([]byte(p)); err != nil {
			return 0, fmt.Errorf("delete file %q: %w", p, err)
		}
	}
	for p, fs := range d.Set {
		if bkt.Get([]byte(p)) == nil {
			count++
		}
		raw, err := encodeFile(fs)
		if err != nil {
			return 0, err
		}
		if err := bkt.Put([]byte(p), raw); err != nil {
			return 0, fmt.Errorf("put file %q: %w", p, err)
		}
	}
	return count, nil
}

// RecordSegments notes lease's token for names if lease is current.
func (b *Bolt) RecordSegments(_ context.Context, lease Lease, names []string) error {
	var tok [8]byte
	binary.BigEndian.PutUint64(tok[:], uint64(lease.Token))
	return b.ledgerWrite("record segments", lease, names, func(bkt *bolt.Bucket, n string) error {
		return bkt.Put([]byte(n), tok[:])
	})
}

// ForgetSegments drops names from the ledger if lease is current.
func (b *Bolt) ForgetSegments(_ context.Context, lease Lease, names []string) error {
	return b.ledgerWrite("forget segments", lease, names, func(bkt *bolt.Bucket, n string) error {
		return bkt.Delete([]byte(n))
	})
}

func (b *Bolt) ledgerWrite(op string, lease Lease, names []string, fn func(*bolt.Bucket, string) error) error {
	if err := checkNames(lease, names); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return b.update(op+" of table "+quote(lease.Table), func(tx *bolt.Tx) error {
		if err := checkBoltLease(tx, lease, time.Now()); err != nil {
			return err
		}
		bkt, err := tx.Bucket(bktSegTokens).CreateBucketIfNotExists([]byte(lease.Table))
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := fn(bkt, n); err != nil {
				return fmt.Errorf("segment %q: %w", n, err)
			}
		}
		return nil
	})
}

// SegmentTokens returns the recorded token of each name that has one.
func (b *Bolt) SegmentTokens(_ context.Context, table string, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	err := b.view("segment tokens of table "+quote(table), func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bktSegTokens).Bucket([]byte(table))
		if bkt == nil {
			return nil
		}
		for _, n := range names {
			if raw := bkt.Get([]byte(n)); len(raw) == 8 {
				out[n] = int64(binary.BigEndian.Uint64(raw))
			}
		}
		return nil
	})
	return out, err
}
