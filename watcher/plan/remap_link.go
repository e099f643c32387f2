package plan

import (
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
)

// fileTable numbers the data files a remap looks at (those replace steps
// removed or added, and the checkpoint files of the units they touch), so
// that linking and checking them index slices instead of hashing paths:
// a compaction of 10,000 files looks each path up once. Every slice is
// indexed by a file's number.
type fileTable struct {
	ids   map[string]int32
	paths []string
	// addedAt and removedAt are the step that added or removed the file
	// (the latest), -1 when none did.
	addedAt, removedAt []int32
	// parent links the files into sets (union-find).
	parent []int32
	// inCP says whether the checkpoint holds the file, rows and segments
	// what its entry records (filled by link).
	inCP     []bool
	rows     []int64
	segments [][]string
}

func newFileTable(n int) fileTable {
	return fileTable{ids: make(map[string]int32, n), paths: make([]string, 0, n), addedAt: make([]int32, 0, n),
		removedAt: make([]int32, 0, n), parent: make([]int32, 0, n), inCP: make([]bool, 0, n),
		rows: make([]int64, 0, n), segments: make([][]string, 0, n)}
}

// add numbers path, once.
func (ft *fileTable) add(path string) int32 {
	if id, ok := ft.ids[path]; ok {
		return id
	}
	id := int32(len(ft.paths))
	ft.ids[path] = id
	ft.paths = append(ft.paths, path)
	ft.addedAt = append(ft.addedAt, -1)
	ft.removedAt = append(ft.removedAt, -1)
	ft.parent = append(ft.parent, id)
	ft.inCP = append(ft.inCP, false)
	ft.rows = append(ft.rows, 0)
	ft.segments = append(ft.segments, nil)
	return id
}

// record notes the checkpoint entry of the file numbered id.
func (ft *fileTable) record(id int32, fs checkpoint.FileState) {
	ft.inCP[id], ft.rows[id], ft.segments[id] = true, fs.Rows, fs.Segments
}

// marked reports whether path is numbered and marked in marks (indexed
// by number); false for a nil table.
func (ft *fileTable) marked(marks []bool, path string) bool {
	if ft == nil {
		return false
	}
	id, ok := ft.ids[path]
	return ok && marks[id]
}

// pathsOf returns the paths of ids.
func (ft *fileTable) pathsOf(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = ft.paths[id]
	}
	return out
}

// link joins the files of every replace step by partition, and every
// checkpointed file among them with the other members of its unit (which
// it numbers too), records each file's checkpoint entry, and returns the
// linked sets, each sorted by path, in the order of their first path.
func (h *history) link(cp checkpoint.Checkpoint) [][]int32 {
	ft := &h.files
	for _, s := range h.steps {
		first := map[string]int32{}
		for _, files := range [2][]stepFile{s.removed, s.added} {
			for _, f := range files { // any order links the same sets
				if r, ok := first[f.partition]; ok {
					ft.union(r, f.id)
				} else {
					first[f.partition] = f.id
				}
			}
		}
	}
	groups := map[string]bool{}
	for id, path := range ft.paths {
		if fs, ok := cp.Files[path]; ok {
			ft.record(int32(id), fs)
			if fs.Group != "" {
				groups[fs.Group] = true
			}
		}
	}
	if len(groups) > 0 {
		ft.linkUnits(cp, groups)
	}
	return ft.sets()
}

// linkUnits joins the checkpoint's files of each coalesced unit in groups
// (a file on its own is its own unit, linked already).
func (ft *fileTable) linkUnits(cp checkpoint.Checkpoint, groups map[string]bool) {
	first := make(map[string]int32, len(groups))
	for path, fs := range cp.Files {
		if fs.Group == "" || !groups[fs.Group] {
			continue
		}
		id, ok := ft.ids[path]
		if !ok {
			id = ft.add(path)
			ft.record(id, fs)
		}
		if r, ok := first[fs.Group]; ok {
			ft.union(r, id)
		} else {
			first[fs.Group] = id
		}
	}
}

// find returns the number that stands for x's set (halving the path).
func (ft *fileTable) find(x int32) int32 {
	for ft.parent[x] != x {
		ft.parent[x] = ft.parent[ft.parent[x]]
		x = ft.parent[x]
	}
	return x
}

func (ft *fileTable) union(a, b int32) {
	ra, rb := ft.find(a), ft.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	ft.parent[rb] = ra
}

// sets returns the linked sets of every numbered file, each sorted by
// path, ordered by their first path: one sort of all the paths, then each
// file goes to its set in that order.
func (ft *fileTable) sets() [][]int32 {
	n := len(ft.paths)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(ft.paths[a], ft.paths[b]) })
	size := make([]int32, n) // by root
	for i := range n {
		size[ft.find(int32(i))]++
	}
	slot := make([]int32, n) // by root: its set's index in out, plus one
	backing := make([]int32, 0, n)
	var out [][]int32
	for _, id := range order {
		r := ft.find(id)
		if slot[r] == 0 {
			start := len(backing)
			backing = backing[:start+int(size[r])]
			out = append(out, backing[start:start:start+int(size[r])])
			slot[r] = int32(len(out))
		}
		out[slot[r]-1] = append(out[slot[r]-1], id)
	}
	return out
}
