package checkpointtest

import (
	"maps"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// testCheckpointDelta checks C9: a delta replaces the header and changes
// exactly the files it names, and the summary counts the result.
func testCheckpointDelta(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	l, err := s.AcquireLease(ctx, "orders", "replica-a", longTTL)
	must(t, "AcquireLease", err)

	// A delta onto no checkpoint at all creates it.
	first := makeFiles(6, "one")
	hdr := fullCheckpoint("orders", 1, nil)
	hdr.Backfill = &checkpoint.Backfill{SnapshotID: 2, MetadataLocation: "s3://m/2.json", FilesDone: 6, FilesTotal: 9, RunID: "r1"}
	must(t, "delta 1", s.CommitCheckpointDelta(ctx, l, checkpoint.CheckpointDelta{Header: hdr, Set: first}))
	want := hdr
	want.Files, want.LeaseToken = first, l.Token
	got, err := s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint 1", err)
	sameJSON(t, "checkpoint after first delta", got, want)

	// Set, replace and delete in one delta; Set wins over Delete.
	files := maps.Clone(first)
	var gone, replaced, kept string
	for p := range first {
		switch {
		case gone == "":
			gone = p
		case replaced == "":
			replaced = p
		case kept == "":
			kept = p
		}
	}
	set := makeFiles(2, "two")
	set[replaced] = checkpoint.FileState{Segments: []string{"new_0", "new_1"}, Rows: 7, DeleteFingerprint: "fp"}
	set[kept] = files[kept]
	hdr2 := fullCheckpoint("orders", 2, nil)
	must(t, "delta 2", s.CommitCheckpointDelta(ctx, l, checkpoint.CheckpointDelta{Header: hdr2, Set: set,
		Delete: []string{gone, kept, "never-there"}}))
	delete(files, gone)
	maps.Copy(files, set)
	want = hdr2
	want.Files, want.LeaseToken = files, l.Token
	got, err = s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint 2", err)
	sameJSON(t, "checkpoint after second delta", got, want)
	sum, err := s.GetCheckpointSummary(ctx, "orders")
	must(t, "GetCheckpointSummary", err)
	if sum.FileCount != len(files) || sum.SnapshotID != 2 || sum.Backfill != nil {
		t.Fatalf("summary = %+v, want %d files at snapshot 2 without backfill", sum, len(files))
	}

	// A full commit after deltas replaces the whole map.
	full := fullCheckpoint("orders", 3, makeFiles(3, "three"))
	must(t, "full commit", s.CommitCheckpoint(ctx, l, full))
	full.LeaseToken = l.Token
	got, err = s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint 3", err)
	sameJSON(t, "checkpoint after full commit", got, full)
}

// testCheckpointDeltaFenced: C1 for deltas — a stale lease changes nothing.
func testCheckpointDeltaFenced(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	a, err := s.AcquireLease(ctx, "orders", "replica-a", longTTL)
	must(t, "AcquireLease a", err)
	cp := fullCheckpoint("orders", 1, makeFiles(4, "one"))
	must(t, "commit", s.CommitCheckpoint(ctx, a, cp))
	cp.LeaseToken = a.Token
	a, err = s.RenewLease(ctx, a, shortTTL)
	must(t, "RenewLease short", err)
	time.Sleep(3 * shortTTL)
	_, err = s.AcquireLease(ctx, "orders", "replica-b", longTTL)
	must(t, "AcquireLease b", err)
	var some string
	for p := range cp.Files {
		some = p
		break
	}
	err = s.CommitCheckpointDelta(ctx, a, checkpoint.CheckpointDelta{Header: fullCheckpoint("orders", 2, nil),
		Set: makeFiles(2, "stale"), Delete: []string{some}})
	wantErr(t, "stale delta", err, checkpoint.ErrFenced)
	got, err := s.GetCheckpoint(ctx, "orders")
	must(t, "GetCheckpoint", err)
	sameJSON(t, "checkpoint after fenced delta", got, cp)
	wantErr(t, "delta for another table", s.CommitCheckpointDelta(ctx, a, checkpoint.CheckpointDelta{
		Header: fullCheckpoint("users", 2, nil)}), checkpoint.ErrInvalid)
}

// testSegmentLedger checks C10: the ledger records the token of the lease
// that recorded a name; a stale lease can neither record nor forget.
func testSegmentLedger(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	a, err := s.AcquireLease(ctx, "orders", "replica-a", longTTL)
	must(t, "AcquireLease a", err)
	must(t, "record a", s.RecordSegments(ctx, a, []string{"s_0", "s_1", "s_2"}))
	a, err = s.RenewLease(ctx, a, shortTTL)
	must(t, "RenewLease short", err)
	time.Sleep(3 * shortTTL)
	b, err := s.AcquireLease(ctx, "orders", "replica-b", longTTL)
	must(t, "AcquireLease b", err)
	must(t, "record b", s.RecordSegments(ctx, b, []string{"s_1", "s_3"}))
	wantErr(t, "record by stale a", s.RecordSegments(ctx, a, []string{"s_3", "s_4"}), checkpoint.ErrFenced)
	wantErr(t, "forget by stale a", s.ForgetSegments(ctx, a, []string{"s_1"}), checkpoint.ErrFenced)
	must(t, "forget by b", s.ForgetSegments(ctx, b, []string{"s_2", "unknown"}))
	got, err := s.SegmentTokens(ctx, "orders", []string{"s_0", "s_1", "s_2", "s_3", "s_4"})
	must(t, "SegmentTokens", err)
	want := map[string]int64{"s_0": a.Token, "s_1": b.Token, "s_3": b.Token}
	if !maps.Equal(got, want) {
		t.Fatalf("SegmentTokens = %v, want %v", got, want)
	}
	wantErr(t, "record empty name", s.RecordSegments(ctx, b, []string{""}), checkpoint.ErrInvalid)
	must(t, "DeleteTable", s.DeleteTable(ctx, "orders"))
	got, err = s.SegmentTokens(ctx, "orders", []string{"s_0", "s_1"})
	must(t, "SegmentTokens after delete", err)
	if len(got) != 0 {
		t.Fatalf("ledger after DeleteTable = %v, want empty (C7)", got)
	}
}
