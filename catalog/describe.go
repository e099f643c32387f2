package catalog

import (
	"maps"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TableInfo summarises a table for browsing.
type TableInfo struct {
	Ident            TableIdent            `json:"ident"`
	MetadataLocation string                `json:"metadataLocation"`
	UUID             string                `json:"uuid"`
	FormatVersion    int                   `json:"formatVersion"`
	Location         string                `json:"location"`
	LastUpdatedMs    int64                 `json:"lastUpdatedMs"`
	Schema           *iceberg.Schema       `json:"schema"`
	PartitionSpec    iceberg.PartitionSpec `json:"partitionSpec"`
	CurrentSnapshot  *SnapshotInfo         `json:"currentSnapshot,omitempty"`
	SnapshotCount    int                   `json:"snapshotCount"`
	Properties       map[string]string     `json:"properties,omitempty"`
}

// SnapshotInfo is one snapshot's header.
type SnapshotInfo struct {
	ID             int64             `json:"id"`
	ParentID       *int64            `json:"parentId,omitempty"`
	SequenceNumber int64             `json:"sequenceNumber"`
	TimestampMs    int64             `json:"timestampMs"`
	Operation      string            `json:"operation,omitempty"`
	Summary        map[string]string `json:"summary,omitempty"`
}

// Info describes a loaded table.
func (t *Table) Info() TableInfo {
	meta := t.Iceberg.Metadata()
	info := TableInfo{
		Ident:            t.Ident,
		MetadataLocation: t.MetadataLocation,
		UUID:             t.UUID,
		FormatVersion:    meta.Version(),
		Location:         meta.Location(),
		LastUpdatedMs:    meta.LastUpdatedMillis(),
		Schema:           meta.CurrentSchema(),
		PartitionSpec:    meta.PartitionSpec(),
		SnapshotCount:    len(meta.Snapshots()),
		Properties:       safeProps(meta.Properties()),
	}
	if s := meta.CurrentSnapshot(); s != nil {
		info.CurrentSnapshot = snapshotInfo(s)
	}
	return info
}

func snapshotInfo(s *table.Snapshot) *SnapshotInfo {
	si := &SnapshotInfo{ID: s.SnapshotID, ParentID: s.ParentSnapshotID, SequenceNumber: s.SequenceNumber, TimestampMs: s.TimestampMs}
	if s.Summary != nil {
		si.Operation = string(s.Summary.Operation)
		si.Summary = maps.Clone(map[string]string(s.Summary.Properties))
	}
	return si
}

// safeProps drops table properties that look like credentials.
func safeProps(p iceberg.Properties) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "secret") || strings.Contains(lk, "token") || strings.Contains(lk, "password") ||
			strings.Contains(lk, "access-key") || strings.Contains(lk, "credential") {
			continue
		}
		out[k] = v
	}
	return out
}
