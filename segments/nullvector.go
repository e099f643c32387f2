package segments

import (
	"io"

	"github.com/RoaringBitmap/roaring/v2"
)

// writeNullVector writes <col>.bitmap.nullvalue: one portable RoaringBitmap
// of the docs whose value was null, nothing else.
func writeNullVector(w io.Writer, nulls *roaring.Bitmap) error {
	nulls.RunOptimize()
	_, err := nulls.WriteTo(w)
	return err
}
