package plan

import (
	"fmt"
	"slices"

	"github.com/floehq/floe/checkpoint"
)

// eqGroup merges the keys of the equality delete files of one reach (a
// partition, or the table for unpartitioned specs) that compare the same
// fields into one sorted list, each key with the delete file it came
// from: finding the deletes that may touch a file is then one binary
// search per group and file, however many delete files have piled up
// (P2).
type eqGroup struct {
	keys   eqKeys        // fields and merged rows (never wild)
	owners []*liveDelete // owners[i] deleted keys.rows[i]
	dels   []*liveDelete // the group's delete files
	maxSeq int64
}

// eqGroupKey names the group of a delete file of reach partition.
func eqGroupKey(partition string, fields []int) string {
	return fmt.Sprintf("%q%v", partition, fields)
}

// add merges a delete file's keys into the group (sort before use).
func (g *eqGroup) add(d *liveDelete) {
	g.keys.fields = d.keys.fields
	g.keys.rows = append(g.keys.rows, d.keys.rows...)
	for range d.keys.rows {
		g.owners = append(g.owners, d)
	}
	g.dels = append(g.dels, d)
	g.maxSeq = max(g.maxSeq, d.seq)
}

// sort orders the merged keys, keeping each with its delete file.
func (g *eqGroup) sort() {
	idx := make([]int, len(g.keys.rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return slices.Compare(g.keys.rows[a], g.keys.rows[b]) })
	rows, owners := make([][]string, len(idx)), make([]*liveDelete, len(idx))
	for i, j := range idx {
		rows[i], owners[i] = g.keys.rows[j], g.owners[j]
	}
	g.keys.rows, g.owners = rows, owners
}

// touching appends the group's delete files newer than seq that may
// delete a row of the data file at path with key bounds kb: a key of the
// delete within the bounds (P2) that the file's key index, when probe has
// one, does not rule out (P12). known is false when kb does not record
// one of the group's fields (then every newer delete file of the group is
// appended).
func (g *eqGroup) touching(out []*liveDelete, path string, seq int64, kb checkpoint.KeyBounds,
	classes map[int]keyClass, probe *keyProbe) ([]*liveDelete, bool) {
	if g.maxSeq <= seq {
		return out, true
	}
	fb, known := comparable(kb, g.keys.fields, classes)
	if !known {
		return appendIf(out, g.dels, func(d *liveDelete) bool { return d.seq > seq }), false
	}
	lo, hi := g.keys.span(fb)
	var (
		seen, ruled map[*liveDelete]bool
		fk          *fileKeys
		loaded      bool
	)
	for i := lo; i < hi; i++ {
		d := g.owners[i]
		if d.seq <= seq || seen[d] || !g.keys.rowMayTouch(g.keys.rows[i], fb) {
			continue
		}
		if probe != nil {
			if !loaded {
				fk, loaded = probe.keysOf(path, g.keys.fields), true
			}
			if fk != nil && !fk.mayHold(g.keys.rows[i]) {
				if ruled == nil {
					ruled = map[*liveDelete]bool{}
				}
				ruled[d] = true
				continue
			}
		}
		if seen == nil {
			seen = map[*liveDelete]bool{}
		}
		seen[d] = true
		out = append(out, d)
	}
	for d := range ruled {
		if !seen[d] {
			probe.ruleOut(path, d)
		}
	}
	return out, true
}
