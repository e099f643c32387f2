package pinot

import (
	"context"
	"errors"
	"strconv"
)

// Segment is a built segment ready to push: its name and its .tar.gz.
type Segment struct {
	Name    string
	TarPath string
}

// Uploader is what the watcher needs from Pinot. Implementations:
// Controller (a real cluster) and LocalDir (a directory of tarballs).
type Uploader interface {
	// EnsureTable creates or updates the schema, then creates the table
	// when it does not exist.
	EnsureTable(ctx context.Context, schema *Schema, table *TableConfig) error
	// ListSegments returns the segments Pinot serves for the raw table.
	ListSegments(ctx context.Context, table string) ([]string, error)
	// Replace atomically swaps the segments named in from for the segments
	// in to: queries see either all of from or all of to, never a mix.
	// from may be empty (pure addition) and to may be empty (pure removal).
	Replace(ctx context.Context, table string, from []string, to []Segment) error
}

// ErrTableMissing: the table does not exist in Pinot.
var ErrTableMissing = errors.New("pinot table does not exist")

// APIError is a non-2xx answer from a Pinot REST endpoint.
type APIError struct {
	Op     string
	Status int
	Body   string
}

func (e *APIError) Error() string {
	return e.Op + ": HTTP " + strconv.Itoa(e.Status) + ": " + e.Body
}
