package plan

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

func le64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
func le32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// P2: a delete's keys touch a file exactly when one key lies within the
// file's bounds of every compared field; missing bounds rule nothing out.
func TestEqKeys_MayTouch(t *testing.T) {
	classes := map[int]keyClass{1: intClass, 2: bytesClass, 3: noClass}
	keys := &eqKeys{fields: []int{1, 2}, rows: [][]string{
		{orderInt(-5), "b"}, {orderInt(10), "a"}, {orderInt(10), "z"}, {orderInt(300), "m"},
	}}
	for _, c := range []struct {
		name string
		kb   checkpoint.KeyBounds
		want bool
	}{
		{"no bounds recorded", checkpoint.KeyBounds{1: {nil, nil}, 2: {nil, nil}}, true},
		{"long bounds below every key", checkpoint.KeyBounds{1: {le64(-100), le64(-6)}, 2: {nil, nil}}, false},
		{"long bounds around a negative key", checkpoint.KeyBounds{1: {le64(-100), le64(-5)}, 2: {nil, nil}}, true},
		{"int (4-byte) bounds, promoted column", checkpoint.KeyBounds{1: {le32(11), le32(299)}, 2: {nil, nil}}, false},
		{"int bounds holding a key", checkpoint.KeyBounds{1: {le32(300), le32(400)}, 2: {nil, nil}}, true},
		{"first field holds, second does not", checkpoint.KeyBounds{1: {le64(10), le64(10)}, 2: {[]byte("c"), []byte("y")}}, false},
		{"both fields hold", checkpoint.KeyBounds{1: {le64(10), le64(10)}, 2: {[]byte("y"), []byte("zz")}}, true},
		{"only an upper bound", checkpoint.KeyBounds{1: {nil, le64(-6)}, 2: {nil, nil}}, false},
		{"empty string bounds count as none", checkpoint.KeyBounds{1: {le64(300), le64(300)}, 2: {[]byte{}, []byte{}}}, true},
		{"a bound of the wrong width counts as none", checkpoint.KeyBounds{1: {[]byte{1, 2}, []byte{1}}, 2: {nil, nil}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fb, known := comparable(c.kb, keys.fields, classes)
			if !known {
				t.Fatal("every field is recorded, yet known is false")
			}
			if got := keys.mayTouch(fb); got != c.want {
				t.Fatalf("mayTouch = %v, want %v", got, c.want)
			}
		})
	}
	if _, known := comparable(checkpoint.KeyBounds{1: {nil, nil}}, keys.fields, classes); known {
		t.Fatal("field 2 is not recorded, yet known is true")
	}
	wild := &eqKeys{fields: []int{1}, wild: true}
	if fb, _ := comparable(checkpoint.KeyBounds{1: {le64(0), le64(0)}}, wild.fields, classes); !wild.mayTouch(fb) {
		t.Fatal("a wild delete (null key) must touch every file it reaches")
	}
}

// P2: byte order of the comparable form is the order of the values.
func TestOrderInt_Order(t *testing.T) {
	vals := []int64{-1 << 63, -300, -1, 0, 1, 255, 256, 1<<63 - 1}
	for i := 1; i < len(vals); i++ {
		if orderInt(vals[i-1]) >= orderInt(vals[i]) {
			t.Fatalf("orderInt(%d) >= orderInt(%d)", vals[i-1], vals[i])
		}
	}
}

// P2: the delete files of one reach are merged into one sorted key list;
// a file gets exactly the newer ones with a key in its bounds.
func TestDeleteIndex_MergedKeys(t *testing.T) {
	classes := map[int]keyClass{1: intClass}
	keys := func(ids ...int64) *eqKeys {
		k := &eqKeys{fields: []int{1}}
		for _, id := range ids {
			k.rows = append(k.rows, []string{orderInt(id)})
		}
		return k
	}
	dels := []liveDelete{
		{path: "d1", kind: eqDelete, seq: 3, token: "eq:d1", keys: keys(10)},
		{path: "d2", kind: eqDelete, seq: 6, token: "eq:d2", keys: keys(50, 10)},
		{path: "d3", kind: eqDelete, seq: 7, token: "eq:d3", keys: &eqKeys{fields: []int{1}, wild: true}},
	}
	x, err := newDeleteIndex(dels, classes)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ds []*liveDelete) (out []string) {
		for _, d := range ds {
			out = append(out, d.path)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		seq   int64
		kb    checkpoint.KeyBounds
		want  []string
		known bool
	}{
		{"older file holding 10", 2, checkpoint.KeyBounds{1: {le64(0), le64(20)}}, []string{"d1", "d2", "d3"}, true},
		{"file between the deletes", 4, checkpoint.KeyBounds{1: {le64(0), le64(20)}}, []string{"d2", "d3"}, true},
		{"file holding only 50", 2, checkpoint.KeyBounds{1: {le64(40), le64(60)}}, []string{"d2", "d3"}, true},
		{"file holding no key", 2, checkpoint.KeyBounds{1: {le64(100), le64(200)}}, []string{"d3"}, true},
		{"bounds not recorded", 2, checkpoint.KeyBounds{}, []string{"d1", "d2", "d3"}, false},
		{"file newer than every delete", 7, checkpoint.KeyBounds{1: {le64(0), le64(20)}}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, eq, _, known := x.forFile("a", "", c.seq, c.kb)
			if got := names(eq); !slices.Equal(got, c.want) || known != c.known {
				t.Fatalf("eq deletes %v (known %v), want %v (known %v)", got, known, c.want, c.known)
			}
		})
	}
}
