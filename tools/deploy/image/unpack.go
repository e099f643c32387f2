package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// Unpack writes the image's flattened root filesystem into dir, as a
// container runtime would: modes kept, owners kept when the caller may
// set them (root), symlinks as symlinks.
func Unpack(img v1.Image, dir string) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	chown := os.Geteuid() == 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read image filesystem: %w", err)
		}
		if err := unpackEntry(tr, h, dir, chown); err != nil {
			return fmt.Errorf("unpack %s: %w", h.Name, err)
		}
	}
}

func unpackEntry(r io.Reader, h *tar.Header, dir string, chown bool) error {
	name := filepath.Clean("/" + h.Name)
	if strings.Contains(h.Name, "..") {
		return errors.New("path leaves the root")
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(h.Mode & 0o777)
	if h.Mode&0o1000 != 0 {
		mode |= os.ModeSticky
	}
	switch h.Typeflag {
	case tar.TypeDir:
		if err := os.MkdirAll(p, mode); err != nil {
			return err
		}
	case tar.TypeSymlink:
		return os.Symlink(h.Linkname, p)
	case tar.TypeReg:
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unexpected entry type %c", h.Typeflag)
	}
	if err := os.Chmod(p, mode); err != nil {
		return err
	}
	if chown {
		return os.Lchown(p, h.Uid, h.Gid)
	}
	return nil
}
