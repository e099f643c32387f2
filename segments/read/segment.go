// Package read opens Pinot segments, floe's own or Pinot's, v1 or v3, from
// a directory or a .tar.gz, and decodes their columns: the reader behind
// "floe inspect" and the tests that check what the writer wrote. It knows
// the byte layout from segments/doc.go and more (v1, older chunk formats,
// codecs floe never writes) and runs none of the writer's code, so a
// writer bug cannot hide behind a matching reader bug.
package read

import (
	"archive/tar"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Segment is a Pinot segment opened for reading: floe's own or one made by
// Pinot, v1 or v3, from a directory or a .tar.gz. The whole segment is
// read into memory.
type Segment struct {
	Path         string
	Name         string
	Table        string
	Version      string // v1 or v3
	TotalDocs    int
	TimeColumn   string
	StartTime    string
	EndTime      string
	TimeUnit     string
	CRC          int64 // creation.meta crc (0 when absent)
	CreationTime int64 // epoch millis from creation.meta
	Columns      []Column
	Metadata     map[string]string // every metadata.properties key, unescaped

	buffers map[string][]byte // "<column>.<index id>" → index bytes
	padding byte              // pads fixed-width STRING dictionary entries
	missing string            // a data file the segment lacks ("" when whole)
}

// Index ids as index_map names them (format: never change).
const (
	rdDictionary = "dictionary"
	rdForward    = "forward_index"
	rdInverted   = "inverted_index"
	rdNullVector = "nullvalue_vector"
)

// v1IndexSuffixes maps v1 file name suffixes to index ids.
var v1IndexSuffixes = []struct{ suffix, id string }{
	{".dict", rdDictionary},
	{".sv.unsorted.fwd", rdForward}, {".sv.sorted.fwd", rdForward}, {".mv.fwd", rdForward},
	{".sv.raw.fwd", rdForward}, {".mv.raw.fwd", rdForward},
	{".bitmap.inv", rdInverted}, {".bitmap.nullvalue", rdNullVector},
	{".bitmap.range", "range_index"}, {".bloom", "bloom_filter"},
}

// psfMarker precedes every buffer in columns.psf (format: never change).
const psfMarker uint64 = 0xDEADBEEFDEAFBEAD

// Open reads a segment directory (with or without v3/) or a
// .tar.gz whose first entry is the segment directory.
func Open(p string) (*Segment, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("open segment: %w", err)
	}
	var files map[string][]byte
	if st.IsDir() {
		files, err = readSegmentDir(p)
	} else {
		files, err = readSegmentTar(p)
	}
	if err != nil {
		return nil, fmt.Errorf("open segment %s: %w", p, err)
	}
	s, err := parseSegment(files)
	if err != nil {
		return nil, fmt.Errorf("open segment %s: %w", p, err)
	}
	s.Path = p
	return s, nil
}

// readSegmentDir loads the segment's files, from v3/ when it exists.
func readSegmentDir(dir string) (map[string][]byte, error) {
	if st, err := os.Stat(filepath.Join(dir, "v3")); err == nil && st.IsDir() {
		dir = filepath.Join(dir, "v3")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = b
	}
	return files, nil
}

// readSegmentTar loads the files under the tarball's segment directory
// (from its v3/ subdirectory when there is one).
func readSegmentTar(p string) (map[string][]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%w: not a gzip file: %v", ErrCorrupt, err)
	}
	tr := tar.NewReader(gz)
	top, v1, v3 := "", map[string][]byte{}, map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: read tar: %v", ErrCorrupt, err)
		}
		name := strings.TrimPrefix(path.Clean(h.Name), "./")
		if top == "" {
			top = strings.SplitN(name, "/", 2)[0]
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel := strings.TrimPrefix(name, top+"/")
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%w: read tar entry %s: %v", ErrCorrupt, name, err)
		}
		if strings.HasPrefix(rel, "v3/") {
			v3[strings.TrimPrefix(rel, "v3/")] = b
		} else if !strings.Contains(rel, "/") {
			v1[rel] = b
		}
	}
	if len(v3) > 0 {
		return v3, nil
	}
	return v1, nil
}

// parseSegment reads metadata and locates every index buffer.
func parseSegment(files map[string][]byte) (*Segment, error) {
	meta, ok := files["metadata.properties"]
	if !ok {
		return nil, fmt.Errorf("%w: no metadata.properties", ErrCorrupt)
	}
	props, err := parseSegProperties(meta)
	if err != nil {
		return nil, err
	}
	s := &Segment{Metadata: map[string]string{}, buffers: map[string][]byte{}}
	for _, k := range props.keys {
		s.Metadata[k], _ = props.get(k)
	}
	if err := s.readHeader(props); err != nil {
		return nil, err
	}
	pad, declared := s.Metadata["segment.padding.character"]
	s.padding = paddingByte(pad, declared)
	psf, hasPSF := files["columns.psf"]
	indexMap, hasMap := files["index_map"]
	switch {
	case hasPSF && hasMap:
		if err := s.splitPSF(psf, indexMap); err != nil {
			return nil, err
		}
	case hasPSF:
		s.missing = "index_map"
	case hasMap:
		s.missing = "columns.psf"
	default:
		s.splitV1(files)
	}
	if cm, ok := files["creation.meta"]; ok && len(cm) >= 16 {
		s.CRC = int64(binary.BigEndian.Uint64(cm))
		s.CreationTime = int64(binary.BigEndian.Uint64(cm[8:]))
	}
	for i := range s.Columns {
		c := &s.Columns[i]
		for _, id := range []string{rdDictionary, rdForward, rdInverted, rdNullVector, "range_index", "bloom_filter", "json_index"} {
			if _, ok := s.buffers[c.Name+"."+id]; ok {
				c.Indexes = append(c.Indexes, id)
			}
		}
	}
	return s, nil
}

// paddingByte is the byte that pads fixed-width STRING dictionary
// entries: the segment.padding.character a segment declares (NUL in
// current segments), and '%' in a segment that declares none — Pinot's
// legacy padding, which its reader assumes then. Pinot's reader cuts an
// entry at the first padding byte, and so does floe's.
func paddingByte(v string, declared bool) byte {
	if !declared {
		return '%'
	}
	if len(v) == 1 {
		return v[0]
	}
	return 0
}

// readHeader reads the segment keys and every listed column.
func (s *Segment) readHeader(p *segProperties) error {
	var err error
	s.Name, _ = p.get("segment.name")
	s.Table, _ = p.get("segment.table.name")
	s.Version, _ = p.get("segment.index.version")
	if s.Version == "" {
		s.Version = "v1"
	}
	if s.TotalDocs, err = p.getInt("segment.total.docs"); err != nil {
		return err
	}
	s.TimeColumn, _ = p.get("segment.time.column.name")
	s.StartTime, _ = p.get("segment.start.time")
	s.EndTime, _ = p.get("segment.end.time")
	s.TimeUnit, _ = p.get("segment.time.unit")
	seen := map[string]bool{}
	for _, key := range []string{"segment.dimension.column.names", "segment.metric.column.names",
		"segment.datetime.column.names", "segment.time.column.name", "segment.complex.column.names"} {
		for _, name := range p.list(key) {
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			c, err := parseSegmentColumn(p, name)
			if err != nil {
				return err
			}
			s.Columns = append(s.Columns, c)
		}
	}
	return nil
}

// splitPSF slices columns.psf by index_map, checking each marker.
func (s *Segment) splitPSF(psf, indexMap []byte) error {
	im, err := parseSegProperties(indexMap)
	if err != nil {
		return fmt.Errorf("index_map: %w", err)
	}
	for _, k := range im.keys {
		if !strings.HasSuffix(k, ".startOffset") {
			continue
		}
		base := strings.TrimSuffix(k, ".startOffset")
		start, err1 := strconv.ParseInt(strings.TrimSpace(im.values[k]), 10, 64)
		size, err2 := strconv.ParseInt(strings.TrimSpace(im.values[base+".size"]), 10, 64)
		if err1 != nil || err2 != nil || start < 0 || size < 8 || start+size > int64(len(psf)) {
			return fmt.Errorf("%w: index_map entry %s out of columns.psf", ErrCorrupt, base)
		}
		if binary.BigEndian.Uint64(psf[start:]) != psfMarker {
			return fmt.Errorf("%w: columns.psf entry %s lacks the marker", ErrCorrupt, base)
		}
		s.buffers[base] = psf[start+8 : start+size]
	}
	return nil
}

// splitV1 maps v1 file names to index buffers.
func (s *Segment) splitV1(files map[string][]byte) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, sfx := range v1IndexSuffixes {
			if strings.HasSuffix(n, sfx.suffix) {
				s.buffers[strings.TrimSuffix(n, sfx.suffix)+"."+sfx.id] = files[n]
				break
			}
		}
	}
}

// Column returns the metadata of the named column.
func (s *Segment) Column(name string) (*Column, bool) {
	for i := range s.Columns {
		if s.Columns[i].Name == name {
			return &s.Columns[i], true
		}
	}
	return nil, false
}

// buffer returns an index buffer of a column.
func (s *Segment) buffer(column, id string) ([]byte, bool) {
	b, ok := s.buffers[column+"."+id]
	return b, ok
}
