package watcher

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// metadataWith returns table metadata whose snapshots are chain (each
// the parent of the next, committed a minute apart from t0) plus extra
// (no parent), with current as the current snapshot.
func metadataWith(t *testing.T, t0 time.Time, chain []int64, extra []int64, current int64) table.Metadata {
	t.Helper()
	var snaps []string
	for i, id := range chain {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`"parent-snapshot-id": %d,`, chain[i-1])
		}
		snaps = append(snaps, fmt.Sprintf(`{"snapshot-id": %d, %s "sequence-number": %d, "timestamp-ms": %d,
			"manifest-list": "file:///m/%d.avro", "summary": {"operation": "append"}, "schema-id": 0}`,
			id, parent, i+1, t0.Add(time.Duration(i)*time.Minute).UnixMilli(), id))
	}
	for i, id := range extra {
		snaps = append(snaps, fmt.Sprintf(`{"snapshot-id": %d, "sequence-number": %d, "timestamp-ms": %d,
			"manifest-list": "file:///m/%d.avro", "summary": {"operation": "append"}, "schema-id": 0}`,
			id, len(chain)+i+1, t0.Add(-time.Hour).UnixMilli(), id))
	}
	doc := fmt.Sprintf(`{"format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
		"location": "file:///t", "last-sequence-number": %d, "last-updated-ms": %d, "last-column-id": 1,
		"current-schema-id": 0, "schemas": [{"type": "struct", "schema-id": 0, "fields": [
			{"id": 1, "name": "id", "required": true, "type": "long"}]}],
		"default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
		"default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
		"properties": {}, "current-snapshot-id": %d, "snapshots": [%s]}`,
		len(chain)+len(extra), t0.UnixMilli(), current, strings.Join(snaps, ","))
	md, err := table.ParseMetadataString(doc)
	if err != nil {
		t.Fatalf("parse metadata: %v", err)
	}
	return md
}

// The lag counts the snapshots committed after the synced one on the
// current ancestry and dates the oldest of them.
func TestLagOf(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	md := metadataWith(t, t0, []int64{11, 12, 13, 14}, []int64{99}, 14)
	cases := []struct {
		name   string
		synced int64
		behind int
		oldest time.Time
	}{
		{"up to date", 14, 0, time.Time{}},
		{"one behind", 13, 1, t0.Add(3 * time.Minute)},
		{"three behind", 11, 3, t0.Add(time.Minute)},
		{"never synced: the whole ancestry", 0, 4, t0},
		{"synced snapshot off the ancestry (rollback)", 99, 4, t0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := lagOf(md, c.synced)
			if l.latestID != 14 || !l.latestAt.Equal(t0.Add(3*time.Minute)) {
				t.Fatalf("latest %d at %v, want 14 at %v", l.latestID, l.latestAt, t0.Add(3*time.Minute))
			}
			if l.behind != c.behind || !l.oldest.Equal(c.oldest) {
				t.Fatalf("behind %d since %v, want %d since %v", l.behind, l.oldest, c.behind, c.oldest)
			}
			now := t0.Add(time.Hour)
			want := 0.0
			if c.behind > 0 {
				want = now.Sub(c.oldest).Seconds()
			}
			if got := l.seconds(now); got != want {
				t.Fatalf("seconds %v, want %v", got, want)
			}
		})
	}
}

// A table without snapshots has no lag.
func TestLagOf_noSnapshots(t *testing.T) {
	md := metadataWith(t, time.Now(), nil, nil, -1)
	if l := lagOf(md, 0); l != (lag{}) {
		t.Fatalf("lag %+v, want none", l)
	}
}
