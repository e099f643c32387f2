package pinot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"
)

// The two files of a segment a metadata push sends (format: never change;
// they are Pinot's V1Constants names).
const (
	metadataFile     = "metadata.properties"
	creationMetaFile = "creation.meta"
)

// segmentMetadataTarGz reads metadata.properties and creation.meta out of a
// segment tarball and returns the small tar.gz a metadata push sends: one
// directory (the controller takes the first entry as the segment
// directory) holding the two files. Like Pinot's push tool, it takes the
// first entry of each name, wherever it sits (v3/ in floe's tarballs).
func segmentMetadataTarGz(tarPath, segment string) ([]byte, error) {
	files, err := extractFiles(tarPath, metadataFile, creationMetaFile)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	epoch := time.Unix(0, 0)
	dir := segment + "/"
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: epoch}); err != nil {
		return nil, fmt.Errorf("write metadata tarball: %w", err)
	}
	for _, name := range []string{metadataFile, creationMetaFile} {
		b := files[name]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: dir + name, Mode: 0o644, Size: int64(len(b)), ModTime: epoch}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("write metadata tarball: %w", err)
		}
		if _, err := tw.Write(b); err != nil {
			return nil, fmt.Errorf("write metadata tarball: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write metadata tarball: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("write metadata tarball: %w", err)
	}
	return buf.Bytes(), nil
}

// maxMetadataFile bounds what extractFiles reads of one file.
const maxMetadataFile = 64 << 20

// extractFiles returns the contents of the first tar entry with each base
// name in names, reading the gzipped tarball at tarPath until it has all.
func extractFiles(tarPath string, names ...string) (map[string][]byte, error) {
	f, err := os.Open(tarPath)
	if err != nil {
		return nil, fmt.Errorf("read segment tarball: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read segment tarball %s: %w", tarPath, err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string][]byte{}
	tr := tar.NewReader(gz)
	for len(out) < len(want) {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read segment tarball %s: %w", tarPath, err)
		}
		base := path.Base(hdr.Name)
		if hdr.Typeflag != tar.TypeReg || !want[base] || out[base] != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxMetadataFile))
		if err != nil {
			return nil, fmt.Errorf("read %s in segment tarball %s: %w", hdr.Name, tarPath, err)
		}
		out[base] = b
	}
	for _, n := range names {
		if out[n] == nil {
			return nil, fmt.Errorf("segment tarball %s has no %s", tarPath, n)
		}
	}
	return out, nil
}
