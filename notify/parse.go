package notify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The EventBridge detail types and sources floe reads.
const (
	detailGlueTable   = "Glue Data Catalog Table State Change"
	detailCloudTrail  = "AWS API Call via CloudTrail"
	detailObjectMade  = "Object Created"
	sourceGlue        = "aws.glue"
	sourceS3Tables    = "aws.s3tables"
	sourceS3          = "aws.s3"
	s3TablesService   = "s3tables.amazonaws.com"
	s3TablesUpdateOp  = "UpdateTableMetadataLocation"
	snsNotification   = "Notification"
	s3CreatedPrefix   = "ObjectCreated:"
	s3EventSource     = "aws:s3"
	maxMessageBytes   = 256 << 10 // SQS's own limit; anything larger is not from AWS
	glueUpdateTable   = "UpdateTable"
	glueCreateTable   = "CreateTable"
	s3EventBridgeName = "EventBridge"
)

// envelope holds the top-level fields of every shape floe reads: an SNS
// notification (Type, Message), an S3 notification (Records) and an
// EventBridge event (detail-type, source, detail).
type envelope struct {
	Type       string          `json:"Type"`
	Message    *string         `json:"Message"`
	Records    json.RawMessage `json:"Records"`
	Event      string          `json:"Event"` // "s3:TestEvent"
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Account    string          `json:"account"`
	Region     string          `json:"region"`
	Time       string          `json:"time"`
	Detail     json.RawMessage `json:"detail"`
}

// Parse reads one queue message: an EventBridge event (Glue table state
// change, S3 Tables UpdateTableMetadataLocation through CloudTrail, S3
// Object Created) or an S3 notification, either raw or wrapped in an SNS
// notification. It returns the commits the message announces (an S3
// notification may carry several records), ErrUnrelated when it
// announces none, ErrMalformed when it cannot be read; errors name the
// field at fault.
func Parse(body []byte) ([]Event, error) {
	if len(body) > maxMessageBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than any AWS notification", ErrMalformed, len(body))
	}
	env, err := decodeEnvelope(body)
	if err != nil {
		return nil, err
	}
	if env.Type == snsNotification && env.Message != nil {
		inner, err := decodeEnvelope([]byte(*env.Message))
		if err != nil {
			return nil, fmt.Errorf("sns Message: %w", err)
		}
		if inner.Type == snsNotification {
			return nil, fmt.Errorf("%w: sns Message: an SNS notification inside another", ErrMalformed)
		}
		env = inner
	}
	switch {
	case env.Records != nil:
		return parseS3Records(env.Records)
	case env.Event != "":
		return nil, fmt.Errorf("%w: S3 %s", ErrUnrelated, env.Event)
	case env.DetailType != "":
		return parseEventBridge(env)
	}
	return nil, fmt.Errorf("%w: neither an EventBridge event, an S3 notification nor an SNS notification", ErrUnrelated)
}

func decodeEnvelope(body []byte) (envelope, error) {
	var env envelope
	if len(bytes.TrimSpace(body)) == 0 || bytes.TrimSpace(body)[0] != '{' {
		return env, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return env, fmt.Errorf("%w: %s", ErrMalformed, jsonProblem(err))
	}
	return env, nil
}

// jsonProblem names the field a decoding error is about.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// parseEventBridge dispatches on detail-type and source.
func parseEventBridge(env envelope) ([]Event, error) {
	base := Event{ID: env.ID, Region: env.Region, Account: env.Account, Time: parseTime(env.Time)}
	switch {
	case env.DetailType == detailGlueTable && env.Source == sourceGlue:
		return parseGlue(base, env.Detail)
	case env.DetailType == detailCloudTrail && env.Source == sourceS3Tables:
		return parseS3TablesCall(base, env.Detail)
	case env.DetailType == detailObjectMade && env.Source == sourceS3:
		return parseObjectCreated(base, env.Detail)
	}
	return nil, fmt.Errorf("%w: EventBridge %q from %q", ErrUnrelated, env.DetailType, env.Source)
}

// glueDetail is the detail of a Glue table state change.
type glueDetail struct {
	DatabaseName string `json:"databaseName"`
	TableName    string `json:"tableName"`
	TypeOfChange string `json:"typeOfChange"`
}

// parseGlue reads a Glue table state change. Iceberg commits through
// Glue are UpdateTable (the metadata_location parameter moves); a
// CreateTable is a table's first commit. Partition and delete changes
// announce no commit.
func parseGlue(e Event, raw json.RawMessage) ([]Event, error) {
	var d glueDetail
	if err := decodeDetail(raw, &d); err != nil {
		return nil, err
	}
	if d.TypeOfChange != glueUpdateTable && d.TypeOfChange != glueCreateTable {
		return nil, fmt.Errorf("%w: Glue %s", ErrUnrelated, orDash(d.TypeOfChange))
	}
	if d.DatabaseName == "" || d.TableName == "" {
		return nil, fmt.Errorf("%w: Glue event: detail.databaseName and detail.tableName must be set", ErrMalformed)
	}
	e.Kind, e.Catalog, e.Namespace, e.Table = KindGlue, e.Account, d.DatabaseName, d.TableName
	return []Event{e}, nil
}

// cloudTrailDetail is the part of a CloudTrail record floe reads.
type cloudTrailDetail struct {
	EventSource       string          `json:"eventSource"`
	EventName         string          `json:"eventName"`
	ErrorCode         string          `json:"errorCode"`
	RequestParameters json.RawMessage `json:"requestParameters"`
}

// s3TablesUpdate is UpdateTableMetadataLocation's request.
type s3TablesUpdate struct {
	TableBucketARN   string          `json:"tableBucketARN"`
	Namespace        json.RawMessage `json:"namespace"`
	Name             string          `json:"name"`
	MetadataLocation string          `json:"metadataLocation"`
}

// parseS3TablesCall reads a CloudTrail record of an S3 Tables call: a
// successful UpdateTableMetadataLocation is a commit; other calls and
// failed ones are unrelated.
func parseS3TablesCall(e Event, raw json.RawMessage) ([]Event, error) {
	var d cloudTrailDetail
	if err := decodeDetail(raw, &d); err != nil {
		return nil, err
	}
	if d.EventSource != s3TablesService || d.EventName != s3TablesUpdateOp {
		return nil, fmt.Errorf("%w: CloudTrail %s %s", ErrUnrelated, orDash(d.EventSource), orDash(d.EventName))
	}
	if d.ErrorCode != "" {
		return nil, fmt.Errorf("%w: %s failed (%s)", ErrUnrelated, s3TablesUpdateOp, d.ErrorCode)
	}
	var p s3TablesUpdate
	if len(d.RequestParameters) == 0 || json.Unmarshal(d.RequestParameters, &p) != nil {
		return nil, fmt.Errorf("%w: %s: detail.requestParameters is not an object", ErrMalformed, s3TablesUpdateOp)
	}
	ns, err := namespaceOf(p.Namespace)
	if err != nil {
		return nil, err
	}
	if p.TableBucketARN == "" || p.Name == "" {
		return nil, fmt.Errorf("%w: %s: requestParameters.tableBucketARN and name must be set", ErrMalformed, s3TablesUpdateOp)
	}
	e.Kind, e.Catalog, e.Namespace, e.Table, e.MetadataLocation = KindS3Tables, p.TableBucketARN, ns, p.Name, p.MetadataLocation
	return []Event{e}, nil
}

// namespaceOf reads the namespace of an S3 Tables request: a string, or
// a list of one string.
func namespaceOf(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) == 1 && list[0] != "" {
		return list[0], nil
	}
	return "", fmt.Errorf("%w: %s: requestParameters.namespace must be a name or a list of one name", ErrMalformed, s3TablesUpdateOp)
}

// objectDetail is the detail of an EventBridge S3 Object Created event.
type objectDetail struct {
	Bucket struct {
		Name string `json:"name"`
	} `json:"bucket"`
	Object struct {
		Key       string `json:"key"`
		Sequencer string `json:"sequencer"`
	} `json:"object"`
}

// parseObjectCreated reads an EventBridge Object Created event (keys are
// as written, not URL-encoded).
func parseObjectCreated(e Event, raw json.RawMessage) ([]Event, error) {
	var d objectDetail
	if err := decodeDetail(raw, &d); err != nil {
		return nil, err
	}
	if d.Bucket.Name == "" || d.Object.Key == "" {
		return nil, fmt.Errorf("%w: %s: detail.bucket.name and detail.object.key must be set", ErrMalformed, s3EventBridgeName)
	}
	return metadataObject(e, d.Bucket.Name, d.Object.Key)
}

// s3Record is one record of an S3 notification.
type s3Record struct {
	EventSource string `json:"eventSource"`
	EventName   string `json:"eventName"`
	AWSRegion   string `json:"awsRegion"`
	EventTime   string `json:"eventTime"`
	S3          struct {
		Bucket struct {
			Name string `json:"name"`
		} `json:"bucket"`
		Object struct {
			Key       string `json:"key"`
			Sequencer string `json:"sequencer"`
		} `json:"object"`
	} `json:"s3"`
}

// parseS3Records reads an S3 notification: every ObjectCreated record of
// a metadata file is a commit (keys are URL-encoded, spaces as '+').
// Records of other events or objects are skipped; ErrUnrelated when none
// is left.
func parseS3Records(raw json.RawMessage) ([]Event, error) {
	var recs []s3Record
	if err := json.Unmarshal(raw, &recs); err != nil {
		return nil, fmt.Errorf("%w: Records: %s", ErrMalformed, jsonProblem(err))
	}
	var out []Event
	for i, r := range recs {
		if r.EventSource != s3EventSource || !strings.HasPrefix(r.EventName, s3CreatedPrefix) {
			continue
		}
		key, err := url.QueryUnescape(r.S3.Object.Key)
		if err != nil || r.S3.Bucket.Name == "" || key == "" {
			return nil, fmt.Errorf("%w: Records[%d]: s3.bucket.name and a URL-encoded s3.object.key must be set", ErrMalformed, i)
		}
		e := Event{ID: r.S3.Object.Sequencer, Region: r.AWSRegion, Time: parseTime(r.EventTime)}
		evs, err := metadataObject(e, r.S3.Bucket.Name, key)
		if err == nil {
			out = append(out, evs...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no Object Created record of a metadata file among %d records", ErrUnrelated, len(recs))
	}
	return out, nil
}

// metadataObject makes the event of a created object when it is an
// Iceberg metadata file.
func metadataObject(e Event, bucket, key string) ([]Event, error) {
	loc := "s3://" + bucket + "/" + key
	if _, ok := TableLocation(loc); !ok {
		return nil, fmt.Errorf("%w: object %s is not table metadata", ErrUnrelated, loc)
	}
	e.Kind, e.MetadataLocation = KindS3, loc
	return []Event{e}, nil
}

// decodeDetail decodes an EventBridge detail object.
func decodeDetail(raw json.RawMessage, v any) error {
	if len(raw) == 0 || bytes.TrimSpace(raw)[0] != '{' {
		return fmt.Errorf("%w: detail must be an object", ErrMalformed)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: detail: %s", ErrMalformed, jsonProblem(err))
	}
	return nil
}

// parseTime reads an RFC 3339 time; zero when absent or unreadable (the
// time is informational).
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
