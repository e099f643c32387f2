package segments

import (
	"archive/tar"

	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/klauspost/compress/gzip"
)

// WriteTarGz writes segmentDir as a gzip-compressed POSIX tar whose first
// entry is the segment directory itself ("<name>/"), then its contents
// depth-first in name order (S4). Entry times are the Unix epoch so the same
// directory gives the same bytes.
//
// The gzip stream is one member (Pinot's untar reads only the first) of
// standard deflate written by klauspost/compress's stateless compressor:
// about half the CPU of the standard library's fastest level, and a
// smaller file on segment bytes (docs/benchmarks.md, "tarball cost").
func WriteTarGz(ctx context.Context, segmentDir string, w io.Writer) error {
	root := filepath.Clean(segmentDir)
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("tar segment: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("tar segment: %s is not a directory", root)
	}
	gz, err := gzip.NewWriterLevel(w, gzip.StatelessCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	if err := tarDir(ctx, tw, root, filepath.Base(root)); err != nil {
		return fmt.Errorf("tar segment %s: %w", root, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("tar segment %s: %w", root, err)
	}
	return gz.Close()
}

func tarDir(ctx context.Context, tw *tar.Writer, dir, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	epoch := time.Unix(0, 0)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: epoch,
		Format: tar.FormatPAX}); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		p, n := filepath.Join(dir, e.Name()), name+"/"+e.Name()
		if e.IsDir() {
			if err := tarDir(ctx, tw, p, n); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		if err := tarFile(tw, p, n, epoch); err != nil {
			return err
		}
	}
	return nil
}

func tarFile(tw *tar.Writer, path, name string, mtime time.Time) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: st.Size(),
		ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
