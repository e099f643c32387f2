package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// coalesce turns the files to build into units (P6). A file of at least
// CoalesceBelowBytes is a unit on its own. Smaller files are packed per
// partition, the files a merge rebuilds (merging, P10) apart from the
// others: sorted by path, each joins the current unit until the next
// would take its data files past TargetSegmentBytes. A pack of one file is
// a unit of that file. Units are sorted by key. The result depends only on
// the files given, never on the order they come in.
func (p *Planner) coalesce(tableName string, files []File, merging map[string]bool) []Unit {
	units := make([]Unit, 0, len(files))
	small := map[string][]File{}
	for _, f := range files {
		if f.SizeBytes < p.opts.CoalesceBelowBytes {
			pack := f.Partition
			if merging[f.Path] {
				pack += "\x00merge"
			}
			small[pack] = append(small[pack], f)
			continue
		}
		units = append(units, fileUnit(tableName, f))
	}
	for _, part := range slices.Sorted(maps.Keys(small)) {
		fs := small[part]
		slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		var (
			cur   []File
			bytes int64
		)
		for _, f := range fs {
			if len(cur) > 0 && bytes+f.SizeBytes > p.opts.TargetSegmentBytes {
				units = append(units, packUnit(tableName, cur))
				cur, bytes = nil, 0
			}
			cur, bytes = append(cur, f), bytes+f.SizeBytes
		}
		if len(cur) > 0 {
			units = append(units, packUnit(tableName, cur))
		}
	}
	slices.SortFunc(units, func(a, b Unit) int { return strings.Compare(a.Key, b.Key) })
	return units
}

func packUnit(tableName string, files []File) Unit {
	if len(files) == 1 {
		return fileUnit(tableName, files[0])
	}
	return Unit{Key: groupKey(tableName, files), Files: files}
}

func fileUnit(tableName string, f File) Unit {
	return Unit{Key: fileKey(tableName, f.Path, f.DeleteFingerprint), Files: []File{f}}
}

var unsafeSegmentChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// fileKey is the key of a unit of one data file: <table>_<first 10 bytes
// of SHA-256(path NUL fingerprint) in hex>. Format: never change.
func fileKey(tableName, path, deleteFingerprint string) string {
	sum := sha256.Sum256([]byte(path + "\x00" + deleteFingerprint))
	return SegmentPrefix(tableName) + hex.EncodeToString(sum[:10])
}

// groupKey is the key of a coalesced unit: <table>_g<first 10 bytes of
// SHA-256 of its members' "path NUL fingerprint" lines, sorted, joined by
// newlines> (P6). Format: never change.
func groupKey(tableName string, files []File) string {
	lines := make([]string, len(files))
	for i, f := range files {
		lines[i] = f.Path + "\x00" + f.DeleteFingerprint
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return SegmentPrefix(tableName) + "g" + hex.EncodeToString(sum[:10])
}

// SegmentName is the deterministic name of part idx of a data file's
// segments when the file is a unit on its own: <table>_<hash of path and
// delete fingerprint>_<idx>. The same file with the same deletes always
// gets the same name (I2, I3).
func SegmentName(tableName, path, deleteFingerprint string, idx int) string {
	return Unit{Key: fileKey(tableName, path, deleteFingerprint)}.SegmentName(idx)
}

// SegmentPrefix is the prefix every floe segment of the table starts with.
func SegmentPrefix(tableName string) string {
	return unsafeSegmentChars.ReplaceAllString(tableName, "_") + "_"
}
