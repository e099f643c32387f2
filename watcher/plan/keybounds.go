package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/checkpoint"
)

// keyFields are the field ids whose column bounds the plan keeps for every
// data file (P2): the current schema's identifier fields and the equality
// field ids of every live equality delete file, sorted. Empty for a table
// with neither, whose data manifests are then read without statistics.
func (j *job) keyFields(dels []liveDelete) []int {
	set := map[int]bool{}
	for _, id := range j.meta.CurrentSchema().IdentifierFieldIDs {
		set[id] = true
	}
	for _, d := range dels {
		if d.kind == eqDelete {
			for _, id := range d.df.EqualityFieldIDs() {
				set[id] = true
			}
		}
	}
	out := make([]int, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// setKeyFields fixes the job's key fields and their classes before any
// data manifest is read.
func (j *job) setKeyFields(dels []liveDelete) {
	j.keyIDs = j.keyFields(dels)
	j.classes = map[int]keyClass{}
	sc := j.meta.CurrentSchema()
	for _, id := range j.keyIDs {
		if f, ok := sc.FindFieldByID(id); ok {
			j.classes[id] = classOf(f.Type)
		}
	}
}

// entriesKey names a manifest's decoded entries in the cache: data
// manifests read with the bounds of key fields carry them in the key.
func (j *job) entriesKey(m iceberg.ManifestFile) string {
	if m.ManifestContent() != iceberg.ManifestContentData || len(j.keyIDs) == 0 {
		return "manifest:" + m.FilePath()
	}
	var b strings.Builder
	b.WriteString("manifest:")
	b.WriteString(m.FilePath())
	b.WriteString("#k")
	for _, id := range j.keyIDs {
		fmt.Fprintf(&b, ",%d", id)
	}
	return b.String()
}

// keyBoundsOf copies a data file's bounds of the key fields (every key
// field is listed; one without bounds in the manifest has nil values).
func keyBoundsOf(df iceberg.DataFile, ids []int) checkpoint.KeyBounds {
	if len(ids) == 0 {
		return nil
	}
	lower, upper := df.LowerBoundValues(), df.UpperBoundValues()
	out := make(checkpoint.KeyBounds, len(ids))
	for _, id := range ids {
		out[id] = [2][]byte{slices.Clone(lower[id]), slices.Clone(upper[id])}
	}
	return out
}

// keyBoundsSize estimates the memory of kb.
func keyBoundsSize(kb checkpoint.KeyBounds) int64 {
	n := int64(0)
	for _, b := range kb {
		n += 64 + int64(len(b[0])+len(b[1]))
	}
	return n
}

// comparable turns recorded bounds into the comparable form of each
// field's class; a field not recorded is absent (known reports whether
// every one of fields is recorded).
func comparable(kb checkpoint.KeyBounds, fields []int, classes map[int]keyClass) (fb fileBounds, known bool) {
	fb = fileBounds{}
	known = true
	for _, id := range fields {
		raw, ok := kb[id]
		if !ok {
			known = false
			continue
		}
		var cb colBounds
		cb.lower, cb.hasLower = boundKey(classes[id], raw[0])
		cb.upper, cb.hasUpper = boundKey(classes[id], raw[1])
		fb[id] = cb
	}
	return fb, known
}
