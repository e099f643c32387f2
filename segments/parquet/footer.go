package parquet

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/segments"
)

// footer is a file's schema as floe reads it: parquet-go's column tree
// and, per leaf, the footer's own schema element. parquet-go drops
// annotations it has no type for (FLOAT16) and names physical types it
// does not know "Type(?)"; the element still says what the file holds.
type footer struct {
	root   *parquet.Column
	leaves []format.SchemaElement // by leaf index (parquet.Column.Index)
	md     *format.FileMetaData
}

func newFooter(f *parquet.File) *footer {
	md := f.Metadata()
	ft := &footer{root: f.Root(), md: md}
	for i, el := range md.Schema {
		if n, _ := el.NumChildren.Get(); i > 0 && n == 0 {
			ft.leaves = append(ft.leaves, el)
		}
	}
	return ft
}

// element returns the footer's schema element of a leaf column.
func (ft *footer) element(leaf *parquet.Column) (format.SchemaElement, bool) {
	i := leaf.Index()
	if i < 0 || i >= len(ft.leaves) {
		return format.SchemaElement{}, false
	}
	return ft.leaves[i], true
}

// supportedCodecs are the compression codecs parquet-go decodes.
var supportedCodecs = map[format.CompressionCodec]bool{
	format.Uncompressed: true, format.Snappy: true, format.Gzip: true, format.Brotli: true,
	format.Zstd: true, format.Lz4Raw: true,
}

// checkChunks refuses, before any page is read, a file whose bound leaf
// columns use a compression codec floe cannot decode or are encrypted.
func (ft *footer) checkChunks(binds []pqBinding) error {
	for rg, g := range ft.md.RowGroups {
		for _, b := range binds {
			if b.leaf == nil || b.leaf.Index() >= len(g.Columns) {
				continue
			}
			cc := g.Columns[b.leaf.Index()]
			if cc.CryptoMetadata.Value != nil || len(cc.EncryptedColumnMetadata) > 0 {
				return &segments.SourceError{Column: b.field.Name,
					Err: fmt.Errorf("%w: Parquet column %s is encrypted (row group %d)", segments.ErrUnsupportedInput, b.source, rg)}
			}
			if c := cc.MetaData.Codec; !supportedCodecs[c] {
				return &segments.SourceError{Column: b.field.Name,
					Err: fmt.Errorf("%w: Parquet compression codec %s in column %s, row group %d (floe reads UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW)",
						segments.ErrUnsupportedInput, c, b.source, rg)}
			}
		}
	}
	return nil
}
