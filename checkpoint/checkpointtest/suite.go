package checkpointtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// NewStoreFunc returns a fresh, empty store for one subtest. It should
// register its own cleanup (closing twice must be harmless).
type NewStoreFunc func(t *testing.T) checkpoint.Store

// Short lease TTLs used to make leases expire; long ones that never do
// within a test.
const (
	shortTTL = 50 * time.Millisecond
	longTTL  = time.Minute
)

// Run runs the whole conformance suite against stores from newStore.
func Run(t *testing.T, newStore NewStoreFunc) {
	cases := []struct {
		name string
		fn   func(*testing.T, checkpoint.Store)
	}{
		{"Connections", testConnections},
		{"ConnectionReferences", testConnectionReferences},
		{"ConnectionDeleteRace", testConnectionDeleteRace},
		{"Tables", testTables},
		{"DeleteTable", testDeleteTable},
		{"Checkpoint", testCheckpoint},
		{"CheckpointInvalid", testCheckpointInvalid},
		{"FencedCommitKeepsOldCheckpoint", testFencedCommit},
		{"CheckpointDelta", testCheckpointDelta},
		{"CheckpointDeltaFenced", testCheckpointDeltaFenced},
		{"SegmentLedger", testSegmentLedger},
		{"FileIndex", testFileIndex},
		{"Lease", testLease},
		{"LeaseInvalid", testLeaseInvalid},
		{"TokenMonotonic", testTokenMonotonic},
		{"ConcurrentAcquire", testConcurrentAcquire},
		{"Runs", testRuns},
		{"RunsTieOrder", testRunsTieOrder},
		{"MaxRunLogLines", testMaxRunLogLines},
		{"Observation", testObservation},
		{"TableOverviews", testTableOverviews},
		{"TableOverviewsNewestRun", testTableOverviewsNewestRun},
		{"LargeFileMap", testLargeFileMap},
		{"TableRevisions", testTableRevisions},
		{"TableCompareAndSet", testTableCompareAndSet},
		{"TableSnapshot", testTableSnapshot},
		{"WatchTables", testWatchTables},
		{"WatchTablesLostBacklog", testWatchTablesLostBacklog},
		{"Close", testClose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStore(t)) })
	}
}

func ctxT(t *testing.T) context.Context { return t.Context() }

// wantErr fails unless errors.Is(err, want).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error = %v, want %v", what, err, want)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func testConnections(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.GetConnection(ctx, "nope")
	wantErr(t, "GetConnection(missing)", err, checkpoint.ErrNotFound)
	wantErr(t, "DeleteConnection(missing)", s.DeleteConnection(ctx, "nope"), checkpoint.ErrNotFound)
	wantErr(t, "PutConnection(empty name)", s.PutConnection(ctx, checkpoint.Connection{}), checkpoint.ErrInvalid)

	b, a := fullConnection("b-conn"), fullConnection("a-conn")
	must(t, "PutConnection b", s.PutConnection(ctx, b))
	must(t, "PutConnection a", s.PutConnection(ctx, a))
	got, err := s.GetConnection(ctx, "b-conn")
	must(t, "GetConnection", err)
	sameJSON(t, "connection", got, b)

	b.Props["uri"] = "http://127.0.0.1:9999"
	delete(b.Secrets, "token")
	must(t, "PutConnection replace", s.PutConnection(ctx, b))
	list, err := s.ListConnections(ctx)
	must(t, "ListConnections", err)
	sameJSON(t, "connection list", list, []checkpoint.Connection{a, b})

	must(t, "DeleteConnection", s.DeleteConnection(ctx, "a-conn"))
	_, err = s.GetConnection(ctx, "a-conn")
	wantErr(t, "GetConnection(deleted)", err, checkpoint.ErrNotFound)
	list, err = s.ListConnections(ctx)
	must(t, "ListConnections after delete", err)
	sameJSON(t, "connection list after delete", list, []checkpoint.Connection{b})
}

func testTables(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.GetTable(ctx, "nope")
	wantErr(t, "GetTable(missing)", err, checkpoint.ErrNotFound)
	wantErr(t, "CreateTable(empty name)", s.CreateTable(ctx, checkpoint.Table{}), checkpoint.ErrInvalid)
	wantErr(t, "PutTable(control char)", s.PutTable(ctx, checkpoint.Table{Name: "a\nb"}), checkpoint.ErrInvalid)

	orders, users := fullTable("orders"), fullTable("users")
	must(t, "CreateTable orders", s.CreateTable(ctx, orders))
	changed := orders
	changed.Source = "other"
	wantErr(t, "CreateTable(dup)", s.CreateTable(ctx, changed), checkpoint.ErrConflict)
	got, err := s.GetTable(ctx, "orders")
	must(t, "GetTable", err)
	sameJSON(t, "table after refused create", unrevised(got), orders)

	must(t, "PutTable users (create)", s.PutTable(ctx, users))
	must(t, "PutTable orders (replace)", s.PutTable(ctx, changed))
	got, err = s.GetTable(ctx, "orders")
	must(t, "GetTable replaced", err)
	sameJSON(t, "replaced table", unrevised(got), changed)

	list, err := s.ListTables(ctx)
	must(t, "ListTables", err)
	sameJSON(t, "table list", unrevisedAll(list), []checkpoint.Table{changed, users})
}

// testDeleteTable: DeleteTable drops checkpoint, files, runs and lease (C7);
// the fencing counter survives, so a re-created table's first token is
// larger than any before (C3).
func testDeleteTable(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	wantErr(t, "DeleteTable(missing)", s.DeleteTable(ctx, "nope"), checkpoint.ErrNotFound)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	must(t, "CreateTable keep", s.CreateTable(ctx, fullTable("keep")))
	lease, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease", err)
	keepLease, err := s.AcquireLease(ctx, "keep", "r1", longTTL)
	must(t, "AcquireLease keep", err)
	must(t, "Commit", s.CommitCheckpoint(ctx, lease, fullCheckpoint("orders", 10, makeFiles(5, "a"))))
	must(t, "Commit keep", s.CommitCheckpoint(ctx, keepLease, fullCheckpoint("keep", 10, makeFiles(3, "k"))))
	must(t, "PutRun", s.PutRun(ctx, fullRun("orders", "run-1", base)))
	must(t, "PutRun keep", s.PutRun(ctx, fullRun("keep", "run-1", base)))

	must(t, "DeleteTable", s.DeleteTable(ctx, "orders"))
	_, err = s.GetTable(ctx, "orders")
	wantErr(t, "GetTable after delete", err, checkpoint.ErrNotFound)
	_, err = s.GetCheckpoint(ctx, "orders")
	wantErr(t, "GetCheckpoint after delete", err, checkpoint.ErrNotFound)
	_, err = s.GetCheckpointSummary(ctx, "orders")
	wantErr(t, "GetCheckpointSummary after delete", err, checkpoint.ErrNotFound)
	_, err = s.GetRun(ctx, "orders", "run-1")
	wantErr(t, "GetRun after delete", err, checkpoint.ErrNotFound)
	_, err = s.GetLease(ctx, "orders")
	wantErr(t, "GetLease after delete", err, checkpoint.ErrNotFound)
	runs, err := s.ListRuns(ctx, "orders", 0)
	must(t, "ListRuns after delete", err)
	if len(runs) != 0 {
		t.Fatalf("ListRuns after delete = %d runs, want 0", len(runs))
	}
	wantErr(t, "Commit under the dropped lease", s.CommitCheckpoint(ctx, lease,
		fullCheckpoint("orders", 11, nil)), checkpoint.ErrFenced)
	_, err = s.GetCheckpoint(ctx, "orders")
	wantErr(t, "GetCheckpoint after fenced commit on deleted table", err, checkpoint.ErrNotFound)

	tables, err := s.ListTables(ctx)
	must(t, "ListTables", err)
	sameJSON(t, "tables after delete", unrevisedAll(tables), []checkpoint.Table{fullTable("keep")})
	leases, err := s.ListLeases(ctx)
	must(t, "ListLeases", err)
	if len(leases) != 1 || leases[0].Table != "keep" {
		t.Fatalf("ListLeases after delete = %+v, want only keep's", leases)
	}
	cp, err := s.GetCheckpoint(ctx, "keep")
	must(t, "GetCheckpoint keep", err)
	if len(cp.Files) != 3 {
		t.Fatalf("other table's checkpoint has %d files after delete, want 3", len(cp.Files))
	}
	if _, err := s.GetRun(ctx, "keep", "run-1"); err != nil {
		t.Fatalf("other table's run gone after delete: %v", err)
	}

	must(t, "CreateTable again", s.CreateTable(ctx, fullTable("orders")))
	again, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease again", err)
	if again.Token <= lease.Token {
		t.Fatalf("token after re-create = %d, want > %d (C3)", again.Token, lease.Token)
	}
	_, err = s.GetCheckpoint(ctx, "orders")
	wantErr(t, "GetCheckpoint of re-created table", err, checkpoint.ErrNotFound)
}

// testCheckpoint: a commit replaces the header and the whole file map
// (C4); the store stamps the lease token and a zero commit time.
func testCheckpoint(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.GetCheckpoint(ctx, "orders")
	wantErr(t, "GetCheckpoint(missing)", err, checkpoint.ErrNotFound)
	_, err = s.GetCheckpointSummary(ctx, "orders")
	wantErr(t, "GetCheckpointSummary(missing)", err, checkpoint.ErrNotFound)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	lease, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease", err)

	cp := fullCheckpoint("orders", 100, makeFiles(50, "a"))
	cp.LeaseToken = 999999 // the store stamps the lease's token
	must(t, "Commit", s.CommitCheckpoint(ctx, lease, cp))
	cp.LeaseToken = lease.Token
	got, err := s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint", err)
	sameJSON(t, "checkpoint", got, cp)
	sum, err := s.GetCheckpointSummary(ctx, "orders")
	must(t, "GetCheckpointSummary", err)
	sameJSON(t, "checkpoint summary", sum, cp.Summary())
	if sum.FileCount != 50 {
		t.Fatalf("summary FileCount = %d, want 50", sum.FileCount)
	}

	// A smaller map replaces the whole map: no stale files survive (C4).
	next := fullCheckpoint("orders", 101, makeFiles(7, "b"))
	next.CommittedAt = time.Time{} // the store fills a zero commit time
	before := time.Now().Add(-time.Second)
	must(t, "Commit smaller", s.CommitCheckpoint(ctx, lease, next))
	got, err = s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint smaller", err)
	if got.CommittedAt.Before(before) {
		t.Fatalf("zero CommittedAt stamped as %v, want about now", got.CommittedAt)
	}
	next.CommittedAt, next.LeaseToken = got.CommittedAt, lease.Token
	sameJSON(t, "smaller checkpoint", got, next)

	// An empty map is a valid checkpoint (e.g. the source table is empty).
	empty := fullCheckpoint("orders", 102, nil)
	must(t, "Commit empty", s.CommitCheckpoint(ctx, lease, empty))
	got, err = s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint empty", err)
	if got.Files == nil || len(got.Files) != 0 || got.SnapshotID != 102 {
		t.Fatalf("empty checkpoint read back as snapshot %d with files %v (nil=%v)",
			got.SnapshotID, len(got.Files), got.Files == nil)
	}
}

func testCheckpointInvalid(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	lease, err := s.AcquireLease(ctx, "orders", "r1", longTTL)
	must(t, "AcquireLease", err)
	wantErr(t, "Commit for another table", s.CommitCheckpoint(ctx, lease,
		fullCheckpoint("users", 1, nil)), checkpoint.ErrInvalid)
	bad := fullCheckpoint("orders", 1, map[string]checkpoint.FileState{"": {Rows: 1}})
	wantErr(t, "Commit with empty file path", s.CommitCheckpoint(ctx, lease, bad), checkpoint.ErrInvalid)
	forged := lease
	forged.Token++
	wantErr(t, "Commit under a forged token", s.CommitCheckpoint(ctx, forged,
		fullCheckpoint("orders", 1, nil)), checkpoint.ErrFenced)
	forged = lease
	forged.Owner = "someone-else"
	wantErr(t, "Commit under another owner", s.CommitCheckpoint(ctx, forged,
		fullCheckpoint("orders", 1, nil)), checkpoint.ErrFenced)
	_, err = s.GetCheckpoint(ctx, "orders")
	wantErr(t, "GetCheckpoint after refused commits", err, checkpoint.ErrNotFound)
}

// testFencedCommit: a run whose lease expired and was taken over cannot
// commit, and the checkpoint it would have overwritten is intact
// (C1, I1/I2/I4).
func testFencedCommit(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	a, err := s.AcquireLease(ctx, "orders", "replica-a", longTTL)
	must(t, "AcquireLease a", err)
	cp1 := fullCheckpoint("orders", 1, makeFiles(20, "one"))
	must(t, "Commit cp1", s.CommitCheckpoint(ctx, a, cp1))
	cp1.LeaseToken = a.Token

	// Only now let a's lease run out: a slow commit must not expire it.
	a, err = s.RenewLease(ctx, a, shortTTL)
	must(t, "RenewLease a short", err)
	time.Sleep(3 * shortTTL)
	b, err := s.AcquireLease(ctx, "orders", "replica-b", longTTL)
	must(t, "AcquireLease b after expiry", err)
	if b.Token <= a.Token {
		t.Fatalf("token of b = %d, want > %d", b.Token, a.Token)
	}
	wantErr(t, "Commit under stale token", s.CommitCheckpoint(ctx, a,
		fullCheckpoint("orders", 2, makeFiles(5, "two"))), checkpoint.ErrFenced)
	got, err := s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint", err)
	sameJSON(t, "checkpoint after fenced commit", got, cp1)

	_, err = s.RenewLease(ctx, a, longTTL)
	wantErr(t, "RenewLease stale", err, checkpoint.ErrFenced)
	wantErr(t, "ReleaseLease stale", s.ReleaseLease(ctx, a), checkpoint.ErrFenced)
	cur, err := s.GetLease(ctx, "orders")
	must(t, "GetLease", err)
	if cur.Owner != "replica-b" || cur.Token != b.Token {
		t.Fatalf("lease after stale release = %+v, want b's (token %d)", cur, b.Token)
	}
	cp3 := fullCheckpoint("orders", 3, makeFiles(4, "three"))
	must(t, "Commit cp3 by b", s.CommitCheckpoint(ctx, b, cp3))
	cp3.LeaseToken = b.Token
	got, err = s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint cp3", err)
	sameJSON(t, "checkpoint by b", got, cp3)
}
