package checkpoint

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// FormatVersion is the version of the persisted record format, written as
// "v" into every stored JSON value and lease record. Versions are ordered;
// a store refuses to read a value newer than FormatCurrent.
type FormatVersion int

// Format versions, oldest first. Never renumber; append only.
const (
	// FormatV1 adds the first layout: JSON records with a "v" field for
	// connections, tables, checkpoint headers, file states and runs; a
	// hash per lease; an integer fencing counter per table.
	FormatV1 FormatVersion = 1
	// FormatV2 adds table revisions: Table records carry "revision" (a V1
	// record reads as revision 0), one store-wide table revision counter
	// and the table change stream (Redis) or change log (Bolt, Memory).
	// A V1 build refuses V2 records, so it cannot write tables behind the
	// back of the revisions (architecture I8).
	FormatV2 FormatVersion = 2

	// FormatCurrent is the version this build writes.
	FormatCurrent = FormatV2
)

// versioned is the envelope every stored JSON value carries.
type versioned struct {
	V FormatVersion `json:"v"`
}

type connectionRecord struct {
	versioned
	Connection
}

type tableRecord struct {
	versioned
	Table
}

// checkpointHeader is the checkpoint without its file map: its summary
// plus the per-snapshot file counts.
type checkpointHeader struct {
	versioned
	CheckpointSummary
	SnapshotFileCounts map[int64]int `json:"snapshotFileCounts,omitempty"`
}

type fileRecord struct {
	versioned
	FileState
}

type runRecord struct {
	versioned
	Run
}

type leaseRecord struct {
	versioned
	Lease
}

func newHeader(cp Checkpoint) checkpointHeader {
	return checkpointHeader{versioned: versioned{V: FormatCurrent}, CheckpointSummary: cp.Summary(),
		SnapshotFileCounts: cp.SnapshotFileCounts}
}

func (h checkpointHeader) checkpoint(files map[string]FileState) Checkpoint {
	if files == nil {
		files = map[string]FileState{}
	}
	return Checkpoint{
		Table:              h.Table,
		SnapshotID:         h.SnapshotID,
		SequenceNumber:     h.SequenceNumber,
		MetadataLocation:   h.MetadataLocation,
		TableUUID:          h.TableUUID,
		SchemaID:           h.SchemaID,
		Files:              files,
		SnapshotFileCounts: h.SnapshotFileCounts,
		CommittedAt:        h.CommittedAt,
		LeaseToken:         h.LeaseToken,
		Backfill:           h.Backfill,
		Rows:               h.Rows,
	}
}

func (h checkpointHeader) summary() CheckpointSummary { return h.CheckpointSummary }

// encode marshals a record; records are plain data so this cannot fail
// except for a programming error, which is still reported.
func encode(what string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return b, nil
}

// decode unmarshals a stored record into v and checks its version.
// what names the record ("table orders") for the error. A record type
// that embeds versioned is parsed once (this is on the path of every
// listing); anything else, or a record that does not parse, is first
// probed for its version, so a record newer than this build is reported
// as such rather than as a type mismatch.
func decode(what string, data []byte, v any) error {
	if rec, ok := v.(interface{ formatVersion() FormatVersion }); ok {
		if err := json.Unmarshal(data, v); err == nil {
			return checkVersion(what, rec.formatVersion())
		}
	}
	var ver versioned
	if err := json.Unmarshal(data, &ver); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	if err := checkVersion(what, ver.V); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	return nil
}

// formatVersion is the version a decoded record carried.
func (v *versioned) formatVersion() FormatVersion { return v.V }

// checkVersion refuses versions this build cannot read.
func checkVersion(what string, v FormatVersion) error {
	if v < FormatV1 || v > FormatCurrent {
		return fmt.Errorf("decode %s: format version %d not supported (this build reads 1..%d)", what, v, FormatCurrent)
	}
	return nil
}

func encodeFile(fs FileState) ([]byte, error) {
	return encode("file state", fileRecord{versioned{FormatCurrent}, fs})
}

// checkName rejects names no store accepts: empty, longer than 512 bytes,
// or holding control characters.
func checkName(kind, name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty %s name", ErrInvalid, kind)
	}
	if len(name) > 512 {
		return fmt.Errorf("%w: %s name longer than 512 bytes", ErrInvalid, kind)
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: %s name %q holds a control character", ErrInvalid, kind, name)
	}
	return nil
}

func checkTTL(ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: lease TTL %s is below 1ms", ErrInvalid, ttl)
	}
	return nil
}

func checkRun(r Run) error {
	if err := checkName("table", r.Table); err != nil {
		return err
	}
	return checkName("run id", r.ID)
}

func checkCommit(lease Lease, cp Checkpoint) error {
	if err := checkName("table", lease.Table); err != nil {
		return err
	}
	if cp.Table != lease.Table {
		return fmt.Errorf("%w: checkpoint for table %q under a lease on table %q", ErrInvalid, cp.Table, lease.Table)
	}
	for path := range cp.Files {
		if path == "" {
			return fmt.Errorf("%w: checkpoint of table %q has a file with an empty path", ErrInvalid, cp.Table)
		}
	}
	return nil
}

// runOrderKey orders runs newest first: StartedAt in microseconds, ties
// broken by ID (both descending). Every store uses this same order.
func runOrderKey(r Run) int64 { return r.StartedAt.UnixMicro() }

// runNewer reports whether a sorts before b (newest first).
func runNewer(a, b Run) bool {
	ka, kb := runOrderKey(a), runOrderKey(b)
	if ka != kb {
		return ka > kb
	}
	return a.ID > b.ID
}

func runLimit(limit int) int {
	if limit <= 0 || limit > RunHistoryLimit {
		return RunHistoryLimit
	}
	return limit
}

// stampCheckpoint sets the fields the store owns: the lease token, and
// the commit time when the caller left it zero.
func stampCheckpoint(cp Checkpoint, lease Lease, now time.Time) Checkpoint {
	cp.LeaseToken = lease.Token
	if cp.CommittedAt.IsZero() {
		cp.CommittedAt = now.UTC()
	}
	if cp.Files == nil {
		cp.Files = map[string]FileState{}
	}
	return cp
}

func checkAcquire(table, owner string, ttl time.Duration) error {
	if err := checkName("table", table); err != nil {
		return err
	}
	if err := checkName("lease owner", owner); err != nil {
		return err
	}
	return checkTTL(ttl)
}
