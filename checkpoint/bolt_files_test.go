package checkpoint_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// C9 on Bolt: a delta removes exactly the files it names whether it
// deletes a few of the table's files (found by a cursor) or most or all
// of them (the bucket rewritten with the files that stay, as a
// compaction's remap commits), keeps the rest byte for byte, counts the
// result, and leaves a file that reopens to the same checkpoint.
func TestBolt_CommitCheckpointDelta_Deletions(t *testing.T) {
	const n = 2_000 // several pages of keys
	cases := []struct {
		name  string
		gone  func(i int) bool
		fresh int
	}{
		{"few", func(i int) bool { return i%97 == 5 }, 3},
		{"most", func(i int) bool { return i%50 != 7 }, 40},
		{"all", func(int) bool { return true }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "floe.db")
			s, err := checkpoint.OpenBolt(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CreateTable(ctx, checkpoint.Table{Name: "orders"}); err != nil {
				t.Fatal(err)
			}
			l, err := s.AcquireLease(ctx, "orders", "replica-a", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string]checkpoint.FileState{}
			d := checkpoint.CheckpointDelta{Header: checkpoint.Checkpoint{Table: "orders", SnapshotID: 2},
				Set: map[string]checkpoint.FileState{}, Delete: []string{"s3://b/never-there.parquet"}}
			for i := range n {
				p := fmt.Sprintf("s3://b/wh/db/orders/data/%05d-0-6f1c1a52-7a4b-4d0e-9c1d.parquet", (i*7919)%n)
				files[p] = checkpoint.FileState{Segments: []string{fmt.Sprintf("orders_g%d_0", i/100)}, Rows: int64(i + 1),
					Group: fmt.Sprintf("orders_g%d", i/100), DataSeq: 1}
				if tc.gone(i) {
					d.Delete = append(d.Delete, p)
				}
			}
			if err := s.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "orders", SnapshotID: 1, Files: files}); err != nil {
				t.Fatal(err)
			}
			for i := range tc.fresh {
				d.Set[fmt.Sprintf("s3://b/wh/db/orders/data/c-%03d.parquet", i)] = checkpoint.FileState{Rows: int64(i), DataSeq: 1}
			}
			if len(d.Delete) > 1 { // Set wins over Delete
				d.Set[d.Delete[1]] = checkpoint.FileState{Rows: 9, Segments: []string{"orders_new_0"}, DataSeq: 2}
			}
			want := maps.Clone(files)
			for _, p := range d.Delete {
				delete(want, p)
			}
			maps.Copy(want, d.Set)
			if err := s.CommitCheckpointDelta(ctx, l, d); err != nil {
				t.Fatal(err)
			}
			check := func(when string, s *checkpoint.Bolt) {
				t.Helper()
				got, err := s.GetCheckpoint(ctx, "orders")
				if err != nil {
					t.Fatal(err)
				}
				sum, err := s.GetCheckpointSummary(ctx, "orders")
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Files) != len(want) || sum.FileCount != len(want) || !reflect.DeepEqual(got.Files, want) {
					t.Fatalf("C9 (%s): checkpoint holds %d files (summary %d), want %d, equal %v", when, len(got.Files),
						sum.FileCount, len(want), reflect.DeepEqual(got.Files, want))
				}
			}
			check("after the delta", s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = checkpoint.OpenBolt(path); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			check("reopened", s)
		})
	}
}
