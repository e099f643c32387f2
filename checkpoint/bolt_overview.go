package checkpoint

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Bolt keeps each table's newest run twice: in its runs sub-bucket and,
// for overviews, under the table's name in "lastruns", so that reading the
// overview of many tables costs one key per table, not their histories.

// PutObservation records the latest observation of an existing table.
func (b *Bolt) PutObservation(_ context.Context, table string, o Observation) error {
	raw, err := encodeObservation(o)
	if err != nil {
		return err
	}
	return b.update("put observation of table "+quote(table), func(tx *bolt.Tx) error {
		if tx.Bucket(bktTables).Get([]byte(table)) == nil {
			return ErrNotFound
		}
		return tx.Bucket(bktObserved).Put([]byte(table), raw)
	})
}

// TableOverviews reads the overview of each name in one transaction.
func (b *Bolt) TableOverviews(_ context.Context, names []string) ([]TableOverview, error) {
	out := make([]TableOverview, len(names))
	err := b.view("read table overviews", func(tx *bolt.Tx) error {
		for i, name := range names {
			ov, err := boltOverview(tx, name)
			if err != nil {
				return err
			}
			out[i] = ov
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func boltOverview(tx *bolt.Tx, name string) (TableOverview, error) {
	ov := TableOverview{Table: name}
	key := []byte(name)
	if raw := tx.Bucket(bktCheckpoints).Get(key); raw != nil {
		var h checkpointHeader
		if err := decode("checkpoint of table "+quote(name), raw, &h); err != nil {
			return ov, err
		}
		sum := h.summary()
		ov.Summary = &sum
	}
	run, err := boltNewestRun(tx, name)
	if err != nil {
		return ov, err
	}
	ov.LastRun = run
	if raw := tx.Bucket(bktObserved).Get(key); raw != nil {
		if ov.Observation, err = decodeObservation(name, raw); err != nil {
			return ov, err
		}
	}
	return ov, nil
}

// boltNewestRun reads the table's newest run from "lastruns", or from its
// history when a file written before that bucket existed has no entry.
func boltNewestRun(tx *bolt.Tx, table string) (*Run, error) {
	if raw := tx.Bucket(bktLastRuns).Get([]byte(table)); raw != nil {
		return decodeRun(table, raw)
	}
	runs, err := readRuns(tx.Bucket(bktRuns).Bucket([]byte(table)), table)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	return &runs[0], nil
}

// noteNewestRun keeps "lastruns" on the newest run of r's table after r
// was written to its history bkt: r when it is newer than the entry or
// replaces it; when r replaced the newest run with an older start, the
// history decides.
func noteNewestRun(tx *bolt.Tx, bkt *bolt.Bucket, r Run) error {
	last, err := boltNewestRun(tx, r.Table)
	if err != nil {
		return err
	}
	newest := r
	if last != nil && last.ID == r.ID && runNewer(*last, r) {
		runs, err := readRuns(bkt, r.Table)
		if err != nil {
			return err
		}
		newest = runs[0]
	} else if last != nil && last.ID != r.ID && runNewer(*last, r) {
		return nil
	}
	if err := putJSON(tx.Bucket(bktLastRuns), r.Table, "run", runRecord{versioned{FormatCurrent}, newest}); err != nil {
		return fmt.Errorf("note newest run of table %q: %w", r.Table, err)
	}
	return nil
}

// TableRevision returns the last table revision.
func (b *Bolt) TableRevision(_ context.Context) (int64, error) {
	var rev int64
	err := b.view("read table revision", func(tx *bolt.Tx) error {
		rev = tableRev(tx)
		return nil
	})
	return rev, err
}
