package segments

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// decompress is the reader side of each codec, as Pinot reads it.
func decompress(t *testing.T, id int, b []byte, rawLen int) []byte {
	t.Helper()
	switch id {
	case compPassThrough:
		return b
	case compSnappy:
		out, err := snappy.Decode(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case compZstd:
		// Pinot sizes V4 huge values (always > 4096 bytes) from the frame
		// header: it must carry the content size. Below 256 bytes the
		// encoder may leave it out.
		var h zstd.Header
		if err := h.Decode(b); err != nil {
			t.Fatal(err)
		}
		if rawLen >= 256 && (!h.HasFCS || h.FrameContentSize != uint64(rawLen)) {
			t.Fatalf("zstd frame content size %v/%d, want %d", h.HasFCS, h.FrameContentSize, rawLen)
		}
		d, _ := zstd.NewReader(nil)
		defer d.Close()
		out, err := d.DecodeAll(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case compLZ4:
		out := make([]byte, rawLen)
		n, err := lz4.UncompressBlock(b, out)
		if err != nil {
			t.Fatal(err)
		}
		return out[:n]
	case compLZ4LengthPrefixed:
		n := int(binary.LittleEndian.Uint32(b))
		if n != rawLen {
			t.Fatalf("LZ4 length prefix %d, want %d (LE)", n, rawLen)
		}
		out := make([]byte, n)
		m, err := lz4.UncompressBlock(b[4:], out)
		if err != nil {
			t.Fatal(err)
		}
		return out[:m]
	}
	t.Fatalf("unknown id %d", id)
	return nil
}

func TestCompressor_RoundTrip(t *testing.T) {
	inputs := [][]byte{
		{0},
		[]byte("hello hello hello hello hello hello"),
		bytes.Repeat([]byte{1, 2, 3, 4}, 10000),
	}
	random := make([]byte, 70000) // incompressible: LZ4 must still emit a block
	x := uint32(1)
	for i := range random {
		x = x*1664525 + 1013904223
		random[i] = byte(x >> 24)
	}
	inputs = append(inputs, random)
	for _, id := range []int{compPassThrough, compSnappy, compZstd, compLZ4, compLZ4LengthPrefixed} {
		c, err := newCompressor(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			out, err := c.compress(in)
			if err != nil {
				t.Fatalf("id %d: %v", id, err)
			}
			if got := decompress(t, id, append([]byte(nil), out...), len(in)); !bytes.Equal(got, in) {
				t.Fatalf("id %d: round trip of %d bytes differs", id, len(in))
			}
		}
		c.close()
	}
}

func zstdSize(t *testing.T, b []byte) int {
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		t.Fatal(err)
	}
	if !h.HasFCS {
		return -1
	}
	return int(h.FrameContentSize)
}
