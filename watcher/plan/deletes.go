package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// deleteIndex finds the live delete files that apply to a data file, by
// the Iceberg spec's rules (P2), from the file's path, partition, data
// sequence number and, for equality deletes, its key bounds:
//   - a deletion vector applies to the file it references when the file's
//     data sequence number is ≤ the DV's; position delete files are then
//     not applied;
//   - a position delete file applies when its sequence number is ≥ the
//     file's and it references the file, or references no file, has the
//     file's partition and file_path bounds (when recorded) that hold the
//     file's path;
//   - an equality delete file applies when its sequence number is > the
//     file's, it has the file's partition or an unpartitioned spec, and
//     one of its keys lies within the file's bounds of every compared
//     equality field (eqKeys.mayTouch): a delete no key of which can
//     reach a file's rows is not the file's, so it neither rebuilds nor
//     is read with the file.
type deleteIndex struct {
	dvByRef   map[string]*liveDelete
	posByRef  map[string][]*liveDelete
	posByPart map[string][]*liveDelete
	eqGlobal  []*liveDelete // equality deletes whose keys are not compared (wild)
	eqByPart  map[string][]*liveDelete
	groups    map[string][]*eqGroup // compared equality deletes by reach ("" the table)
	classes   map[int]keyClass      // nil: no key is compared (Options.EqualityDeletesWholePartition)
	probe     *keyProbe             // data files' key indexes (P12); nil: bounds alone decide
}

func newDeleteIndex(dels []liveDelete, classes map[int]keyClass) (*deleteIndex, error) {
	x := &deleteIndex{dvByRef: map[string]*liveDelete{}, posByRef: map[string][]*liveDelete{},
		posByPart: map[string][]*liveDelete{}, eqByPart: map[string][]*liveDelete{}, groups: map[string][]*eqGroup{},
		classes: classes}
	byKey := map[string]*eqGroup{}
	for i := range dels {
		d := &dels[i]
		switch {
		case d.kind == dvDelete:
			if other, ok := x.dvByRef[d.ref]; ok {
				return nil, fmt.Errorf("data file %s has two deletion vectors: %s and %s", d.ref, other.path, d.path)
			}
			x.dvByRef[d.ref] = d
		case d.kind == posDelete && d.ref != "":
			x.posByRef[d.ref] = append(x.posByRef[d.ref], d)
		case d.kind == posDelete:
			x.posByPart[d.partition] = append(x.posByPart[d.partition], d)
		case classes != nil && d.keys != nil && !d.keys.wild:
			key := eqGroupKey(d.partition, d.keys.fields)
			g, ok := byKey[key]
			if !ok {
				g = &eqGroup{}
				byKey[key] = g
				x.groups[d.partition] = append(x.groups[d.partition], g)
			}
			g.add(d)
		case d.partition == "":
			x.eqGlobal = append(x.eqGlobal, d)
		default:
			x.eqByPart[d.partition] = append(x.eqByPart[d.partition], d)
		}
	}
	for _, g := range byKey {
		g.sort()
	}
	return x, nil
}

func (x *deleteIndex) empty() bool {
	return len(x.dvByRef) == 0 && len(x.posByRef) == 0 && len(x.posByPart) == 0 && len(x.eqGlobal) == 0 &&
		len(x.eqByPart) == 0 && len(x.groups) == 0
}

// mayApply reports whether any live delete file can apply to a data file
// at path in partition, whatever its sequence number (a cheap test that
// lets the fold skip files no delete file reaches).
func (x *deleteIndex) mayApply(path, partition string) bool {
	if x.empty() {
		return false
	}
	if len(x.eqGlobal) > 0 || len(x.groups[""]) > 0 || x.dvByRef[path] != nil || len(x.posByRef[path]) > 0 {
		return true
	}
	return len(x.posByPart[partition]) > 0 || len(x.eqByPart[partition]) > 0 || len(x.groups[partition]) > 0
}

// forFile returns the delete files that apply to a data file with key
// bounds kb, each list sorted by path. known is false when an equality
// delete that reaches the file compares a field kb does not record: the
// delete is then counted in, and a caller that read kb from the
// checkpoint must look the file's manifest entry up instead.
func (x *deleteIndex) forFile(path, partition string, seq int64, kb checkpoint.KeyBounds) (pos, eq, dv []*liveDelete,
	known bool) {
	known = true
	if x.empty() {
		return nil, nil, nil, known
	}
	if d, ok := x.dvByRef[path]; ok && (d.seq < 0 || seq <= d.seq) {
		dv = []*liveDelete{d}
	} else {
		pos = appendIf(pos, x.posByRef[path], func(d *liveDelete) bool { return d.seq >= seq })
		pos = appendIf(pos, x.posByPart[partition], func(d *liveDelete) bool { return d.seq >= seq && d.paths.mayHold(path) })
	}
	older := func(d *liveDelete) bool { return d.seq > seq }
	eq = appendIf(eq, x.eqGlobal, older)
	reaches := []string{""}
	if partition != "" {
		eq = appendIf(eq, x.eqByPart[partition], older)
		reaches = append(reaches, partition)
	}
	for _, reach := range reaches {
		for _, g := range x.groups[reach] {
			var ok bool
			eq, ok = g.touching(eq, path, seq, kb, x.classes, x.probe)
			known = known && ok
		}
	}
	byPath := func(a, b *liveDelete) int { return strings.Compare(a.path, b.path) }
	slices.SortFunc(pos, byPath)
	slices.SortFunc(eq, byPath)
	return pos, eq, dv, known
}

func appendIf(out, from []*liveDelete, ok func(*liveDelete) bool) []*liveDelete {
	for _, d := range from {
		if ok(d) {
			out = append(out, d)
		}
	}
	return out
}

// fingerprint identifies the delete files that apply to a data file: the
// first 12 bytes of the SHA-256 of their sorted tokens, "" when none
// apply. Format: never change (it names segments). known is forFile's.
func (x *deleteIndex) fingerprint(path, partition string, seq int64, kb checkpoint.KeyBounds) (string, bool) {
	pos, eq, dv, known := x.forFile(path, partition, seq, kb)
	if len(pos)+len(eq)+len(dv) == 0 {
		return "", known
	}
	return fingerprintOf(slices.Concat(pos, eq, dv)), known
}

// tokensFingerprint is the first 12 bytes of the SHA-256 of the sorted,
// distinct tokens joined by newlines, hex; "" for none.
func tokensFingerprint(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	slices.Sort(tokens)
	tokens = slices.Compact(tokens)
	sum := sha256.Sum256([]byte(strings.Join(tokens, "\n")))
	return hex.EncodeToString(sum[:12])
}

// task is the scan task reading a whole data file with its deletes.
func (x *deleteIndex) task(df iceberg.DataFile, partition string, seq int64, kb checkpoint.KeyBounds) table.FileScanTask {
	pos, eq, dv, _ := x.forFile(df.FilePath(), partition, seq, kb)
	t := table.FileScanTask{
		File: df, DeleteFiles: dataFiles(pos), EqualityDeleteFiles: dataFiles(eq), DeletionVectorFiles: dataFiles(dv),
		Start: 0, Length: df.FileSizeBytes(), FirstRowID: df.FirstRowID(),
	}
	if seq >= 0 {
		t.DataSequenceNumber = &seq
	}
	return t
}

func dataFiles(ds []*liveDelete) []iceberg.DataFile {
	if len(ds) == 0 {
		return nil
	}
	out := make([]iceberg.DataFile, len(ds))
	for i, d := range ds {
		out[i] = d.df
	}
	return out
}
