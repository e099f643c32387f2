package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func smallFile(path, part string, size int64) File {
	return File{Path: path, Partition: part, SizeBytes: size, DeleteFingerprint: "fp-" + path}
}

// P6: small files pack per partition by path up to the target; large
// files and lone small files keep the single-file key; keys depend only
// on the members.
func TestPlanner_Coalesce(t *testing.T) {
	p := New(Options{CoalesceBelowBytes: 100, TargetSegmentBytes: 250})
	files := []File{
		smallFile("a/1", "x", 90), smallFile("a/2", "x", 90), smallFile("a/3", "x", 90), smallFile("a/4", "x", 90),
		smallFile("b/1", "y", 50), smallFile("c/1", "x", 100), smallFile("d/1", "z", 10),
	}
	units := p.coalesce("t", files, nil)
	var got []string
	for _, u := range units {
		var paths []string
		for _, f := range u.Files {
			paths = append(paths, f.Path)
		}
		got = append(got, strings.Join(paths, "+"))
	}
	slices.Sort(got)
	if want := []string{"a/1+a/2", "a/3+a/4", "b/1", "c/1", "d/1"}; !slices.Equal(got, want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	for _, u := range units {
		switch {
		case len(u.Files) == 1 && u.Key != fileKey("t", u.Files[0].Path, u.Files[0].DeleteFingerprint):
			t.Fatalf("single-file unit %s keyed %s, not by its file", u.Files[0].Path, u.Key)
		case len(u.Files) > 1 && !strings.HasPrefix(u.Key, "t_g"):
			t.Fatalf("coalesced unit keyed %s", u.Key)
		}
	}
	rev := slices.Clone(files)
	slices.Reverse(rev)
	if fmt.Sprint(p.coalesce("t", rev, nil)) != fmt.Sprint(units) {
		t.Fatal("units depend on the order of the files")
	}
	changed := slices.Clone(files)
	changed[1].DeleteFingerprint = "other"
	if a, b := groupKey("t", files[:2]), groupKey("t", changed[:2]); a == b {
		t.Fatal("a member's new fingerprint must give the unit a new key")
	}
	if off := New(Options{}).coalesce("t", files, nil); len(off) != len(files) {
		t.Fatalf("coalescing off: %d units for %d files", len(off), len(files))
	}
}

// FileStates: every member lists the unit's segments and its key as
// Group; the rows are on the first member only.
func TestUnit_FileStates(t *testing.T) {
	u := Unit{Key: "t_gabc", Files: []File{{Path: "a", Partition: "0/x", DataSeq: 3, SizeBytes: 7}, {Path: "b", DataSeq: 4}}}
	fs := u.FileStates([]string{"t_gabc_0", "t_gabc_1"}, 42)
	if a, b := fs["a"], fs["b"]; a.Group != "t_gabc" || b.Group != "t_gabc" || a.Rows != 42 || b.Rows != 0 ||
		len(b.Segments) != 2 || a.Partition != "0/x" || a.DataSeq != 3 || a.SizeBytes != 7 {
		t.Fatalf("file states %+v", fs)
	}
	single := Unit{Key: "t_1", Files: []File{{Path: "c"}}}.FileStates([]string{"t_1_0"}, 5)
	if single["c"].Group != "" || single["c"].Rows != 5 {
		t.Fatalf("single-file unit state %+v", single["c"])
	}
}
