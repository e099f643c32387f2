package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/segments"
)

// A PLAIN page of a fixed-width type (booleans, INT32, INT64, INT96,
// FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY) must hold the bytes of every value
// its levels say is present. parquet-go checks only that its decode
// buffer's capacity could hold them, then slices the values to the count
// the header declares, so a page whose body is short reads as values that
// were never written (zeros, or bytes of an earlier page). floe reads the
// page's header from the file (headers only, never the body) and refuses
// such a page. Where the levels share the compressed body with the values
// (data page v1 of an optional or repeated column), the header bounds the
// values' bytes from above, which still catches a page short by more than
// its level bytes.

// maxPageHeader bounds the bytes one page header may take.
const maxPageHeader = 16 << 20

// plainValueBytes returns, from the file's page headers, how many value
// bytes data page k (0-based, dictionary pages not counted) holds, whether
// that count is exact, and whether the page is PLAIN (false: nothing to
// check). Pages are asked for in order, so the walk goes on from the last
// header read.
func (c *indexCheck) plainValueBytes(k int) (n int64, exact, plain bool, err error) {
	if c == nil {
		return 0, false, false, nil
	}
	if k < c.hdrPage || c.hdrPos == 0 {
		c.hdrPos, c.hdrPage = chunkStart(&c.meta), 0
	}
	end := chunkStart(&c.meta) + c.meta.TotalCompressedSize
	for c.hdrPos < end {
		h, size, err := c.headerAt(c.hdrPos, end)
		if err != nil {
			return 0, false, false, err
		}
		c.hdrPos += int64(size) + int64(h.CompressedPageSize)
		if h.Type != format.DataPage && h.Type != format.DataPageV2 {
			continue
		}
		if c.hdrPage++; c.hdrPage-1 < k {
			continue
		}
		return c.valueBytes(h)
	}
	return 0, false, false, fmt.Errorf("%w: column chunk has no data page %d", segments.ErrCorruptSource, k)
}

// valueBytes reads a data page header's value bytes.
func (c *indexCheck) valueBytes(h *format.PageHeader) (n int64, exact, plain bool, err error) {
	if v2, ok := h.DataPageHeaderV2.Get(); ok {
		levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		return int64(h.UncompressedPageSize) - levels, true, v2.Encoding == format.Plain, nil
	}
	v1, _ := h.DataPageHeader.Get()
	n = int64(h.UncompressedPageSize)
	streams := 0
	if c.maxRep > 0 && v1.RepetitionLevelEncoding == format.RLE {
		streams++
	}
	if c.maxDef > 0 && v1.DefinitionLevelEncoding == format.RLE {
		streams++
	}
	// Each RLE level stream has a 4-byte length prefix and at least one
	// byte; deprecated BIT_PACKED levels have no prefix.
	n -= int64(5 * streams)
	return n, c.maxRep == 0 && c.maxDef == 0, v1.Encoding == format.Plain, nil
}

// headerAt decodes the page header at pos, reading more of the file while
// the header does not fit what was read.
func (c *indexCheck) headerAt(pos, end int64) (*format.PageHeader, int, error) {
	proto := new(thrift.CompactProtocol)
	for want := int64(256); ; want *= 4 {
		buf := make([]byte, min(want, end-pos))
		if _, err := c.r.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, fmt.Errorf("%w: read page header: %v", segments.ErrCorruptSource, err)
		}
		br := bytes.NewReader(buf)
		var h format.PageHeader
		err := thrift.NewDecoder(proto.NewReader(br)).Decode(&h)
		if err == nil {
			if h.CompressedPageSize < 0 {
				return nil, 0, fmt.Errorf("%w: page of %d bytes", segments.ErrCorruptSource, h.CompressedPageSize)
			}
			return &h, len(buf) - br.Len(), nil
		}
		if int64(len(buf)) >= end-pos || want >= maxPageHeader {
			return nil, 0, fmt.Errorf("%w: page header: %v", segments.ErrCorruptSource, err)
		}
	}
}

// fixedWidth returns the bytes one value of kind takes in a PLAIN page
// (booleans: 0, they are bit-packed), and whether kind is fixed-width.
func fixedWidth(kind parquet.Kind, typeLength int) (int, bool) {
	switch kind {
	case parquet.Boolean:
		return 0, true
	case parquet.Int32, parquet.Float:
		return 4, true
	case parquet.Int64, parquet.Double:
		return 8, true
	case parquet.Int96:
		return 12, true
	case parquet.FixedLenByteArray:
		return typeLength, true
	}
	return 0, false
}

// checkPlainBody fails when PLAIN data page k of a fixed-width column
// holds fewer value bytes than its present values need.
func (r *pqLeafReader) checkPlainBody(k int, typ parquet.Type) error {
	width, fixed := fixedWidth(typ.Kind(), typ.Length())
	if !fixed {
		return nil
	}
	have, exact, plain, err := r.check.plainValueBytes(k)
	if err != nil || !plain {
		return err
	}
	present := int64(r.presentLevels())
	need := present * int64(width)
	if width == 0 {
		need = (present + 7) / 8
	}
	if have < need {
		what := "holds"
		if !exact {
			what = "holds at most"
		}
		return fmt.Errorf("%w: PLAIN page %d %s %d bytes of values for %d values of %s", segments.ErrCorruptSource,
			k, what, max(have, 0), present, typ)
	}
	return nil
}
