package segments

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

// readFixedChunks decodes chunk format v4 the way Pinot's reader does.
func readFixedChunks(t *testing.T, b []byte) (vals [][]byte, comp int) {
	t.Helper()
	be := binary.BigEndian
	if v := be.Uint32(b); v != 4 {
		t.Fatalf("version %d", v)
	}
	numChunks, dpc, size, docs := int(be.Uint32(b[4:])), int(be.Uint32(b[8:])), int(be.Uint32(b[12:])), int(be.Uint32(b[16:]))
	comp = int(be.Uint32(b[20:]))
	if be.Uint32(b[24:]) != 28 || dpc != 1024 {
		t.Fatalf("dataHeaderStart %d, docsPerChunk %d", be.Uint32(b[24:]), dpc)
	}
	if int(be.Uint64(b[28:])) != 28+8*numChunks {
		t.Fatalf("first chunk at %d, want right after the offsets", be.Uint64(b[28:]))
	}
	for k := 0; k < numChunks; k++ {
		start := int(be.Uint64(b[28+8*k:]))
		end := len(b)
		if k+1 < numChunks {
			end = int(be.Uint64(b[28+8*(k+1):]))
		}
		n := min(dpc, docs-k*dpc)
		raw := decompress(t, comp, b[start:end], n*size)
		for i := 0; i < n; i++ {
			vals = append(vals, raw[i*size:(i+1)*size])
		}
	}
	if len(vals) != docs {
		t.Fatalf("%d values, want %d", len(vals), docs)
	}
	return vals, comp
}

func TestWriteFixedChunks(t *testing.T) {
	for _, comp := range []int{compPassThrough, compSnappy, compZstd, compLZ4} {
		for _, n := range []int{1, 1023, 1024, 1025, 3000} {
			var buf bytes.Buffer
			err := writeFixedChunks(&buf, t.TempDir(), n, 8, comp, func(dst []byte, from, to int) []byte {
				for r := from; r < to; r++ {
					dst = binary.BigEndian.AppendUint64(dst, uint64(r*r))
				}
				return dst
			})
			if err != nil {
				t.Fatal(err)
			}
			vals, gotComp := readFixedChunks(t, buf.Bytes())
			if gotComp != comp {
				t.Fatalf("compression id %d, want %d", gotComp, comp)
			}
			for r, v := range vals {
				if binary.BigEndian.Uint64(v) != uint64(r*r) {
					t.Fatalf("comp %d n %d row %d: %x", comp, n, r, v)
				}
			}
		}
	}
}

// readVarByteV4 decodes the V4 layout the way Pinot's reader does.
func readVarByteV4(t *testing.T, b []byte) (rows [][]byte, chunkSize, comp int) {
	t.Helper()
	be, le := binary.BigEndian, binary.LittleEndian
	if be.Uint32(b) != 4 {
		t.Fatalf("version %d", be.Uint32(b))
	}
	chunkSize, comp = int(be.Uint32(b[4:])), int(be.Uint32(b[8:]))
	chunksStart := int(be.Uint32(b[12:]))
	numChunks := (chunksStart - 16) / 8
	for k := 0; k < numChunks; k++ {
		first := le.Uint32(b[16+8*k:])
		start := chunksStart + int(le.Uint32(b[20+8*k:]))
		end := len(b)
		if k+1 < numChunks {
			end = chunksStart + int(le.Uint32(b[28+8*k:]))
		}
		if int(first&0x7fffffff) != len(rows) {
			t.Fatalf("chunk %d firstDocId %d, want %d", k, first&0x7fffffff, len(rows))
		}
		if first&0x80000000 != 0 { // huge: the value alone
			rows = append(rows, decompressAny(t, comp, b[start:end]))
			continue
		}
		raw := decompressAny(t, comp, b[start:end])
		if len(raw) > chunkSize {
			t.Fatalf("chunk %d decompresses to %d > chunk size %d", k, len(raw), chunkSize)
		}
		n := int(le.Uint32(raw))
		for i := 0; i < n; i++ {
			s := int(le.Uint32(raw[4+4*i:]))
			e := len(raw)
			if i+1 < n {
				e = int(le.Uint32(raw[8+4*i:]))
			}
			rows = append(rows, raw[s:e])
		}
	}
	return rows, chunkSize, comp
}

// decompressAny decompresses without knowing the size (as Pinot does for V4).
func decompressAny(t *testing.T, comp int, b []byte) []byte {
	switch comp {
	case compLZ4LengthPrefixed:
		return decompress(t, comp, b, int(binary.LittleEndian.Uint32(b)))
	case compZstd:
		return decompress(t, comp, b, zstdSize(t, b))
	}
	return decompress(t, comp, b, 0)
}

func TestVarByteWriter_HugeValues(t *testing.T) {
	for _, comp := range []int{compPassThrough, compSnappy, compZstd, compLZ4} {
		chunk := varByteChunkSize(5000)
		if chunk != 1<<20 {
			t.Fatalf("chunk size %d", chunk)
		}
		vw, err := newVarByteWriter(t.TempDir(), 4096, comp)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]byte
		for r := 0; r < 300; r++ {
			n := r % 40
			switch r % 50 {
			case 7:
				n = 4088 // 8 + 4088 = 4096: still fits an empty chunk
			case 8:
				n = 4089 // does not: huge chunk
			case 9:
				n = 100000
			}
			v := bytes.Repeat([]byte{byte(r)}, n)
			want = append(want, v)
			if err := vw.put(v); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		if err := vw.close(&buf); err != nil {
			t.Fatal(err)
		}
		rows, cs, gotComp := readVarByteV4(t, buf.Bytes())
		wantComp := comp
		if comp == compLZ4 {
			wantComp = compLZ4LengthPrefixed
		}
		if cs != 4096 || gotComp != wantComp {
			t.Fatalf("header chunkSize %d comp %d", cs, gotComp)
		}
		if len(rows) != len(want) {
			t.Fatalf("comp %d: %d rows, want %d", comp, len(rows), len(want))
		}
		for i := range want {
			if !bytes.Equal(rows[i], want[i]) {
				t.Fatalf("comp %d row %d: %d bytes, want %d", comp, i, len(rows[i]), len(want[i]))
			}
		}
	}
}

func TestVarByteChunkSize(t *testing.T) {
	for maxLen, want := range map[int]int{0: 4096, 4: 4096, 5: 5000, 1000: 1000000, 1049: 1 << 20, 1 << 30: 1 << 20} {
		if got := varByteChunkSize(maxLen); got != want {
			t.Errorf("varByteChunkSize(%d) = %d, want %d", maxLen, got, want)
		}
	}
}

var _ = fmt.Sprint
