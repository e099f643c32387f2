package catalog

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"net/url"
	"strings"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// localGuard keeps what a table's FileIO reads from floe's own disk within
// the policy's LocalRoots. A connection's config names one local path at
// most (a sqlite file or a Hadoop warehouse, checked by [Policy.Check]),
// but the catalog names every file after that: a REST, Glue or sqlite
// catalog can answer a file:// metadata location, and any table's
// manifests can name a local data file. Each such read is checked when it
// happens. Reads through a remote FileIO (s3://) are not local and pass.
type localGuard struct {
	roots allowedRoots // resolved once, when the connection opens
}

// wrap returns tbl with its FileIO guarded; a nil guard (a Config that
// did not go through [Policy.Resolve]) leaves tbl as it is. The result is
// read-only, like every table a Catalog returns.
func (g *localGuard) wrap(tbl *table.Table) *table.Table {
	if g == nil {
		return tbl
	}
	inner := tbl.FS
	fsF := func(ctx context.Context) (iceio.IO, error) {
		fs, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		return g.guard(fs), nil
	}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), fsF, nil)
}

// guard returns fs checked against the roots when it reads floe's own
// disk, and fs itself otherwise (or when g is nil).
func (g *localGuard) guard(fs iceio.IO) iceio.IO {
	if g == nil || !isLocalFS(fs) {
		return fs
	}
	return guardedIO{inner: fs, roots: g.roots}
}

// isLocalFS reports whether fs reads floe's own disk.
func isLocalFS(fs iceio.IO) bool {
	switch fs.(type) {
	case iceio.LocalFS, *iceio.LocalFS:
		return true
	}
	return false
}

// guardedIO is a local FileIO that opens only files under roots.
type guardedIO struct {
	inner iceio.IO
	roots allowedRoots
}

var _ iceio.ReadFileIO = guardedIO{}

func (g guardedIO) Open(name string) (iceio.File, error) {
	path, err := g.resolve(name)
	if err != nil {
		return nil, err
	}
	return g.inner.Open(path)
}

func (g guardedIO) ReadFile(name string) ([]byte, error) {
	path, err := g.resolve(name)
	if err != nil {
		return nil, err
	}
	if r, ok := g.inner.(iceio.ReadFileIO); ok {
		return r.ReadFile(path)
	}
	f, err := g.inner.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return stdio.ReadAll(f)
}

// Remove is refused: floe never changes a table's files.
func (g guardedIO) Remove(name string) error {
	return &Error{Op: "remove", Resource: name, Kind: ErrAccessDenied, Err: errors.New("floe only reads tables")}
}

// resolve returns the real path (absolute, symlinks followed) of the local
// file name names, or an error naming the file and the setting that would
// allow it when it lies outside the roots. The file is opened by that
// path, so what was checked is what is read.
func (g guardedIO) resolve(name string) (string, error) {
	path, err := localPath(name)
	if err == nil {
		path, err = g.roots.admit(path)
	}
	if err != nil {
		return "", &Error{Op: "open local file", Resource: name, Kind: ErrAccessDenied,
			Err: fmt.Errorf("%w; the catalog named a file on floe's machine, and only files under security.localRoots are read", err)}
	}
	return path, nil
}

// localPath returns the path a local FileIO reads for name: the path of a
// file: URL (on this host), or name itself.
func localPath(name string) (string, error) {
	if len(name) < 5 || !strings.EqualFold(name[:5], "file:") {
		return name, nil
	}
	u, err := url.Parse(name)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s is not a valid file URL", name)
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return "", fmt.Errorf("%s names another host", name)
	case u.Path == "":
		return "", fmt.Errorf("%s has no path", name)
	}
	return u.Path, nil
}
