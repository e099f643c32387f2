package segments

import (
	"bytes"
	"fmt"
	"testing"
)

func TestBytesDict_ID(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3*arenaBlock/2) // a block of its own
	tests := []struct {
		name   string
		values [][]byte
	}{
		{"empty value", [][]byte{{}, []byte("a"), {}}},
		{"repeats", [][]byte{[]byte("a"), []byte("b"), []byte("a"), []byte("b"), []byte("c")}},
		{"prefixes", [][]byte{[]byte("ab"), []byte("a"), []byte("abc"), []byte("ab\x00")}},
		{"huge value", [][]byte{big, []byte("a"), big[:len(big)-1], big}},
	}
	many := make([][]byte, 0, 40_000)
	for i := range 20_000 { // past several table growths, then all again
		many = append(many, []byte(fmt.Sprintf("v%d", i)))
	}
	tests = append(tests, struct {
		name   string
		values [][]byte
	}{"growth", append(many, many...)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newBytesDict()
			want := map[string]int32{}
			for i, v := range tt.values {
				id := d.id(v)
				if w, ok := want[string(v)]; ok && w != id {
					t.Fatalf("value %d: id %d, first seen as %d", i, id, w)
				}
				if _, ok := want[string(v)]; !ok && int(id) != len(want) {
					t.Fatalf("value %d: new value got id %d, want %d", i, id, len(want))
				}
				want[string(v)] = id
			}
			for v, id := range want {
				if d.vals[id] != v {
					t.Fatalf("vals[%d] = %q, want %q", id, d.vals[id], v)
				}
			}
		})
	}
}
