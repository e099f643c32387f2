package pinot

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/pinot/spec"
)

// SegmentInfo is what Pinot holds about one uploaded segment, from the
// segment's own metadata (metadata.properties and creation.meta, as the
// controller copies them into its segment metadata): enough for a caller to
// tell whether a segment uploaded by a run that died is the one it would
// upload now, without building it.
type SegmentInfo struct {
	Name string
	// TotalDocs is segment.total.docs: the rows the segment holds.
	TotalDocs int64
	// CRC is creation.meta's crc (the controller's segment.crc), as
	// decimal text: the checksum servers verify a download against.
	CRC string
	// Custom is the segment's custom map (custom.* in metadata.properties).
	Custom map[string]string
}

// SegmentInspector is implemented by Uploaders that can read the metadata
// of the segments they hold, served or not: the To segments of an open
// replacement are uploaded but hidden, and a caller resuming that
// replacement reads them to skip units uploaded already.
type SegmentInspector interface {
	// UploadedSegments returns the metadata of those of names that were
	// uploaded completely and are held now (served, or hidden in an open
	// replacement's To list); names it does not hold are absent.
	UploadedSegments(ctx context.Context, table string, names []string) (map[string]SegmentInfo, error)
}

var (
	_ SegmentInspector = (*Controller)(nil)
	_ SegmentInspector = (*LocalDir)(nil)
)

// inspectParallelism bounds the controller's concurrent metadata reads.
const inspectParallelism = 8

// UploadedSegments lists every segment the controller holds for the table
// (served, replaced or hidden by lineage: a segment is listed once its
// upload completed) and reads the metadata of those of names it lists.
func (c *Controller) UploadedSegments(ctx context.Context, table string, names []string) (map[string]SegmentInfo, error) {
	out := map[string]SegmentInfo{}
	if len(names) == 0 {
		return out, nil
	}
	listed, err := c.listSegments(ctx, table, false)
	if err != nil {
		return nil, fmt.Errorf("read uploaded segments of %s: %w", table, err)
	}
	held := make(map[string]bool, len(listed))
	for _, n := range listed {
		held[n] = true
	}
	infos := make([]SegmentInfo, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inspectParallelism)
	for i, name := range names {
		if !held[name] {
			continue
		}
		g.Go(func() error {
			info, err := c.segmentInfo(gctx, table, name)
			infos[i] = info
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read uploaded segments of %s: %w", table, err)
	}
	for _, info := range infos {
		if info.Name != "" {
			out[info.Name] = info
		}
	}
	return out, nil
}

// segmentInfo reads one segment's metadata from the controller
// (GET /segments/{table}/{segment}/metadata: its segment ZK metadata, every
// value a string, the custom map as JSON text).
func (c *Controller) segmentInfo(ctx context.Context, table, name string) (SegmentInfo, error) {
	var raw map[string]any
	r := request{op: "read metadata of segment " + name + " of " + table, method: "GET",
		path: "/segments/" + url.PathEscape(table) + "/" + url.PathEscape(name) + "/metadata", query: url.Values{"type": {"OFFLINE"}}}
	if err := c.read(ctx, r, &raw); err != nil {
		return SegmentInfo{}, err
	}
	info := SegmentInfo{Name: name, CRC: textOf(raw["segment.crc"]), Custom: map[string]string{}}
	docs, err := strconv.ParseInt(textOf(raw["segment.total.docs"]), 10, 64)
	if err != nil {
		return SegmentInfo{}, fmt.Errorf("%s: segment.total.docs: %w", r.op, err)
	}
	info.TotalDocs = docs
	switch m := raw["custom.map"].(type) {
	case string:
		if m != "" && m != "null" {
			if err := json.Unmarshal([]byte(m), &info.Custom); err != nil {
				return SegmentInfo{}, fmt.Errorf("%s: custom.map: %w", r.op, err)
			}
		}
	case map[string]any:
		for k, v := range m {
			info.Custom[k] = textOf(v)
		}
	}
	return info, nil
}

// textOf is a JSON value as text (the controller answers strings; a number
// is taken as its decimal form).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// UploadedSegments reads the metadata of those of names the table keeps a
// tarball for (served, or in an open replacement's To list) from the
// tarball itself. An upload renames a complete tarball into place, so a
// tarball that is there was uploaded whole; one whose metadata cannot be
// read is left out (its caller builds the segment again).
func (d *LocalDir) UploadedSegments(_ context.Context, table string, names []string) (map[string]SegmentInfo, error) {
	out := map[string]SegmentInfo{}
	tx, err := d.load(table)
	if errors.Is(err, ErrTableMissing) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read uploaded segments of %s: %w", table, err)
	}
	kept := tx.kept()
	for _, name := range names {
		if !kept[name] {
			continue
		}
		info, err := tarballInfo(d.tarball(table, name), name)
		if err != nil {
			continue
		}
		out[name] = info
	}
	return out, nil
}

// tarballInfo reads a segment tarball's metadata.properties and
// creation.meta.
func tarballInfo(tarPath, name string) (SegmentInfo, error) {
	if _, err := os.Stat(tarPath); err != nil {
		return SegmentInfo{}, fmt.Errorf("read segment tarball: %w", err)
	}
	files, err := extractFiles(tarPath, metadataFile, creationMetaFile)
	if err != nil {
		return SegmentInfo{}, err
	}
	props, err := parseProperties(files[metadataFile])
	if err != nil {
		return SegmentInfo{}, fmt.Errorf("segment tarball %s: %s: %w", tarPath, metadataFile, err)
	}
	docs, err := strconv.ParseInt(props["segment.total.docs"], 10, 64)
	if err != nil {
		return SegmentInfo{}, fmt.Errorf("segment tarball %s: segment.total.docs: %w", tarPath, err)
	}
	meta := files[creationMetaFile]
	if len(meta) < 8 {
		return SegmentInfo{}, fmt.Errorf("segment tarball %s: %s holds %d bytes, want at least 8", tarPath, creationMetaFile, len(meta))
	}
	info := SegmentInfo{Name: name, TotalDocs: docs, Custom: map[string]string{},
		CRC: strconv.FormatInt(int64(binary.BigEndian.Uint64(meta[:8])), 10)}
	for k, v := range props {
		if c, ok := strings.CutPrefix(k, "custom."); ok {
			info.Custom[c] = v
		}
	}
	return info, nil
}

// parseProperties reads the metadata.properties floe's segments carry
// (spec.ParseProperties), keys and values unescaped; a list value keeps
// its escaped commas, which no key read here holds.
func parseProperties(b []byte) (map[string]string, error) {
	out := map[string]string{}
	err := spec.ParseProperties(b, func(key, value string) { out[key] = spec.UnescapeProperty(value) })
	return out, err
}
