package checkpointtest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// base is a fixed instant with nanoseconds, to catch lossy time encoding.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

func fullConnection(name string) checkpoint.Connection {
	return checkpoint.Connection{
		Name: name,
		Type: "rest",
		Props: map[string]string{
			"uri":       "http://127.0.0.1:8181",
			"warehouse": "s3://bucket/wh",
			"region":    "eu-west-1",
		},
		Secrets:   map[string]string{"credential": "client:secret-value", "token": "t0k3n"},
		CreatedAt: base,
		UpdatedAt: base.Add(time.Hour),
	}
}

func fullTable(name string) checkpoint.Table {
	return checkpoint.Table{
		Name:       name,
		Connection: "conn-a",
		Namespace:  "analytics.raw",
		Source:     "events_" + name,
		TaskConfig: map[string]string{
			"schedule":            "0 */5 * * * ?",
			"enabled":             "true",
			"continueOnFileError": "false",
		},
		SchemaJSON:      []byte(`{"schemaName":"` + name + `","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"}]}`),
		TableConfigJSON: []byte(`{"tableName":"` + name + `_OFFLINE","tableType":"OFFLINE"}`),
		FieldIDs:        map[string]int{"id": 1, "city": 2},
		CreatedAt:       base,
		UpdatedAt:       base.Add(2 * time.Minute),
	}
}

// makeFiles returns n file states whose content depends on seed.
func makeFiles(n int, seed string) map[string]checkpoint.FileState {
	files := make(map[string]checkpoint.FileState, n)
	for i := range n {
		path := fmt.Sprintf("s3://bucket/wh/db/t/data/part-%06d-%s.parquet", i, seed)
		fs := checkpoint.FileState{
			Segments:  []string{fmt.Sprintf("t_%s_%d_0", seed, i)},
			Rows:      int64(1000 + i),
			SizeBytes: int64(4096 * (i + 1)),
		}
		if i%3 == 0 {
			fs.DeleteFingerprint = fmt.Sprintf("del-%s-%d", seed, i)
			fs.Segments = append(fs.Segments, fmt.Sprintf("t_%s_%d_1", seed, i))
		}
		if i%2 == 0 { // a member of a coalesced unit, as the planner records it
			fs.Group, fs.Partition, fs.DataSeq = "t_g"+seed, fmt.Sprintf(`0/1000=int:"%d"`, i%5), int64(i+1)
		}
		files[path] = fs
	}
	return files
}

func fullCheckpoint(table string, snapshot int64, files map[string]checkpoint.FileState) checkpoint.Checkpoint {
	return checkpoint.Checkpoint{
		Table:              table,
		SnapshotID:         snapshot,
		SequenceNumber:     snapshot / 10,
		MetadataLocation:   fmt.Sprintf("s3://bucket/wh/db/t/metadata/%05d-abc.metadata.json", snapshot),
		TableUUID:          "6f1c1a52-7a4b-4d0e-9a3c-3b0f6a1e2d11",
		SchemaID:           3,
		Files:              files,
		SnapshotFileCounts: map[int64]int{snapshot - 1: 2, snapshot: len(files)},
		CommittedAt:        base.Add(time.Duration(snapshot) * time.Second),
	}
}

func fullRun(table, id string, started time.Time) checkpoint.Run {
	return checkpoint.Run{
		ID:                id,
		Table:             table,
		Trigger:           "schedule",
		Status:            checkpoint.RunCompleted,
		StartedAt:         started,
		FinishedAt:        started.Add(3*time.Second + 7),
		FromSnapshotID:    41,
		SnapshotID:        42,
		Kind:              checkpoint.RunMerge,
		FilesAdded:        1,
		FilesRebuilt:      5,
		FilesRemoved:      2,
		FilesRemapped:     3,
		LiveFiles:         7,
		FilesDiscovered:   7,
		FilesFailed:       1,
		SegmentsGenerated: 9,
		SegmentsDeleted:   2,
		Rows:              123456,
		RowsAdded:         23456,
		RowsRebuilt:       100000,
		Bytes:             987654321,
		Error:             "file s3://x.parquet: bad column",
		Owner:             "replica-1",
		SchemaChange:      `add-columns: column "note" added (field id 9)`,
		Log: []checkpoint.RunLogLine{
			{At: started.Add(5), Level: "INFO", Msg: "plan", Attrs: map[string]string{"files": "7"}},
			{At: started.Add(time.Second), Level: "ERROR", Msg: "convert file", Attrs: map[string]string{"file": "s3://x.parquet"}},
		},
	}
}

// sameJSON fails when got and want do not encode to the same JSON: the
// stores promise a JSON round trip of every field.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: marshal got: %v", what, err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("%s: marshal want: %v", what, err)
	}
	if string(g) != string(w) {
		t.Fatalf("%s: round trip differs\n got: %.2000s\nwant: %.2000s", what, g, w)
	}
}
