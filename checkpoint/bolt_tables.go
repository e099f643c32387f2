package checkpoint

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// keyTableRev is the meta bucket's table revision counter, an 8-byte
// big-endian integer (format: never change; see doc.go).
var keyTableRev = []byte("tablerev")

// boltTables is the Bolt store's table-change state: a lock that keeps
// table writes and their announcement in revision order, and the
// in-process change log.
type boltTables struct {
	mu      sync.Mutex
	changes *changeLog
}

// openTables starts the change log at the stored table revision.
func (b *Bolt) openTables() error {
	var rev int64
	err := b.db.View(func(tx *bolt.Tx) error {
		rev = tableRev(tx)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read table revision: %w", err)
	}
	b.tables.changes = newChangeLog(rev)
	return nil
}

func tableRev(tx *bolt.Tx) int64 {
	raw := tx.Bucket(bktMeta).Get(keyTableRev)
	if len(raw) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw))
}

// tableUpdate is update for the methods that write a table record: after
// fn, in the same transaction, it stamps the table's record (or its
// absence, for a delete) with the next table revision; once committed it
// announces the change, and returns it.
func (b *Bolt) tableUpdate(op, name string, fn func(*bolt.Tx) error) error {
	_, err := b.tableWrite(op, name, fn)
	return err
}

func (b *Bolt) tableWrite(op, name string, fn func(*bolt.Tx) error) (TableChange, error) {
	b.tables.mu.Lock()
	defer b.tables.mu.Unlock()
	var c TableChange
	err := b.update(op, func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		c, err = stampTable(tx, name)
		return err
	})
	if err != nil {
		return TableChange{}, err
	}
	b.tables.changes.append(c)
	return c, nil
}

// stampTable takes the next table revision for the write fn just made to
// the named table.
func stampTable(tx *bolt.Tx, name string) (TableChange, error) {
	rev := tableRev(tx) + 1
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], uint64(rev))
	if err := tx.Bucket(bktMeta).Put(keyTableRev, raw[:]); err != nil {
		return TableChange{}, err
	}
	bkt := tx.Bucket(bktTables)
	var r tableRecord
	switch err := getJSON(bkt, name, "table "+quote(name), &r); {
	case errors.Is(err, ErrNotFound):
		return deletedTable(name, rev), nil
	case err != nil:
		return TableChange{}, err
	}
	r.V, r.Revision = FormatCurrent, rev
	if err := putJSON(bkt, name, "table", r); err != nil {
		return TableChange{}, err
	}
	return changedTable(r.Table), nil
}

// UpdateTable replaces the table in one transaction if its stored
// revision is still t.Revision.
func (b *Bolt) UpdateTable(_ context.Context, t Table) (Table, error) {
	if err := checkName("table", t.Name); err != nil {
		return Table{}, fmt.Errorf("update table: %w", err)
	}
	c, err := b.tableWrite("update table "+quote(t.Name), t.Name, func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bktTables)
		var cur tableRecord
		if err := getJSON(bkt, t.Name, "table "+quote(t.Name), &cur); err != nil {
			return err
		}
		if cur.Revision != t.Revision {
			return staleErr(cur.Revision, t.Revision)
		}
		return putJSON(bkt, t.Name, "table", tableRecord{versioned{FormatCurrent}, t})
	})
	if err != nil {
		return Table{}, err
	}
	return *c.Table, nil
}

// SnapshotTables lists every table and the table revision in one read
// transaction.
func (b *Bolt) SnapshotTables(_ context.Context) (TableSnapshot, error) {
	var snap TableSnapshot
	err := b.view("snapshot tables", func(tx *bolt.Tx) error {
		snap.Revision = tableRev(tx)
		return tx.Bucket(bktTables).ForEach(func(k, v []byte) error {
			var r tableRecord
			if err := decode("table "+quote(string(k)), v, &r); err != nil {
				return err
			}
			snap.Tables = append(snap.Tables, r.Table)
			return nil
		})
	})
	return snap, err
}

// WatchTables delivers the table changes after revision after from the
// in-process backlog (one process owns a Bolt file).
func (b *Bolt) WatchTables(ctx context.Context, after int64) (<-chan TableChange, error) {
	return b.tables.changes.watch(ctx, after), nil
}
