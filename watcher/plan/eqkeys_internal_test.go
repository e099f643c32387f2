package plan

import (
	"encoding/binary"
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
