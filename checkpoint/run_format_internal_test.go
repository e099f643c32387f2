package checkpoint

import (
	"strings"
	"testing"
)

// A run record written before runs said what they did still reads: no
// kind (its counts are unknown), its live files under filesDiscovered. A
// new record keeps writing filesDiscovered for older readers, and its
// counts round-trip.
func TestRunRecord_oldAndNew(t *testing.T) {
	old := `{"v":1,"id":"r1","table":"t","trigger":"schedule","status":"COMPLETED","startedAt":"2026-05-01T10:00:00Z",
		"snapshotId":7,"filesDiscovered":16,"filesFailed":0,"segmentsGenerated":2,"segmentsDeleted":8,"rows":9000,"bytes":1}`
	var r runRecord
	if err := decode("run r1", []byte(old), &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "" || r.FilesDiscovered != 16 || r.LiveFiles != 0 || r.FilesAdded != 0 || r.Rows != 9000 {
		t.Fatalf("old record read as %+v", r.Run)
	}
	run := Run{ID: "r2", Table: "t", Status: RunCompleted, Kind: RunMerge, FilesAdded: 1, FilesRebuilt: 8, LiveFiles: 16,
		FilesDiscovered: 16, RowsAdded: 1000, RowsRebuilt: 8000, Rows: 9000, SegmentsGenerated: 2, SegmentsDeleted: 8}
	b, err := encode("run", runRecord{versioned{FormatCurrent}, run})
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"kind":"merge"`, `"filesDiscovered":16`, `"liveFiles":16`, `"rowsRebuilt":8000`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("new record %s lacks %s", b, field)
		}
	}
	var back runRecord
	if err := decode("run r2", b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != RunMerge || back.FilesRebuilt != 8 || back.RowsAdded != 1000 || back.RowsRebuilt != 8000 {
		t.Fatalf("new record read back as %+v", back.Run)
	}
}
