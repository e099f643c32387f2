package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// BoltLockTimeout is how long OpenBolt waits for another process to
// release the database file before giving up.
const BoltLockTimeout = 2 * time.Second

// Bucket names of the Bolt layout (format: never change; see doc.go).
var (
	bktMeta        = []byte("meta")
	bktConnections = []byte("connections")
	bktTables      = []byte("tables")
	bktCheckpoints = []byte("checkpoints")
	bktFiles       = []byte("files")
	bktRuns        = []byte("runs")
	bktLeases      = []byte("leases")
	bktFences      = []byte("fences")
	bktSegTokens   = []byte("segtokens")
	bktObserved    = []byte("observations")
	bktLastRuns    = []byte("lastruns")
	bktFileIndex   = []byte("fileindex")
	keyFormat      = []byte("format")
)

func boltBuckets() [][]byte {
	return [][]byte{bktMeta, bktConnections, bktTables, bktCheckpoints, bktFiles, bktRuns, bktLeases, bktFences, bktSegTokens,
		bktObserved, bktLastRuns, bktFileIndex}
}

// Bolt is the embedded single-node Store, one bbolt file used by one
// process. Every method runs in one bbolt transaction, so each is atomic.
type Bolt struct {
	db   *bolt.DB
	path string

	tables boltTables // table revisions and their announcement
	obs    Observer   // nil: none (observe.go)
}

var _ Store = (*Bolt)(nil)

// ErrStoreLocked: another process holds the embedded store's file.
var ErrStoreLocked = errors.New("file is locked by another process")

// OpenBolt opens (creating if needed) the store file at path. It fails
// with an error naming the file when another process holds it.
func OpenBolt(path string) (*Bolt, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: BoltLockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open bolt store %s: %w (waited %s)", path, ErrStoreLocked, BoltLockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("open bolt store %s: %w", path, err)
	}
	b := &Bolt{db: db, path: path}
	if err := db.Update(initBolt); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open bolt store %s: %w", path, err)
	}
	if err := b.openTables(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open bolt store %s: %w", path, err)
	}
	return b, nil
}

func initBolt(tx *bolt.Tx) error {
	for _, name := range boltBuckets() {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bktMeta)
	if raw := meta.Get(keyFormat); raw != nil {
		var ver versioned
		return decode("store format marker", raw, &ver)
	}
	raw, err := encode("store format marker", versioned{V: FormatCurrent})
	if err != nil {
		return err
	}
	return meta.Put(keyFormat, raw)
}

// Close closes the file.
func (b *Bolt) Close() error {
	b.tables.changes.close()
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("close bolt store %s: %w", b.path, err)
	}
	return nil
}

func (b *Bolt) view(op string, fn func(*bolt.Tx) error) error {
	start := time.Now()
	err := b.db.View(fn)
	b.observe(op, start, err)
	if err != nil {
		return wrapBolt(op, err)
	}
	return nil
}

func (b *Bolt) update(op string, fn func(*bolt.Tx) error) error {
	start := time.Now()
	err := b.db.Update(fn)
	b.observe(op, start, err)
	if err != nil {
		return wrapBolt(op, err)
	}
	return nil
}

func wrapBolt(op string, err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// getJSON decodes key of bucket into v; ErrNotFound when absent.
func getJSON(bkt *bolt.Bucket, key, what string, v any) error {
	raw := bkt.Get([]byte(key))
	if raw == nil {
		return ErrNotFound
	}
	return decode(what, raw, v)
}

func putJSON(bkt *bolt.Bucket, key, what string, v any) error {
	raw, err := encode(what, v)
	if err != nil {
		return err
	}
	return bkt.Put([]byte(key), raw)
}

// PutConnection creates or replaces a connection.
func (b *Bolt) PutConnection(_ context.Context, c Connection) error {
	if err := checkName("connection", c.Name); err != nil {
		return fmt.Errorf("put connection: %w", err)
	}
	return b.update("put connection "+quote(c.Name), func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bktConnections), c.Name, "connection", connectionRecord{versioned{FormatCurrent}, c})
	})
}

// GetConnection returns the named connection.
func (b *Bolt) GetConnection(_ context.Context, name string) (Connection, error) {
	var r connectionRecord
	err := b.view("get connection "+quote(name), func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bktConnections), name, "connection "+quote(name), &r)
	})
	return r.Connection, err
}

// ListConnections returns every connection sorted by name.
func (b *Bolt) ListConnections(_ context.Context) ([]Connection, error) {
	var out []Connection
	err := b.view("list connections", func(tx *bolt.Tx) error {
		return tx.Bucket(bktConnections).ForEach(func(k, v []byte) error {
			var r connectionRecord
			if err := decode("connection "+quote(string(k)), v, &r); err != nil {
				return err
			}
			out = append(out, r.Connection)
			return nil
		})
	})
	return out, err
}

// DeleteConnection removes the named connection if no table names it
// (one transaction: C13).
func (b *Bolt) DeleteConnection(_ context.Context, name string) error {
	var users []string
	err := b.update("delete connection "+quote(name), func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bktConnections)
		if bkt.Get([]byte(name)) == nil {
			return ErrNotFound
		}
		err := tx.Bucket(bktTables).ForEach(func(k, v []byte) error {
			var r tableRecord
			if err := decode("table "+quote(string(k)), v, &r); err != nil {
				return err
			}
			if r.Connection == name {
				users = append(users, r.Name)
			}
			return nil
		})
		if err != nil || len(users) > 0 {
			return err
		}
		return bkt.Delete([]byte(name))
	})
	if err == nil && len(users) > 0 {
		return inUseErr(name, users)
	}
	return err
}

// CreateBoundTable adds a table on a stored connection, checked in the
// same transaction (C13).
func (b *Bolt) CreateBoundTable(_ context.Context, t Table) error { return b.createTable(t, true) }

// CreateTable adds a table; ErrConflict if it exists.
func (b *Bolt) CreateTable(_ context.Context, t Table) error { return b.createTable(t, false) }

// createTable adds a table in one transaction, bound: only while its
// connection is stored.
func (b *Bolt) createTable(t Table, bound bool) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	var missing bool
	err := b.tableUpdate("create table "+quote(t.Name), t.Name, func(tx *bolt.Tx) error {
		if bound && tx.Bucket(bktConnections).Get([]byte(t.Connection)) == nil {
			missing = true
			return ErrNoConnection
		}
		bkt := tx.Bucket(bktTables)
		if bkt.Get([]byte(t.Name)) != nil {
			return ErrConflict
		}
		return putJSON(bkt, t.Name, "table", tableRecord{versioned{FormatCurrent}, t})
	})
	if missing {
		return noConnectionErr(t)
	}
	return err
}

// PutTable creates or replaces a table.
func (b *Bolt) PutTable(_ context.Context, t Table) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	return b.tableUpdate("put table "+quote(t.Name), t.Name, func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bktTables), t.Name, "table", tableRecord{versioned{FormatCurrent}, t})
	})
}

// GetTable returns the named table.
func (b *Bolt) GetTable(_ context.Context, name string) (Table, error) {
	var r tableRecord
	err := b.view("get table "+quote(name), func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bktTables), name, "table "+quote(name), &r)
	})
	return r.Table, err
}

// ListTables returns every table sorted by name.
func (b *Bolt) ListTables(_ context.Context) ([]Table, error) {
	var out []Table
	err := b.view("list tables", func(tx *bolt.Tx) error {
		return tx.Bucket(bktTables).ForEach(func(k, v []byte) error {
			var r tableRecord
			if err := decode("table "+quote(string(k)), v, &r); err != nil {
				return err
			}
			out = append(out, r.Table)
			return nil
		})
	})
	return out, err
}

// DeleteTable removes a table with its checkpoint, files, runs and lease.
// The fencing counter stays (invariant C3).
func (b *Bolt) DeleteTable(_ context.Context, name string) error {
	return b.tableUpdate("delete table "+quote(name), name, func(tx *bolt.Tx) error {
		key := []byte(name)
		existed := tx.Bucket(bktTables).Get(key) != nil
		for _, bk := range [][]byte{bktTables, bktCheckpoints, bktLeases, bktObserved, bktLastRuns} {
			if err := tx.Bucket(bk).Delete(key); err != nil {
				return err
			}
		}
		for _, bk := range [][]byte{bktFiles, bktRuns, bktSegTokens, bktFileIndex} {
			if err := deleteSub(tx.Bucket(bk), key); err != nil {
				return err
			}
		}
		if !existed {
			return ErrNotFound
		}
		return nil
	})
}

func deleteSub(parent *bolt.Bucket, key []byte) error {
	if parent.Bucket(key) == nil {
		return nil
	}
	return parent.DeleteBucket(key)
}

// GetCheckpoint returns the table's checkpoint with its file map.
func (b *Bolt) GetCheckpoint(_ context.Context, table string) (Checkpoint, error) {
	var cp Checkpoint
	err := b.view("get checkpoint of table "+quote(table), func(tx *bolt.Tx) error {
		var h checkpointHeader
		if err := getJSON(tx.Bucket(bktCheckpoints), table, "checkpoint of table "+quote(table), &h); err != nil {
			return err
		}
		files, err := readFiles(tx.Bucket(bktFiles).Bucket([]byte(table)), table, h.FileCount)
		if err != nil {
			return err
		}
		cp = h.checkpoint(files)
		return nil
	})
	return cp, err
}

func readFiles(bkt *bolt.Bucket, table string, sizeHint int) (map[string]FileState, error) {
	files := make(map[string]FileState, sizeHint)
	if bkt == nil {
		return files, nil
	}
	err := forEachFile(bkt, table, func(path string, fs FileState) error {
		files[path] = fs
		return nil
	})
	return files, err
}

// forEachFile decodes every entry of the table's file bucket bkt in key
// order and hands it to fn.
func forEachFile(bkt *bolt.Bucket, table string, fn func(path string, fs FileState) error) error {
	d := newFileDecoder(table)
	return bkt.ForEach(func(k, v []byte) error {
		path := string(k)
		fs, err := d.decode(path, v)
		if err != nil {
			return err
		}
		return fn(path, fs)
	})
}

// GetCheckpointSummary returns the table's checkpoint without its files.
func (b *Bolt) GetCheckpointSummary(_ context.Context, table string) (CheckpointSummary, error) {
	var h checkpointHeader
	err := b.view("get checkpoint summary of table "+quote(table), func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bktCheckpoints), table, "checkpoint of table "+quote(table), &h)
	})
	return h.summary(), err
}

// CommitCheckpoint replaces the table's checkpoint and file map in one
// transaction if lease is current.
func (b *Bolt) CommitCheckpoint(_ context.Context, lease Lease, cp Checkpoint) error {
	if err := checkCommit(lease, cp); err != nil {
		return fmt.Errorf("commit checkpoint: %w", err)
	}
	cp = stampCheckpoint(cp, lease, time.Now())
	return b.update("commit checkpoint of table "+quote(cp.Table), func(tx *bolt.Tx) error {
		if err := checkBoltLease(tx, lease, time.Now()); err != nil {
			return err
		}
		if err := writeFiles(tx.Bucket(bktFiles), cp); err != nil {
			return err
		}
		h := newHeader(cp)
		if err := writeIndex(tx, cp.Table, cp.Files, h); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bktCheckpoints), cp.Table, "checkpoint", h)
	})
}

func writeFiles(parent *bolt.Bucket, cp Checkpoint) error {
	key := []byte(cp.Table)
	if err := deleteSub(parent, key); err != nil {
		return err
	}
	bkt, err := parent.CreateBucket(key)
	if err != nil {
		return err
	}
	bkt.FillPercent = 0.9 // keys go in sorted order
	paths := make([]string, 0, len(cp.Files))
	for p := range cp.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		raw, err := encodeFile(cp.Files[p])
		if err != nil {
			return err
		}
		if err := bkt.Put([]byte(p), raw); err != nil {
			return fmt.Errorf("put file %q: %w", p, err)
		}
	}
	return nil
}

// PutRun inserts or updates a run and trims the history.
func (b *Bolt) PutRun(_ context.Context, r Run) error {
	if err := checkRun(r); err != nil {
		return fmt.Errorf("put run: %w", err)
	}
	r = trimRunLog(r)
	return b.update(fmt.Sprintf("put run %q of table %q", r.ID, r.Table), func(tx *bolt.Tx) error {
		bkt, err := tx.Bucket(bktRuns).CreateBucketIfNotExists([]byte(r.Table))
		if err != nil {
			return err
		}
		if err := putJSON(bkt, r.ID, "run", runRecord{versioned{FormatCurrent}, r}); err != nil {
			return err
		}
		if err := noteNewestRun(tx, bkt, r); err != nil {
			return err
		}
		if bkt.Stats().KeyN <= RunHistoryLimit {
			return nil
		}
		runs, err := readRuns(bkt, r.Table)
		if err != nil {
			return err
		}
		for _, old := range runs[RunHistoryLimit:] {
			if err := bkt.Delete([]byte(old.ID)); err != nil {
				return err
			}
		}
		return nil
	})
}

// readRuns returns every run in bkt, newest first.
func readRuns(bkt *bolt.Bucket, table string) ([]Run, error) {
	var out []Run
	if bkt == nil {
		return out, nil
	}
	err := bkt.ForEach(func(k, v []byte) error {
		var r runRecord
		if err := decode(fmt.Sprintf("run %q of table %q", k, table), v, &r); err != nil {
			return err
		}
		out = append(out, r.Run)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return runNewer(out[i], out[j]) })
	return out, err
}

// ListRuns returns up to limit runs of table, newest first.
func (b *Bolt) ListRuns(_ context.Context, table string, limit int) ([]Run, error) {
	var out []Run
	err := b.view("list runs of table "+quote(table), func(tx *bolt.Tx) error {
		runs, err := readRuns(tx.Bucket(bktRuns).Bucket([]byte(table)), table)
		if n := runLimit(limit); len(runs) > n {
			runs = runs[:n]
		}
		out = runs
		return err
	})
	return out, err
}

// GetRun returns one run.
func (b *Bolt) GetRun(_ context.Context, table, id string) (Run, error) {
	var r runRecord
	err := b.view(fmt.Sprintf("get run %q of table %q", id, table), func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bktRuns).Bucket([]byte(table))
		if bkt == nil {
			return ErrNotFound
		}
		return getJSON(bkt, id, fmt.Sprintf("run %q of table %q", id, table), &r)
	})
	return r.Run, err
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
