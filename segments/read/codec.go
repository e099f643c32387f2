package read

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// chunkCodecNames names Pinot's chunk compression type ids (format: never
// change).
var chunkCodecNames = map[int]string{
	0: "PASS_THROUGH", 1: "SNAPPY", 2: "ZSTANDARD", 3: "LZ4", 4: "LZ4_LENGTH_PREFIXED", 5: "GZIP",
	6: "DELTA", 7: "DELTADELTA",
}

func codecName(id int) string {
	if n, ok := chunkCodecNames[id]; ok {
		return n
	}
	return fmt.Sprintf("codec %d", id)
}

// chunkDecoder decompresses chunks of one forward index.
type chunkDecoder struct {
	codec int
	// maxSize bounds a decompressed chunk (needed by raw LZ4 blocks).
	maxSize int
	// gzipOrder is the byte order of the length GZIP chunks carry.
	gzipOrder binary.ByteOrder
	zstd      *zstd.Decoder
}

func newChunkDecoder(codec, maxSize int, gzipOrder binary.ByteOrder) (*chunkDecoder, error) {
	d := &chunkDecoder{codec: codec, maxSize: maxSize, gzipOrder: gzipOrder}
	switch codec {
	case 0, 1, 3, 4, 5, 6, 7:
	case 2:
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<31))
		if err != nil {
			return nil, fmt.Errorf("new zstd decoder: %w", err)
		}
		d.zstd = z
	default:
		return nil, fmt.Errorf("%w: chunk compression %s", ErrUnsupported, codecName(codec))
	}
	return d, nil
}

func (d *chunkDecoder) close() {
	if d.zstd != nil {
		d.zstd.Close()
	}
}

// decode returns the decompressed chunk.
func (d *chunkDecoder) decode(src []byte) ([]byte, error) {
	switch d.codec {
	case 0:
		return src, nil
	case 1:
		out, err := snappy.Decode(nil, src)
		if err != nil {
			return nil, fmt.Errorf("%w: snappy chunk: %v", ErrCorrupt, err)
		}
		return out, nil
	case 2:
		out, err := d.zstd.DecodeAll(src, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: zstd chunk: %v", ErrCorrupt, err)
		}
		return out, nil
	case 3:
		return lz4Block(src, d.maxSize)
	case 4:
		if len(src) < 4 {
			return nil, fmt.Errorf("%w: short LZ4 chunk", ErrCorrupt)
		}
		return lz4Block(src[4:], int(binary.LittleEndian.Uint32(src)))
	case 5:
		return d.gunzip(src)
	case 6, 7:
		return undelta(src, d.codec == 7)
	}
	return nil, fmt.Errorf("%w: chunk compression %s", ErrUnsupported, codecName(d.codec))
}

func lz4Block(src []byte, size int) ([]byte, error) {
	if size < 0 || size > 1<<31 {
		return nil, fmt.Errorf("%w: LZ4 chunk size %d", ErrCorrupt, size)
	}
	out := make([]byte, size)
	n, err := lz4.UncompressBlock(src, out)
	if err != nil {
		return nil, fmt.Errorf("%w: LZ4 chunk: %v", ErrCorrupt, err)
	}
	return out[:n], nil
}

// gunzip reads a zlib stream followed by the 4-byte decompressed length.
func (d *chunkDecoder) gunzip(src []byte) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("%w: short GZIP chunk", ErrCorrupt)
	}
	want := int(d.gzipOrder.Uint32(src[len(src)-4:]))
	r, err := zlib.NewReader(bytes.NewReader(src[:len(src)-4]))
	if err != nil {
		return nil, fmt.Errorf("%w: GZIP chunk: %v", ErrCorrupt, err)
	}
	out, err := io.ReadAll(r)
	if err != nil || len(out) != want {
		return nil, fmt.Errorf("%w: GZIP chunk: %d bytes, want %d (%v)", ErrCorrupt, len(out), want, err)
	}
	return out, nil
}

// undelta decodes Pinot's DELTA (6) and DELTADELTA (7) chunks of
// fixed-width integers: a type byte (0 INT, 1 LONG), a BE int count, the
// first value, then a BE int size and an LZ4 block of BE deltas (for
// DELTADELTA: the first delta, then differences between deltas). The
// result is the big-endian values.
func undelta(src []byte, deltaOfDelta bool) ([]byte, error) {
	if len(src) < 5 || src[0] > 1 {
		return nil, fmt.Errorf("%w: delta chunk header", ErrCorrupt)
	}
	width := 4 << src[0]
	n := int(int32(binary.BigEndian.Uint32(src[1:])))
	if n < 0 || n > 1<<28 {
		return nil, fmt.Errorf("%w: delta chunk of %d values", ErrCorrupt, n)
	}
	out := make([]byte, n*width)
	if n == 0 {
		return out, nil
	}
	rest := src[5:]
	if len(rest) < width {
		return nil, fmt.Errorf("%w: delta chunk first value", ErrCorrupt)
	}
	copy(out, rest[:width])
	if n == 1 {
		return out, nil
	}
	rest = rest[width:]
	if len(rest) < 4 || int(binary.BigEndian.Uint32(rest)) > len(rest)-4 {
		return nil, fmt.Errorf("%w: delta chunk size", ErrCorrupt)
	}
	deltas, err := lz4Block(rest[4:4+int(binary.BigEndian.Uint32(rest))], (n-1)*width)
	if err != nil || len(deltas) != (n-1)*width {
		return nil, fmt.Errorf("%w: delta chunk deltas (%v)", ErrCorrupt, err)
	}
	get := func(b []byte, i int) int64 {
		if width == 4 {
			return int64(int32(binary.BigEndian.Uint32(b[4*i:])))
		}
		return int64(binary.BigEndian.Uint64(b[8*i:]))
	}
	put := func(i int, v int64) {
		if width == 4 {
			binary.BigEndian.PutUint32(out[4*i:], uint32(v))
		} else {
			binary.BigEndian.PutUint64(out[8*i:], uint64(v))
		}
	}
	prev, step := get(out, 0), int64(0)
	for i := 1; i < n; i++ {
		d := get(deltas, i-1)
		if deltaOfDelta && i > 1 {
			d += step
		}
		prev, step = prev+d, d
		if width == 4 {
			prev = int64(int32(prev))
		}
		put(i, prev)
	}
	return out, nil
}
