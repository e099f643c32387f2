package pinot

import "context"

// DeepStore holds segment tarballs where Pinot servers download them
// (metadata push). Implementations ask the Guard in ctx before every
// mutating attempt, like the Uploaders.
type DeepStore interface {
	// URI is where the tarball of segment lives: <uri>/<table>/<segment>.tar.gz,
	// sent to the controller as DOWNLOAD_URI.
	URI(table, segment string) string
	// Put stores the tarball at tarPath under URI(table, segment),
	// replacing what is there.
	Put(ctx context.Context, table, segment, tarPath string) error
	// Delete removes the tarballs of segments; missing ones are no error.
	Delete(ctx context.Context, table string, segments []string) error
}
