package segments

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func TestBitsPerElement(t *testing.T) {
	for card, want := range map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 8: 3, 9: 4, 1 << 20: 20, 1<<20 + 1: 21} {
		if got := bitsPerElement(card); got != want {
			t.Errorf("bitsPerElement(%d) = %d, want %d", card, got, want)
		}
	}
}

// The spec's fixture: 5 docs, b=3, ids 4,2,3,0,1 → 89 82 (doc.go, forward index).
func TestWriteUnsortedSV_SpecFixture(t *testing.T) {
	var buf bytes.Buffer
	if err := writeUnsortedSV(&buf, []int32{4, 2, 3, 0, 1}, 3); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(buf.Bytes()); got != "8982" {
		t.Fatalf("packed = %s, want 8982", got)
	}
}

func TestWriteUnsortedSV_Widths(t *testing.T) {
	for b := 1; b <= 31; b++ {
		n := 1000
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32((i * 2654435761) & (1<<b - 1))
		}
		var buf bytes.Buffer
		if err := writeUnsortedSV(&buf, ids, b); err != nil {
			t.Fatal(err)
		}
		if want := (n*b + 7) / 8; buf.Len() != want {
			t.Fatalf("b=%d: %d bytes, want %d", b, buf.Len(), want)
		}
		// Read back MSB-first.
		data := buf.Bytes()
		for i, id := range ids {
			var v int32
			for k := 0; k < b; k++ {
				bit := i*b + k
				v = v<<1 | int32(data[bit/8]>>(7-bit%8)&1)
			}
			if v != id {
				t.Fatalf("b=%d doc %d: read %d, want %d", b, i, v, id)
			}
		}
	}
}

func TestWriteSortedSV(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSortedSV(&buf, []int32{0, 0, 1, 2, 2, 2}, 3); err != nil {
		t.Fatal(err)
	}
	want := "00000000" + "00000001" + "00000002" + "00000002" + "00000003" + "00000005"
	if got := hex.EncodeToString(buf.Bytes()); got != want {
		t.Fatalf("sorted fwd = %s, want %s", got, want)
	}
}

// docsPerChunk = ceil(float32(2048) / float32(total/numDocs)), integer division inside.
func TestMVDocsPerChunk(t *testing.T) {
	cases := []struct {
		docs  int
		total int64
		want  int
	}{
		{1, 1, 2048}, {10, 10, 2048}, {10, 29, 1024}, {3, 10, 683}, {7, 20000 * 7, 1}, {100, 300, 683}, {1000, 7000, 293},
	}
	for _, c := range cases {
		if got := mvDocsPerChunk(c.docs, c.total); got != c.want {
			t.Errorf("mvDocsPerChunk(%d, %d) = %d, want %d", c.docs, c.total, got, c.want)
		}
	}
}

func TestWriteMV(t *testing.T) {
	// 3 docs: [1,0], [2], [0,1,2]; card 3 → b=2.
	var buf bytes.Buffer
	if err := writeMV(&buf, []int32{2, 1, 3}, []int32{1, 0, 2, 0, 1, 2}, 2); err != nil {
		t.Fatal(err)
	}
	// avg = 6/3 = 2 → docsPerChunk 1024 → 1 chunk: offset 0.
	// bitmap: values 6 → bits 1 0 1 1 0 0 → 0xB0.
	// ids 01 00 10 00 | 01 10 → 0x48 0x60.
	if got, want := hex.EncodeToString(buf.Bytes()), "00000000"+"b0"+"4860"; got != want {
		t.Fatalf("mv fwd = %s, want %s", got, want)
	}
}
