package segments

import (
	"encoding/binary"
	"fmt"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Chunk compression type ids (ChunkCompressionType; format: never change).
const (
	compPassThrough       = 0
	compSnappy            = 1
	compZstd              = 2
	compLZ4               = 3 // raw LZ4 block, no length (fixed-width chunk formats)
	compLZ4LengthPrefixed = 4 // 4-byte LE decompressed length + LZ4 block (var-byte V4)
)

var compressionIDs = map[string]int{PassThrough: compPassThrough, Snappy: compSnappy, Zstandard: compZstd, LZ4: compLZ4}

// compressor compresses one chunk at a time. Not safe for concurrent use.
type compressor struct {
	id  int
	zw  *zstd.Encoder
	lz  lz4.Compressor
	out []byte
}

func newCompressor(id int) (*compressor, error) {
	c := &compressor{id: id}
	if id == compZstd {
		zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return nil, fmt.Errorf("new zstd encoder: %w", err)
		}
		c.zw = zw
	}
	return c, nil
}

// compress returns the compressed form of src; the result is valid until
// the next call.
func (c *compressor) compress(src []byte) ([]byte, error) {
	switch c.id {
	case compPassThrough:
		return src, nil
	case compSnappy:
		c.out = snappy.Encode(c.out[:cap(c.out)], src)
		return c.out, nil
	case compZstd:
		// EncodeAll writes Frame_Content_Size, which V4 huge chunks need.
		c.out = c.zw.EncodeAll(src, c.out[:0])
		return c.out, nil
	case compLZ4, compLZ4LengthPrefixed:
		hdr := 0
		if c.id == compLZ4LengthPrefixed {
			hdr = 4
		}
		need := hdr + lz4.CompressBlockBound(len(src))
		if cap(c.out) < need {
			c.out = make([]byte, need)
		}
		c.out = c.out[:need]
		// A destination of CompressBlockBound size never gets the
		// "incompressible" (0, nil) answer.
		n, err := c.lz.CompressBlock(src, c.out[hdr:])
		if err != nil {
			return nil, fmt.Errorf("lz4 compress: %w", err)
		}
		if n == 0 && len(src) > 0 {
			return nil, fmt.Errorf("lz4 compress: no output for %d bytes", len(src))
		}
		if hdr > 0 {
			binary.LittleEndian.PutUint32(c.out, uint32(len(src)))
		}
		return c.out[:hdr+n], nil
	}
	return nil, fmt.Errorf("unknown compression id %d", c.id)
}

func (c *compressor) close() {
	if c.zw != nil {
		c.zw.Close()
	}
}
