package read

import "errors"

// Errors the reader reports; test with errors.Is. Messages name the
// segment and the column.
var (
	// ErrCorrupt: the segment's bytes do not decode.
	ErrCorrupt = errors.New("corrupt segment")
	// ErrUnsupported: the segment uses a layout or codec floe does not
	// read (for example Pinot's CLP raw codecs).
	ErrUnsupported = errors.New("unsupported")
	// ErrMissingFile: a file the segment needs is not there.
	ErrMissingFile = errors.New("missing file")
	// ErrNoColumn: the segment has no column of that name.
	ErrNoColumn = errors.New("no such column")
)
