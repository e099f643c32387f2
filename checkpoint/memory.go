package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"
)

// Memory is an in-process Store for fast unit tests. It has the same
// semantics as Redis and Bolt (the checkpointtest suite proves it) but
// keeps nothing across restarts.
type Memory struct {
	mu      sync.Mutex
	conns   map[string]Connection
	tables  map[string]Table
	cps     map[string]Checkpoint
	runs    map[string]map[string]Run
	leases  map[string]Lease
	fences  map[string]int64
	ledger  map[string]map[string]int64 // table → segment → token
	obs     map[string]Observation
	work    *memoryWork
	closed  bool
	nowFunc func() time.Time

	// tableRev is the last table revision; changes announces each one.
	tableRev int64
	changes  *changeLog
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{
		conns:   map[string]Connection{},
		tables:  map[string]Table{},
		cps:     map[string]Checkpoint{},
		runs:    map[string]map[string]Run{},
		leases:  map[string]Lease{},
		fences:  map[string]int64{},
		ledger:  map[string]map[string]int64{},
		obs:     map[string]Observation{},
		work:    newMemoryWork(),
		changes: newChangeLog(0),
		nowFunc: time.Now,
	}
}

func (m *Memory) lock(op string) (func(), error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return m.mu.Unlock, nil
}

// PutConnection creates or replaces a connection.
func (m *Memory) PutConnection(_ context.Context, c Connection) error {
	if err := checkName("connection", c.Name); err != nil {
		return fmt.Errorf("put connection: %w", err)
	}
	unlock, err := m.lock("put connection")
	if err != nil {
		return err
	}
	defer unlock()
	m.conns[c.Name] = cloneConnection(c)
	return nil
}

// GetConnection returns the named connection.
func (m *Memory) GetConnection(_ context.Context, name string) (Connection, error) {
	unlock, err := m.lock("get connection")
	if err != nil {
		return Connection{}, err
	}
	defer unlock()
	c, ok := m.conns[name]
	if !ok {
		return Connection{}, fmt.Errorf("get connection %q: %w", name, ErrNotFound)
	}
	return cloneConnection(c), nil
}

// ListConnections returns every connection sorted by name.
func (m *Memory) ListConnections(_ context.Context) ([]Connection, error) {
	unlock, err := m.lock("list connections")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]Connection, 0, len(m.conns))
	for _, name := range slices.Sorted(maps.Keys(m.conns)) {
		out = append(out, cloneConnection(m.conns[name]))
	}
	return out, nil
}

// DeleteConnection removes the named connection.
func (m *Memory) DeleteConnection(_ context.Context, name string) error {
	unlock, err := m.lock("delete connection")
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := m.conns[name]; !ok {
		return fmt.Errorf("delete connection %q: %w", name, ErrNotFound)
	}
	var users []string
	for _, t := range m.tables {
		if t.Connection == name {
			users = append(users, t.Name)
		}
	}
	if len(users) > 0 {
		return inUseErr(name, users)
	}
	delete(m.conns, name)
	return nil
}

// CreateBoundTable adds a table on a stored connection (C13).
func (m *Memory) CreateBoundTable(_ context.Context, t Table) error { return m.createTable(t, true) }

// CreateTable adds a table; ErrConflict if it exists.
func (m *Memory) CreateTable(_ context.Context, t Table) error { return m.createTable(t, false) }

// createTable adds a table, bound: only while its connection is stored.
func (m *Memory) createTable(t Table, bound bool) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	unlock, err := m.lock("create table")
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := m.conns[t.Connection]; bound && !ok {
		return noConnectionErr(t)
	}
	if _, ok := m.tables[t.Name]; ok {
		return fmt.Errorf("create table %q: %w", t.Name, ErrConflict)
	}
	m.writeTableLocked(t)
	return nil
}

// PutTable creates or replaces a table.
func (m *Memory) PutTable(_ context.Context, t Table) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	unlock, err := m.lock("put table")
	if err != nil {
		return err
	}
	defer unlock()
	m.writeTableLocked(t)
	return nil
}

// GetTable returns the named table.
func (m *Memory) GetTable(_ context.Context, name string) (Table, error) {
	unlock, err := m.lock("get table")
	if err != nil {
		return Table{}, err
	}
	defer unlock()
	t, ok := m.tables[name]
	if !ok {
		return Table{}, fmt.Errorf("get table %q: %w", name, ErrNotFound)
	}
	return cloneTable(t), nil
}

// ListTables returns every table sorted by name.
func (m *Memory) ListTables(_ context.Context) ([]Table, error) {
	unlock, err := m.lock("list tables")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]Table, 0, len(m.tables))
	for _, name := range slices.Sorted(maps.Keys(m.tables)) {
		out = append(out, cloneTable(m.tables[name]))
	}
	return out, nil
}

// DeleteTable removes a table with its checkpoint, runs and lease. The
// fencing counter stays (invariant C3).
func (m *Memory) DeleteTable(_ context.Context, name string) error {
	unlock, err := m.lock("delete table")
	if err != nil {
		return err
	}
	defer unlock()
	_, ok := m.tables[name]
	delete(m.tables, name)
	delete(m.cps, name)
	delete(m.runs, name)
	delete(m.leases, name)
	delete(m.ledger, name)
	delete(m.obs, name)
	if !ok {
		return fmt.Errorf("delete table %q: %w", name, ErrNotFound)
	}
	m.tableRev++
	m.changes.append(deletedTable(name, m.tableRev))
	return nil
}

// GetCheckpoint returns the table's checkpoint with its file map.
func (m *Memory) GetCheckpoint(_ context.Context, table string) (Checkpoint, error) {
	unlock, err := m.lock("get checkpoint")
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	cp, ok := m.cps[table]
	if !ok {
		return Checkpoint{}, fmt.Errorf("get checkpoint of table %q: %w", table, ErrNotFound)
	}
	return cloneCheckpoint(cp), nil
}

// GetCheckpointSummary returns the table's checkpoint without its files.
func (m *Memory) GetCheckpointSummary(_ context.Context, table string) (CheckpointSummary, error) {
	unlock, err := m.lock("get checkpoint summary")
	if err != nil {
		return CheckpointSummary{}, err
	}
	defer unlock()
	cp, ok := m.cps[table]
	if !ok {
		return CheckpointSummary{}, fmt.Errorf("get checkpoint summary of table %q: %w", table, ErrNotFound)
	}
	return cp.Summary(), nil
}

// CommitCheckpoint replaces the table's checkpoint if lease is current.
func (m *Memory) CommitCheckpoint(_ context.Context, lease Lease, cp Checkpoint) error {
	if err := checkCommit(lease, cp); err != nil {
		return fmt.Errorf("commit checkpoint: %w", err)
	}
	unlock, err := m.lock("commit checkpoint")
	if err != nil {
		return err
	}
	defer unlock()
	if err := m.checkCurrent(lease); err != nil {
		return fmt.Errorf("commit checkpoint of table %q: %w", lease.Table, err)
	}
	m.cps[cp.Table] = stampCheckpoint(cloneCheckpoint(cp), lease, m.nowFunc())
	return nil
}

// PutRun inserts or updates a run and trims the history.
func (m *Memory) PutRun(_ context.Context, r Run) error {
	if err := checkRun(r); err != nil {
		return fmt.Errorf("put run: %w", err)
	}
	unlock, err := m.lock("put run")
	if err != nil {
		return err
	}
	defer unlock()
	runs := m.runs[r.Table]
	if runs == nil {
		runs = map[string]Run{}
		m.runs[r.Table] = runs
	}
	runs[r.ID] = trimRunLog(cloneRun(r))
	if len(runs) > RunHistoryLimit {
		for _, old := range sortRuns(runs)[RunHistoryLimit:] {
			delete(runs, old.ID)
		}
	}
	return nil
}

func sortRuns(runs map[string]Run) []Run {
	out := slices.Collect(maps.Values(runs))
	sort.Slice(out, func(i, j int) bool { return runNewer(out[i], out[j]) })
	return out
}

// ListRuns returns up to limit runs of table, newest first.
func (m *Memory) ListRuns(_ context.Context, table string, limit int) ([]Run, error) {
	unlock, err := m.lock("list runs")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := sortRuns(m.runs[table])
	if n := runLimit(limit); len(out) > n {
		out = out[:n]
	}
	for i := range out {
		out[i] = cloneRun(out[i])
	}
	return out, nil
}

// GetRun returns one run.
func (m *Memory) GetRun(_ context.Context, table, id string) (Run, error) {
	unlock, err := m.lock("get run")
	if err != nil {
		return Run{}, err
	}
	defer unlock()
	r, ok := m.runs[table][id]
	if !ok {
		return Run{}, fmt.Errorf("get run %q of table %q: %w", id, table, ErrNotFound)
	}
	return cloneRun(r), nil
}

// AcquireLease takes or extends the table's lease for owner.
func (m *Memory) AcquireLease(_ context.Context, table, owner string, ttl time.Duration) (Lease, error) {
	if err := checkAcquire(table, owner, ttl); err != nil {
		return Lease{}, fmt.Errorf("acquire lease: %w", err)
	}
	unlock, err := m.lock("acquire lease")
	if err != nil {
		return Lease{}, err
	}
	defer unlock()
	if _, ok := m.tables[table]; !ok {
		return Lease{}, fmt.Errorf("acquire lease on table %q: %w", table, ErrNotFound)
	}
	now := m.nowFunc()
	cur, held := m.liveLease(table, now)
	if held && cur.Owner != owner {
		return Lease{}, fmt.Errorf("acquire lease on table %q: %w (owner %q)", table, ErrLeaseHeld, cur.Owner)
	}
	if !held {
		m.fences[table]++
		cur = Lease{Table: table, Owner: owner, Token: m.fences[table]}
	}
	cur.ExpiresAt = now.Add(ttl).UTC()
	m.leases[table] = cur
	return cur, nil
}

// liveLease returns the table's lease if it has not expired.
func (m *Memory) liveLease(table string, now time.Time) (Lease, bool) {
	l, ok := m.leases[table]
	if !ok || !now.Before(l.ExpiresAt) {
		return Lease{}, false
	}
	return l, true
}

// checkCurrent returns ErrFenced unless lease is the table's live lease.
func (m *Memory) checkCurrent(lease Lease) error {
	cur, ok := m.liveLease(lease.Table, m.nowFunc())
	if !ok || cur.Token != lease.Token || cur.Owner != lease.Owner {
		return fmt.Errorf("%w (token %d)", ErrFenced, lease.Token)
	}
	return nil
}

// RenewLease extends a lease that is still current.
func (m *Memory) RenewLease(_ context.Context, lease Lease, ttl time.Duration) (Lease, error) {
	if err := checkTTL(ttl); err != nil {
		return Lease{}, fmt.Errorf("renew lease: %w", err)
	}
	unlock, err := m.lock("renew lease")
	if err != nil {
		return Lease{}, err
	}
	defer unlock()
	if err := m.checkCurrent(lease); err != nil {
		return Lease{}, fmt.Errorf("renew lease on table %q: %w", lease.Table, err)
	}
	cur := m.leases[lease.Table]
	cur.ExpiresAt = m.nowFunc().Add(ttl).UTC()
	m.leases[lease.Table] = cur
	return cur, nil
}

// ReleaseLease gives up a lease that is still current.
func (m *Memory) ReleaseLease(_ context.Context, lease Lease) error {
	unlock, err := m.lock("release lease")
	if err != nil {
		return err
	}
	defer unlock()
	if err := m.checkCurrent(lease); err != nil {
		return fmt.Errorf("release lease on table %q: %w", lease.Table, err)
	}
	delete(m.leases, lease.Table)
	return nil
}

// GetLease returns the table's unexpired lease.
func (m *Memory) GetLease(_ context.Context, table string) (Lease, error) {
	unlock, err := m.lock("get lease")
	if err != nil {
		return Lease{}, err
	}
	defer unlock()
	l, ok := m.liveLease(table, m.nowFunc())
	if !ok {
		return Lease{}, fmt.Errorf("get lease on table %q: %w", table, ErrNotFound)
	}
	return l, nil
}

// ListLeases returns every unexpired lease sorted by table.
func (m *Memory) ListLeases(_ context.Context) ([]Lease, error) {
	unlock, err := m.lock("list leases")
	if err != nil {
		return nil, err
	}
	defer unlock()
	now := m.nowFunc()
	var out []Lease
	for _, table := range slices.Sorted(maps.Keys(m.leases)) {
		if l, ok := m.liveLease(table, now); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// Close makes every later call fail with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.changes.close()
	return nil
}

func cloneConnection(c Connection) Connection {
	c.Props = maps.Clone(c.Props)
	c.Secrets = maps.Clone(c.Secrets)
	return c
}

func cloneCheckpoint(cp Checkpoint) Checkpoint {
	files := make(map[string]FileState, len(cp.Files))
	for k, v := range cp.Files {
		v.Segments = slices.Clone(v.Segments)
		files[k] = v
	}
	cp.Files = files
	cp.SnapshotFileCounts = maps.Clone(cp.SnapshotFileCounts)
	if cp.Backfill != nil {
		b := *cp.Backfill
		cp.Backfill = &b
	}
	return cp
}
