package notify

import (
	"errors"
	"strings"
	"time"
)

// Kind says which announcement an event came from.
type Kind string

// The announcements floe understands.
const (
	// KindGlue: EventBridge "Glue Data Catalog Table State Change".
	KindGlue Kind = "glue"
	// KindS3Tables: an S3 Tables UpdateTableMetadataLocation call, through
	// CloudTrail and EventBridge ("AWS API Call via CloudTrail").
	KindS3Tables Kind = "s3tables"
	// KindS3: an S3 Object Created event for a metadata/*.metadata.json
	// object (S3 notification JSON, or EventBridge "Object Created").
	KindS3 Kind = "s3"
	// KindWebhook: POST /api/v1/tables/{name}/notify.
	KindWebhook Kind = "webhook"
)

// Sentinels the parser returns; both are counted and the message deleted
// (or kept, see Queue.KeepMalformed), never retried.
var (
	// ErrMalformed: the message is not JSON, or a shape floe knows with a
	// field it needs missing or of the wrong type.
	ErrMalformed = errors.New("malformed notification")
	// ErrUnrelated: a well-formed message that announces nothing floe acts
	// on (another detail type, a partition change, an object that is not
	// table metadata, an S3 test event, a failed API call).
	ErrUnrelated = errors.New("unrelated notification")
)

// Event is one announced commit of an Iceberg table. Catalog events name
// the table (Catalog, Namespace, Table); storage events name the metadata
// file written (MetadataLocation), from which the table's location
// follows. An S3 Tables event names both.
type Event struct {
	Kind Kind `json:"kind"`
	// ID identifies the announcement (EventBridge id, S3 sequencer or
	// request id), for logs; it is not used for matching.
	ID string `json:"id,omitempty"`
	// Time is when AWS says the change happened (zero when not given).
	Time    time.Time `json:"time,omitzero"`
	Region  string    `json:"region,omitempty"`
	Account string    `json:"account,omitempty"`
	// Catalog is the Glue catalog id (the account) or the S3 Tables table
	// bucket ARN.
	Catalog   string `json:"catalog,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Table     string `json:"table,omitempty"`
	// MetadataLocation is the metadata file the commit wrote
	// (s3://bucket/.../metadata/NNNNN-uuid.metadata.json).
	MetadataLocation string `json:"metadataLocation,omitempty"`
}

// Location is the table location the event's metadata file lies under
// (the part before "/metadata/"), or "" when the event names none.
func (e Event) Location() string {
	loc, ok := TableLocation(e.MetadataLocation)
	if !ok {
		return ""
	}
	return loc
}

// TableLocation returns the table location of an Iceberg metadata file
// path: everything before its last "/metadata/" segment, with the scheme
// s3a:// or s3n:// written as s3:// (one object, three spellings). ok is
// false when path is not a metadata file ("…/metadata/<name>.metadata.json").
func TableLocation(path string) (string, bool) {
	i := strings.LastIndex(path, "/metadata/")
	if i < 0 {
		return "", false
	}
	name := path[i+len("/metadata/"):]
	if name == ".metadata.json" || !strings.HasSuffix(name, ".metadata.json") || strings.Contains(name, "/") {
		return "", false
	}
	return normalizeScheme(path[:i]), true
}

// normalizeScheme writes s3a:// and s3n:// as s3:// and drops trailing slashes.
func normalizeScheme(loc string) string {
	for _, s := range []string{"s3a://", "s3n://"} {
		if rest, ok := strings.CutPrefix(loc, s); ok {
			loc = "s3://" + rest
		}
	}
	return strings.TrimRight(loc, "/")
}
