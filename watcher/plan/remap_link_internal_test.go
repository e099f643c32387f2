package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// P11: the file table links the same sets as merging sets by hand, and
// returns them each sorted by path, in the order of their first path,
// whatever the order of the unions.
func TestFileTable_Sets(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 1 + rng.IntN(60)
		ft := newFileTable(0)
		for _, i := range rng.Perm(n) { // numbered in random order
			ft.add(fmt.Sprintf("s3://b/data/%03d.parquet", i))
		}
		naive := make([]int, n) // set label by number
		for i := range naive {
			naive[i] = i
		}
		for range rng.IntN(2 * n) {
			a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
			ft.union(a, b)
			from, to := naive[b], naive[a]
			for i := range naive {
				if naive[i] == from {
					naive[i] = to
				}
			}
		}
		var want [][]string
		byLabel := map[int]int{}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(ft.paths[a], ft.paths[b]) })
		for _, id := range order {
			k, ok := byLabel[naive[id]]
			if !ok {
				k = len(want)
				byLabel[naive[id]] = k
				want = append(want, nil)
			}
			want[k] = append(want[k], ft.paths[id])
		}
		var got [][]string
		for _, set := range ft.sets() {
			got = append(got, ft.pathsOf(set))
		}
		if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Fatalf("seed %d: sets %v, want %v", seed, got, want)
		}
	}
}

// P11: numbering a path twice gives it one number, and marks are read
// by path.
func TestFileTable_AddAndMarked(t *testing.T) {
	ft := newFileTable(2)
	a, b := ft.add("s3://b/a.parquet"), ft.add("s3://b/b.parquet")
	if again := ft.add("s3://b/a.parquet"); again != a || a == b || len(ft.paths) != 2 {
		t.Fatalf("numbers %d, %d, again %d; %d paths", a, b, again, len(ft.paths))
	}
	marks := make([]bool, len(ft.paths))
	marks[b] = true
	if ft.marked(marks, "s3://b/a.parquet") || !ft.marked(marks, "s3://b/b.parquet") || ft.marked(marks, "s3://b/c.parquet") {
		t.Fatal("marked reads the wrong marks")
	}
	var none *fileTable
	if none.marked(nil, "s3://b/a.parquet") {
		t.Fatal("a nil table marks a path")
	}
}
