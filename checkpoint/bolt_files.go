package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CommitCheckpointDelta applies d to the table's checkpoint, file map and
// file index in one transaction if lease is current.
func (b *Bolt) CommitCheckpointDelta(_ context.Context, lease Lease, d CheckpointDelta) error {
	if err := checkDelta(lease, d); err != nil {
		return fmt.Errorf("commit checkpoint delta: %w", err)
	}
	cp := stampCheckpoint(d.Header, lease, time.Now())
	return b.update("commit checkpoint delta of table "+quote(lease.Table), func(tx *bolt.Tx) error {
		if err := checkBoltLease(tx, lease, time.Now()); err != nil {
			return err
		}
		var old checkpointHeader
		if err := getJSON(tx.Bucket(bktCheckpoints), lease.Table, "checkpoint of table "+quote(lease.Table), &old); err != nil &&
			!errors.Is(err, ErrNotFound) {
			return err
		}
		x := newIndexDelta()
		count, rewrote, err := applyBoltDelta(tx, lease.Table, d, old.FileCount, x)
		if err != nil {
			return err
		}
		h := newHeader(cp)
		h.FileCount = count
		if rewrote { // most entries left: indexing those that stay costs less than taking the others out
			err = rebuildIndex(tx, lease.Table, h)
		} else {
			err = updateIndex(tx, lease.Table, x, old, h)
		}
		if err != nil {
			return err
		}
		return putJSON(tx.Bucket(bktCheckpoints), lease.Table, "checkpoint", h)
	})
}

// applyBoltDelta writes d's files and returns the new file count, kept
// from the old count so a commit costs the size of the delta. Deletions go
// in key order, each found once by a cursor; a delta that deletes at least
// half of the table's files (a compaction's remap) rewrites the bucket
// with the files that stay instead (rewrote). Unless it rewrote, x records
// the entries it took out and put in.
func applyBoltDelta(tx *bolt.Tx, table string, d CheckpointDelta, oldCount int, x *indexDelta) (count int, rewrote bool, err error) {
	parent, key, dels := tx.Bucket(bktFiles), []byte(table), d.deletions()
	rewrote = len(dels) > 0 && 2*len(dels) >= oldCount && parent.Bucket(key) != nil
	dec := newFileDecoder(table)
	out := func(k, v []byte) error {
		if rewrote {
			return nil
		}
		fs, err := dec.decode(string(k), v)
		if err != nil {
			return err
		}
		x.file(string(k), fs, -1)
		return nil
	}
	var bkt *bolt.Bucket
	if rewrote {
		bkt, count, err = rewriteFiles(parent, key, dels)
	} else {
		bkt, count, err = deleteFiles(parent, key, dels, oldCount, out)
	}
	if err != nil {
		return 0, false, err
	}
	for p, fs := range d.Set {
		if v := bkt.Get([]byte(p)); v == nil {
			count++
		} else if err := out([]byte(p), v); err != nil {
			return 0, false, err
		}
		raw, err := encodeFile(fs)
		if err != nil {
			return 0, false, err
		}
		if err := bkt.Put([]byte(p), raw); err != nil {
			return 0, false, fmt.Errorf("put file %q: %w", p, err)
		}
		x.file(p, fs, 1)
	}
	return count, rewrote, nil
}

// deleteFiles removes the sorted paths dels from the table's file bucket
// (created when missing), handing each removed entry to out first, and
// returns it with count less the files it held.
func deleteFiles(parent *bolt.Bucket, key []byte, dels []string, count int, out func(k, v []byte) error) (*bolt.Bucket, int, error) {
	bkt, err := parent.CreateBucketIfNotExists(key)
	if err != nil {
		return nil, 0, err
	}
	c := bkt.Cursor()
	for _, p := range dels {
		k, v := c.Seek([]byte(p))
		if k == nil || string(k) != p {
			continue
		}
		if err := out(k, v); err != nil {
			return nil, 0, err
		}
		if err := c.Delete(); err != nil {
			return nil, 0, fmt.Errorf("delete file %q: %w", p, err)
		}
		count--
	}
	return bkt, count, nil
}

// rewriteFiles replaces the table's file bucket with one that holds its
// files but the sorted paths dels, and returns it with its file count: one
// ordered pass over the bucket, no search per deleted file.
func rewriteFiles(parent *bolt.Bucket, key []byte, dels []string) (*bolt.Bucket, int, error) {
	var stay [][2][]byte
	c, i := parent.Bucket(key).Cursor(), 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		for i < len(dels) && dels[i] < string(k) {
			i++
		}
		if i < len(dels) && dels[i] == string(k) {
			continue
		}
		// Copied: the old bucket's pages are freed, and the file may be
		// remapped before the commit writes the new one.
		stay = append(stay, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
	}
	if err := parent.DeleteBucket(key); err != nil {
		return nil, 0, err
	}
	bkt, err := parent.CreateBucket(key)
	if err != nil {
		return nil, 0, err
	}
	bkt.FillPercent = 0.9 // keys go in sorted order
	for _, kv := range stay {
		if err := bkt.Put(kv[0], kv[1]); err != nil {
			return nil, 0, fmt.Errorf("put file %q: %w", kv[0], err)
		}
	}
	return bkt, len(stay), nil
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
