package plan

import (
	"strings"
	"testing"
)

// P2: which delete files apply to a data file at path "a" of partition
// "0/p" with data sequence number 5.
func TestDeleteIndex_ForFile(t *testing.T) {
	pos := func(name, part, ref string, seq int64, b pathBounds) liveDelete {
		return liveDelete{path: name, kind: posDelete, partition: part, seq: seq, ref: ref, paths: b, token: "pos:" + name}
	}
	eq := func(name, part string, seq int64) liveDelete {
		return liveDelete{path: name, kind: eqDelete, partition: part, seq: seq, token: "eq:" + name}
	}
	dv := func(name, ref string, seq int64) liveDelete {
		return liveDelete{path: name, kind: dvDelete, ref: ref, seq: seq, token: "dv:" + name + "@4"}
	}
	for _, c := range []struct {
		name string
		del  liveDelete
		want bool
	}{
		{"pos referencing the file, newer", pos("d", "0/q", "a", 6, pathBounds{}), true},
		{"pos referencing the file, same seq", pos("d", "0/q", "a", 5, pathBounds{}), true},
		{"pos referencing the file, older", pos("d", "0/p", "a", 4, pathBounds{}), false},
		{"pos referencing another file", pos("d", "0/p", "b", 6, pathBounds{}), false},
		{"pos of the partition", pos("d", "0/p", "", 6, pathBounds{}), true},
		{"pos of another partition", pos("d", "0/q", "", 6, pathBounds{}), false},
		{"pos of another spec", pos("d", "1/p", "", 6, pathBounds{}), false},
		{"pos whose path bounds hold the file", pos("d", "0/p", "", 6, pathBounds{"a", "a", true, true}), true},
		{"pos whose path bounds are a truncated prefix", pos("d", "0/p", "", 6, pathBounds{"", "b", true, true}), true},
		{"pos whose path bounds miss the file", pos("d", "0/p", "", 6, pathBounds{"b", "c", true, true}), false},
		{"eq of the partition, newer", eq("d", "0/p", 6), true},
		{"eq of the partition, same seq", eq("d", "0/p", 5), false},
		{"eq unpartitioned (global)", eq("d", "", 6), true},
		{"eq of another partition", eq("d", "0/q", 6), false},
		{"dv of the file", dv("d", "a", 5), true},
		{"dv of the file, older", dv("d", "a", 4), false},
		{"dv of another file", dv("d", "b", 9), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := newDeleteIndex([]liveDelete{c.del}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, e, d, _ := x.forFile("a", "0/p", 5, nil)
			if got := len(p)+len(e)+len(d) == 1; got != c.want {
				t.Fatalf("applies = %v, want %v", got, c.want)
			}
			if fp, _ := x.fingerprint("a", "0/p", 5, nil); (fp != "") != c.want {
				t.Fatalf("fingerprint %q", fp)
			}
		})
	}
}

// P2: a deletion vector replaces the position delete files of its file;
// the fingerprint covers every applying file in a stable order.
func TestDeleteIndex_DVSupersedesPositionDeletes(t *testing.T) {
	dels := []liveDelete{
		{path: "p1", kind: posDelete, ref: "a", seq: 6, token: "pos:p1"},
		{path: "e1", kind: eqDelete, seq: 7, token: "eq:e1"},
		{path: "v1", kind: dvDelete, ref: "a", seq: 8, token: "dv:v1@4"},
	}
	x, err := newDeleteIndex(dels, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, e, d, _ := x.forFile("a", "", 5, nil)
	if len(p) != 0 || len(e) != 1 || len(d) != 1 {
		t.Fatalf("pos %d eq %d dv %d, want 0 1 1", len(p), len(e), len(d))
	}
	y, _ := newDeleteIndex([]liveDelete{dels[2], dels[1], dels[0]}, nil)
	fx, _ := x.fingerprint("a", "", 5, nil)
	if fy, _ := y.fingerprint("a", "", 5, nil); fx != fy {
		t.Fatal("the fingerprint depends on the order delete files were read")
	}
	if _, err := newDeleteIndex(append(dels, liveDelete{path: "v2", kind: dvDelete, ref: "a", seq: 9}), nil); err == nil ||
		!containsAll(err.Error(), "a", "v1", "v2") {
		t.Fatalf("two deletion vectors for one file: want an error naming them, got %v", err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
