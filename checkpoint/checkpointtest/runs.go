package checkpointtest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

func testRuns(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	_, err := s.GetRun(ctx, "orders", "nope")
	wantErr(t, "GetRun(missing)", err, checkpoint.ErrNotFound)
	wantErr(t, "PutRun(empty id)", s.PutRun(ctx, checkpoint.Run{Table: "orders"}), checkpoint.ErrInvalid)
	wantErr(t, "PutRun(empty table)", s.PutRun(ctx, checkpoint.Run{ID: "x"}), checkpoint.ErrInvalid)
	none, err := s.ListRuns(ctx, "orders", 0)
	must(t, "ListRuns(empty)", err)
	if len(none) != 0 {
		t.Fatalf("ListRuns of a table without runs = %d, want 0", len(none))
	}

	total := checkpoint.RunHistoryLimit + 30
	all := make([]checkpoint.Run, total) // all[i] started i seconds after base
	for i := range total {
		all[i] = fullRun("orders", fmt.Sprintf("run-%03d", i), base.Add(time.Duration(i)*time.Second))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(total) {
		must(t, "PutRun", s.PutRun(ctx, all[i]))
	}
	got, err := s.ListRuns(ctx, "orders", 0)
	must(t, "ListRuns", err)
	want := newestFirst(all, checkpoint.RunHistoryLimit)
	sameJSON(t, "run history (capped, newest first)", got, want)

	few, err := s.ListRuns(ctx, "orders", 5)
	must(t, "ListRuns(5)", err)
	sameJSON(t, "ListRuns(5)", few, want[:5])
	// The oldest runs were trimmed whatever order they arrived in.
	_, err = s.GetRun(ctx, "orders", "run-000")
	wantErr(t, "GetRun(trimmed)", err, checkpoint.ErrNotFound)

	// Update in place: same (table, id) replaces, count stays at the cap.
	upd := all[total-1]
	upd.Status, upd.Error = checkpoint.RunFailed, "push segment: HTTP 500"
	must(t, "PutRun update", s.PutRun(ctx, upd))
	one, err := s.GetRun(ctx, "orders", upd.ID)
	must(t, "GetRun", err)
	sameJSON(t, "updated run", one, upd)
	got, err = s.ListRuns(ctx, "orders", 0)
	must(t, "ListRuns after update", err)
	if len(got) != checkpoint.RunHistoryLimit || got[0].Status != checkpoint.RunFailed {
		t.Fatalf("after update: %d runs, newest status %s; want %d and FAILED",
			len(got), got[0].Status, checkpoint.RunHistoryLimit)
	}
	other, err := s.ListRuns(ctx, "users", 0)
	must(t, "ListRuns(other table)", err)
	if len(other) != 0 {
		t.Fatalf("runs leaked to another table: %d", len(other))
	}
}

// newestFirst returns the n newest of runs built in ascending start order.
func newestFirst(runs []checkpoint.Run, n int) []checkpoint.Run {
	out := make([]checkpoint.Run, 0, n)
	for i := len(runs) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, runs[i])
	}
	return out
}

// testRunsTieOrder: runs started in the same microsecond order by ID,
// descending, in every store.
func testRunsTieOrder(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	for _, id := range []string{"b", "c", "a"} {
		must(t, "PutRun "+id, s.PutRun(ctx, fullRun("orders", id, base)))
	}
	must(t, "PutRun later", s.PutRun(ctx, fullRun("orders", "0-later", base.Add(time.Millisecond))))
	got, err := s.ListRuns(ctx, "orders", 0)
	must(t, "ListRuns", err)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if fmt.Sprint(ids) != "[0-later c b a]" {
		t.Fatalf("run order = %v, want [0-later c b a]", ids)
	}
}

// testLargeFileMap: a 100k-file checkpoint commits and reads back intact,
// and a following small commit leaves no stale entries.
func testLargeFileMap(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("big")))
	l, err := s.AcquireLease(ctx, "big", "r1", longTTL)
	must(t, "AcquireLease", err)
	cp := fullCheckpoint("big", 7, makeFiles(100_000, "big"))
	must(t, "Commit 100k", s.CommitCheckpoint(ctx, l, cp))
	cp.LeaseToken = l.Token
	got, err := s.GetCheckpoint(ctx, "big")
	must(t, "GetCheckpoint 100k", err)
	if len(got.Files) != 100_000 {
		t.Fatalf("read back %d files, want 100000", len(got.Files))
	}
	sameJSON(t, "100k checkpoint", got, cp)
	sum, err := s.GetCheckpointSummary(ctx, "big")
	must(t, "GetCheckpointSummary", err)
	if sum.FileCount != 100_000 {
		t.Fatalf("summary FileCount = %d, want 100000", sum.FileCount)
	}
	small := fullCheckpoint("big", 8, makeFiles(10, "small"))
	must(t, "Commit small", s.CommitCheckpoint(ctx, l, small))
	got, err = s.GetCheckpoint(ctx, "big")
	must(t, "GetCheckpoint small", err)
	small.LeaseToken = l.Token
	sameJSON(t, "small checkpoint after big", got, small)
}

// testClose: every call after Close fails with ErrClosed.
func testClose(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	must(t, "Close", s.Close())
	_, err := s.GetTable(ctx, "orders")
	wantErr(t, "GetTable after Close", err, checkpoint.ErrClosed)
	_, err = s.AcquireLease(ctx, "orders", "r1", longTTL)
	wantErr(t, "AcquireLease after Close", err, checkpoint.ErrClosed)
}
