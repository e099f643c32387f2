package checkpointtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// Table revisions, compare-and-set and change announcements: what every
// replica's schedule is built on (architecture I8).

// unrevised returns t without the store-owned revision, for comparing a
// stored record with the one written.
func unrevised(t checkpoint.Table) checkpoint.Table {
	t.Revision = 0
	return t
}

func unrevisedAll(ts []checkpoint.Table) []checkpoint.Table {
	out := make([]checkpoint.Table, len(ts))
	for i, t := range ts {
		out[i] = unrevised(t)
	}
	return out
}

// changeWait bounds how long a test waits for an announced change.
const changeWait = 10 * time.Second

// testTableRevisions (C11): every write takes a larger revision, also across
// delete and re-create; the revision a caller passes is ignored except by
// UpdateTable.
func testTableRevisions(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	orders := fullTable("orders")
	orders.Revision = 999 // ignored: the store owns it
	must(t, "CreateTable", s.CreateTable(ctx, orders))
	created, err := s.GetTable(ctx, "orders")
	must(t, "GetTable", err)
	if created.Revision <= 0 || created.Revision == 999 {
		t.Fatalf("revision after create = %d, want a store-assigned positive one", created.Revision)
	}
	must(t, "PutTable", s.PutTable(ctx, fullTable("orders")))
	put, err := s.GetTable(ctx, "orders")
	must(t, "GetTable after put", err)
	if put.Revision <= created.Revision {
		t.Fatalf("revision after put = %d, want > %d", put.Revision, created.Revision)
	}
	must(t, "CreateTable users", s.CreateTable(ctx, fullTable("users")))
	users, err := s.GetTable(ctx, "users")
	must(t, "GetTable users", err)
	if users.Revision <= put.Revision {
		t.Fatalf("revisions are store-wide: users got %d after orders' %d", users.Revision, put.Revision)
	}
	must(t, "DeleteTable", s.DeleteTable(ctx, "orders"))
	must(t, "CreateTable again", s.CreateTable(ctx, fullTable("orders")))
	again, err := s.GetTable(ctx, "orders")
	must(t, "GetTable re-created", err)
	if again.Revision <= users.Revision+1 {
		t.Fatalf("re-created table has revision %d, want > %d (the delete took %d)", again.Revision,
			users.Revision+1, users.Revision+1)
	}
	list, err := s.ListTables(ctx)
	must(t, "ListTables", err)
	if len(list) != 2 || list[0].Revision != again.Revision || list[1].Revision != users.Revision {
		t.Fatalf("ListTables revisions = %+v, want orders %d and users %d", list, again.Revision, users.Revision)
	}
}

// testTableCompareAndSet (C11): UpdateTable writes only on the revision it read;
// two writers racing on one table never lose an edit.
func testTableCompareAndSet(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.UpdateTable(ctx, fullTable("nope"))
	wantErr(t, "UpdateTable(missing)", err, checkpoint.ErrNotFound)
	_, err = s.UpdateTable(ctx, checkpoint.Table{})
	wantErr(t, "UpdateTable(empty name)", err, checkpoint.ErrInvalid)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	base, err := s.GetTable(ctx, "orders")
	must(t, "GetTable", err)

	paused := base
	paused.TaskConfig = map[string]string{"schedule.paused": "0 */5 * * * ?"}
	stored, err := s.UpdateTable(ctx, paused)
	must(t, "UpdateTable", err)
	if stored.Revision <= base.Revision || stored.TaskConfig["schedule.paused"] == "" {
		t.Fatalf("UpdateTable returned %+v, want the new record with a revision above %d", stored, base.Revision)
	}
	got, err := s.GetTable(ctx, "orders")
	must(t, "GetTable after update", err)
	sameJSON(t, "updated table", got, stored)

	edited := base // based on the old revision: must lose
	edited.Source = "other"
	_, err = s.UpdateTable(ctx, edited)
	wantErr(t, "UpdateTable(stale)", err, checkpoint.ErrStale)
	if err == nil || !containsAll(err.Error(), "orders", strconv.FormatInt(stored.Revision, 10)) {
		t.Fatalf("stale error %v must name the table and the stored revision %d", err, stored.Revision)
	}
	got, err = s.GetTable(ctx, "orders")
	must(t, "GetTable after stale update", err)
	sameJSON(t, "table after a lost compare-and-set", got, stored)

	// Two writers, each adding to a counter in the task config through
	// UpdateTableFunc: every increment survives.
	const writers, each = 2, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := checkpoint.UpdateTableFunc(ctx, s, "orders", 100, func(tb *checkpoint.Table) error {
					n, _ := strconv.Atoi(tb.TaskConfig["n"])
					tb.TaskConfig["n"] = strconv.Itoa(n + 1)
					tb.TaskConfig[fmt.Sprintf("w%d", w)] = "seen"
					return nil
				})
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, "UpdateTableFunc", err)
	}
	got, err = s.GetTable(ctx, "orders")
	must(t, "GetTable after racing writers", err)
	if got.TaskConfig["n"] != strconv.Itoa(writers*each) || got.Revision != stored.Revision+writers*each {
		t.Fatalf("after %d racing increments: n=%s revision %d, want n=%d revision %d", writers*each,
			got.TaskConfig["n"], got.Revision, writers*each, stored.Revision+writers*each)
	}

	// fn's error writes nothing.
	boom := errors.New("refused by fn")
	_, err = checkpoint.UpdateTableFunc(ctx, s, "orders", 3, func(*checkpoint.Table) error { return boom })
	wantErr(t, "UpdateTableFunc(fn fails)", err, boom)
	after, err := s.GetTable(ctx, "orders")
	must(t, "GetTable after refused fn", err)
	if after.Revision != got.Revision {
		t.Fatalf("a refused edit moved the revision from %d to %d", got.Revision, after.Revision)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// testTableSnapshot (C12): the snapshot's revision is the last table write's,
// and the list reflects every write up to it.
func testTableSnapshot(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	if rev, err := s.TableRevision(ctx); err != nil || rev != 0 {
		t.Fatalf("TableRevision of an empty store = %d (%v), want 0", rev, err)
	}
	empty, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables(empty)", err)
	if len(empty.Tables) != 0 {
		t.Fatalf("empty store snapshot holds %d tables", len(empty.Tables))
	}
	must(t, "CreateTable b", s.CreateTable(ctx, fullTable("b")))
	must(t, "CreateTable a", s.CreateTable(ctx, fullTable("a")))
	must(t, "CreateTable gone", s.CreateTable(ctx, fullTable("gone")))
	must(t, "DeleteTable gone", s.DeleteTable(ctx, "gone"))
	snap, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables", err)
	if snap.Revision != empty.Revision+4 {
		t.Fatalf("snapshot revision %d after 4 writes from %d, want %d", snap.Revision, empty.Revision, empty.Revision+4)
	}
	if len(snap.Tables) != 2 || snap.Tables[0].Name != "a" || snap.Tables[1].Name != "b" {
		t.Fatalf("snapshot tables = %+v, want a, b", snap.Tables)
	}
	sameJSON(t, "snapshot table", unrevised(snap.Tables[0]), fullTable("a"))
	wantErr(t, "DeleteTable(missing)", s.DeleteTable(ctx, "gone"), checkpoint.ErrNotFound)
	again, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables after no-op delete", err)
	if again.Revision != snap.Revision {
		t.Fatalf("deleting a missing table moved the revision from %d to %d", snap.Revision, again.Revision)
	}
	rev, err := s.TableRevision(ctx)
	must(t, "TableRevision", err)
	if rev != snap.Revision {
		t.Fatalf("TableRevision = %d, want the snapshot's %d", rev, snap.Revision)
	}
	upd, err := s.UpdateTable(ctx, snap.Tables[0])
	must(t, "UpdateTable", err)
	if rev, err = s.TableRevision(ctx); err != nil || rev != upd.Revision {
		t.Fatalf("TableRevision after an update = %d (%v), want the update's %d", rev, err, upd.Revision)
	}
}

// testWatchTables (C12): every write is announced once, in revision order, to
// every watcher, with the record as written (nil for a delete); a watch
// from an older revision replays what came after it.
func testWatchTables(t *testing.T, s checkpoint.Store) {
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	snap, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables", err)
	first, err := s.WatchTables(ctx, snap.Revision)
	must(t, "WatchTables", err)
	second, err := s.WatchTables(ctx, snap.Revision)
	must(t, "WatchTables second", err)

	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	must(t, "PutTable", s.PutTable(ctx, fullTable("users")))
	cur, err := s.GetTable(ctx, "orders")
	must(t, "GetTable", err)
	cur.TaskConfig["enabled"] = "false"
	updated, err := s.UpdateTable(ctx, cur)
	must(t, "UpdateTable", err)
	must(t, "DeleteTable", s.DeleteTable(ctx, "users"))

	want := []string{"orders", "users", "orders", "users (deleted)"}
	for _, ch := range []<-chan checkpoint.TableChange{first, second} {
		got := receiveChanges(t, ch, len(want))
		for i, c := range got {
			if c.Revision != snap.Revision+int64(i)+1 || describe(c) != want[i] {
				t.Fatalf("change %d = revision %d %s, want revision %d %s", i, c.Revision, describe(c),
					snap.Revision+int64(i)+1, want[i])
			}
		}
		sameJSON(t, "announced update", *got[2].Table, updated)
		sameJSON(t, "announced create", unrevised(*got[0].Table), fullTable("orders"))
	}

	replay, err := s.WatchTables(ctx, snap.Revision+2)
	must(t, "WatchTables from the middle", err)
	got := receiveChanges(t, replay, 2)
	if got[0].Revision != snap.Revision+3 || describe(got[1]) != "users (deleted)" {
		t.Fatalf("replay from %d = %s then %s", snap.Revision+2, describe(got[0]), describe(got[1]))
	}

	cancel()
	for range first { // drains, then closes once ctx has ended
	}
}

// testWatchTablesLostBacklog (C12): a reader that resumes from a revision the
// store no longer holds changes for is told (the channel closes, or the
// first change is not the next revision); it never silently skips. The
// test writes until the store's bounded backlog has dropped the first
// change, then checks that a watch from a fresh snapshot works again.
func testWatchTablesLostBacklog(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	snap, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables", err)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	tbl := fullTable("orders")
	for written := 0; ; written += 100 {
		if written > 5000 {
			t.Fatalf("after %d writes a watch from revision %d still starts there: no bounded backlog", written, snap.Revision)
		}
		for i := range 100 {
			tbl.Source = fmt.Sprintf("source_%d", written+i)
			must(t, "PutTable", s.PutTable(ctx, tbl))
		}
		if !watchStartsAt(t, s, snap.Revision) {
			break
		}
	}
	now, err := s.SnapshotTables(ctx)
	must(t, "SnapshotTables after the flood", err)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fresh, err := s.WatchTables(wctx, now.Revision)
	must(t, "WatchTables from the snapshot", err)
	must(t, "DeleteTable", s.DeleteTable(ctx, "orders"))
	if c := receiveChanges(t, fresh, 1)[0]; c.Revision != now.Revision+1 || c.Table != nil {
		t.Fatalf("after re-reading the snapshot: change %d %s, want %d orders (deleted)", c.Revision, describe(c), now.Revision+1)
	}
}

// watchStartsAt reports whether a watch from revision after delivers
// after+1 first; false when it shows the gap (closes, or starts later).
func watchStartsAt(t *testing.T, s checkpoint.Store, after int64) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	ch, err := s.WatchTables(ctx, after)
	must(t, "WatchTables", err)
	select {
	case c, ok := <-ch:
		return ok && c.Revision == after+1
	case <-time.After(changeWait):
		t.Fatalf("a watch from revision %d delivered nothing and did not close", after)
	}
	return false
}

func receiveChanges(t *testing.T, ch <-chan checkpoint.TableChange, n int) []checkpoint.TableChange {
	t.Helper()
	var out []checkpoint.TableChange
	timeout := time.After(changeWait)
	for len(out) < n {
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatalf("change channel closed after %d of %d changes", len(out), n)
			}
			out = append(out, c)
		case <-timeout:
			t.Fatalf("got %d of %d changes within %s", len(out), n, changeWait)
		}
	}
	return out
}

func describe(c checkpoint.TableChange) string {
	if c.Table == nil {
		return c.Name + " (deleted)"
	}
	if c.Table.Name != c.Name || c.Table.Revision != c.Revision {
		return fmt.Sprintf("%s (record %s revision %d)", c.Name, c.Table.Name, c.Table.Revision)
	}
	return c.Name
}
