package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// entry is one file, directory or symlink of a layer.
type entry struct {
	name   string // absolute path in the image
	mode   int64
	uid    int
	dir    bool
	link   string // symlink target
	source string // host file to copy (regular files)
	data   []byte // or its bytes
}

// layerOf writes entries, sorted by name with every parent directory
// first, as an OCI gzip layer whose file times are mtime.
func layerOf(entries []entry, mtime time.Time) (v1.Layer, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := writeEntry(tw, e, mtime); err != nil {
			return nil, fmt.Errorf("write %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close layer: %w", err)
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer))
}

func writeEntry(tw *tar.Writer, e entry, mtime time.Time) error {
	h := &tar.Header{Name: e.name[1:], Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime, Format: tar.FormatPAX}
	switch {
	case e.dir:
		h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		return tw.WriteHeader(h)
	case e.link != "":
		h.Typeflag, h.Linkname = tar.TypeSymlink, e.link
		return tw.WriteHeader(h)
	}
	data := e.data
	if e.source != "" {
		var err error
		if data, err = os.ReadFile(e.source); err != nil {
			return err
		}
	}
	h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

// dirs returns the directories of the image's base, with their owners.
func dirs() []entry {
	out := []entry{{name: "/tmp", mode: 0o1777, dir: true}, {name: "/home/nonroot", mode: 0o750, uid: UID, dir: true},
		{name: DataDir, mode: 0o750, uid: UID, dir: true}}
	for _, d := range []string{"/etc", "/etc/ssl", "/etc/ssl/certs", "/home", "/usr", "/usr/share", "/usr/local",
		"/usr/local/bin", "/var", "/var/lib"} {
		out = append(out, entry{name: d, mode: 0o755, dir: true})
	}
	return out
}

// treeEntries copies the host tree at root into the image under at:
// directories, regular files and symlinks (kept as links).
func treeEntries(root, at string) ([]entry, error) {
	var out []entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := path.Join(at, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			out = append(out, entry{name: name, mode: 0o755, dir: true})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out = append(out, entry{name: name, mode: 0o777, link: target})
		case d.Type().IsRegular():
			out = append(out, entry{name: name, mode: 0o644, source: p})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	return out, nil
}
