package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/segments"
)

// indexCheck verifies, from the file's own bytes, that a dictionary-encoded
// data page holds as many indexes as it has values. parquet-go pads a
// short index stream with index 0 (some writers drop the stream when every
// index is 0, which is only valid for a one-entry dictionary), so a page
// cut short would read as made-up copies of the first dictionary entry.
// Padding can only end a page with index 0, so the reader asks only about
// such pages, and the chunk is read once per row group when it does.
type indexCheck struct {
	r      io.ReaderAt
	meta   format.ColumnMetaData
	maxRep int
	maxDef int
	chunk  []byte // the column chunk's bytes, read on first use

	// plainValueBytes walks the chunk's page headers in order from here.
	hdrPos  int64 // offset of the next page header (0: not started)
	hdrPage int   // data pages walked so far
}

func newIndexCheck(r io.ReaderAt, md *format.FileMetaData, rg int, leaf *parquet.Column) *indexCheck {
	if rg >= len(md.RowGroups) || leaf.Index() >= len(md.RowGroups[rg].Columns) {
		return nil
	}
	return &indexCheck{r: r, meta: md.RowGroups[rg].Columns[leaf.Index()].MetaData,
		maxRep: leaf.MaxRepetitionLevel(), maxDef: leaf.MaxDefinitionLevel()}
}

// check fails when data page k (0-based, dictionary pages not counted)
// encodes fewer than want indexes.
func (c *indexCheck) check(k, want int) error {
	if c == nil {
		return nil
	}
	h, body, err := c.dataPage(k)
	if err != nil {
		return err
	}
	data, err := c.indexData(h, body)
	if err != nil || data == nil {
		return err
	}
	if n := countIndexes(data); n < want {
		return fmt.Errorf("%w: dictionary-encoded page %d holds %d indexes for %d values", segments.ErrCorruptSource, k, n, want)
	}
	return nil
}

// dataPage returns the header and body of data page k of the chunk.
func (c *indexCheck) dataPage(k int) (format.PageHeader, []byte, error) {
	if c.chunk == nil {
		start := c.meta.DataPageOffset
		if c.meta.DictionaryPageOffset > 0 && c.meta.DictionaryPageOffset < start {
			start = c.meta.DictionaryPageOffset
		}
		c.chunk = make([]byte, c.meta.TotalCompressedSize)
		if _, err := c.r.ReadAt(c.chunk, start); err != nil {
			return format.PageHeader{}, nil, fmt.Errorf("%w: read column chunk: %v", segments.ErrCorruptSource, err)
		}
	}
	var (
		found format.PageHeader
		body  []byte
		page  int
	)
	err := walkPages(c.chunk, func(h *format.PageHeader, _ int, b []byte) (bool, error) {
		if h.Type != format.DataPage && h.Type != format.DataPageV2 {
			return true, nil
		}
		if page == k {
			found, body = *h, b
			return false, nil
		}
		page++
		return true, nil
	})
	if err != nil || body != nil {
		return found, body, err
	}
	return format.PageHeader{}, nil, fmt.Errorf("%w: column chunk has no data page %d", segments.ErrCorruptSource, k)
}

// indexData returns the RLE/bit-packed index stream of a page (bit width
// byte first), or nil when the page is not one floe can check.
func (c *indexCheck) indexData(h format.PageHeader, body []byte) ([]byte, error) {
	codec := parquet.LookupCompressionCodec(c.meta.Codec)
	if v1, ok := h.DataPageHeader.Get(); ok {
		if v1.DefinitionLevelEncoding != format.RLE || (c.maxRep > 0 && v1.RepetitionLevelEncoding != format.RLE) {
			return nil, nil // deprecated BIT_PACKED levels: no length prefix to skip
		}
		data, err := codec.Decode(nil, body)
		if err != nil {
			return nil, fmt.Errorf("%w: decompress page: %v", segments.ErrCorruptSource, err)
		}
		for _, has := range []bool{c.maxRep > 0, c.maxDef > 0} {
			if !has {
				continue
			}
			if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) > len(data)-4 {
				return nil, errors.New("page levels past the page")
			}
			data = data[4+binary.LittleEndian.Uint32(data):]
		}
		return data, nil
	}
	v2, ok := h.DataPageHeaderV2.Get()
	if !ok {
		return nil, nil
	}
	skip := int(v2.RepetitionLevelsByteLength) + int(v2.DefinitionLevelsByteLength)
	if skip < 0 || skip > len(body) {
		return nil, fmt.Errorf("%w: page levels past the page", segments.ErrCorruptSource)
	}
	data := body[skip:]
	if compressed, set := v2.IsCompressed.Get(); (compressed || !set) && c.meta.Codec != format.Uncompressed {
		var err error
		if data, err = codec.Decode(nil, data); err != nil {
			return nil, fmt.Errorf("%w: decompress page: %v", segments.ErrCorruptSource, err)
		}
	}
	return data, nil
}

// countIndexes counts the values an RLE/bit-packed hybrid stream encodes
// (a bit-packed run counts its whole groups of 8), after its bit width byte.
func countIndexes(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	width := int(data[0])
	data = data[1:]
	n := 0
	for len(data) > 0 {
		h, k := binary.Uvarint(data)
		if k <= 0 {
			break
		}
		data = data[k:]
		var size int
		if h&1 == 1 {
			groups := int(h >> 1)
			size = groups * width
			if size > len(data) { // cut short: only whole values count
				return n + len(data)*8/max(width, 1)
			}
			n += 8 * groups
		} else {
			n += int(h >> 1)
			size = (width + 7) / 8
		}
		if size > len(data) {
			break
		}
		data = data[size:]
	}
	return n
}
