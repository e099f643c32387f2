package notify_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/notify"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

var glueOrders = notify.Event{Kind: notify.KindGlue, ID: "2f1c6e3a-0b7d-4c61-9f3e-6a1d2b9c7e01",
	Time: at("2026-11-02T08:15:30Z"), Region: "eu-west-1", Account: "111122223333", Catalog: "111122223333",
	Namespace: "sales", Table: "orders"}

var s3TablesClicks = notify.Event{Kind: notify.KindS3Tables, ID: "c3b1a2d4-5e6f-4789-8a9b-0c1d2e3f4a5b",
	Time: at("2026-11-02T09:01:12Z"), Region: "us-east-1", Account: "111122223333",
	Catalog: "arn:aws:s3tables:us-east-1:111122223333:bucket/lake", Namespace: "web", Table: "clicks",
	MetadataLocation: "s3://63a8e430-6e0b-46f5-example--table-s3/metadata/00007-6d1c2b3a-1f2e-4d5c-9b8a-7f6e5d4c3b2a.metadata.json"}

var s3Orders = notify.Event{Kind: notify.KindS3, ID: "0066F0A2", Time: at("2026-11-02T10:00:01.900Z"), Region: "eu-west-1",
	MetadataLocation: "s3://lakehouse/warehouse/sales.db/orders/metadata/00012-9f8e7d6c.metadata.json"}

// Every shape floe reads, raw and in an SNS envelope, gives the commit it
// announces.
func TestParse_Events(t *testing.T) {
	cases := []struct {
		file string
		want []notify.Event
	}{
		{"glue/update-table.json", []notify.Event{glueOrders}},
		{"glue/create-table.json", []notify.Event{{Kind: notify.KindGlue, ID: "8c7e1f00-4c5a-4a8e-b2f7-0d1e2f3a4b5c",
			Time: at("2026-11-02T08:00:00Z"), Region: "eu-west-1", Account: "111122223333", Catalog: "111122223333",
			Namespace: "sales", Table: "returns"}}},
		{"s3tables/update-metadata-location.json", []notify.Event{s3TablesClicks}},
		{"s3tables/namespace-list.json", []notify.Event{{Kind: notify.KindS3Tables, ID: "d4c3b2a1-0000-1111-2222-333344445555",
			Time: at("2026-11-02T09:05:00Z"), Region: "us-east-1", Account: "111122223333",
			Catalog: "arn:aws:s3tables:us-east-1:111122223333:bucket/lake", Namespace: "web", Table: "views",
			MetadataLocation: "s3://bucket-views--table-s3/metadata/00002-aa.metadata.json"}}},
		{"s3/notification.json", []notify.Event{s3Orders}},
		{"s3/encoded-key.json", []notify.Event{{Kind: notify.KindS3, ID: "0066F0B0", Time: at("2026-11-02T10:02:00Z"),
			Region: "eu-west-1", MetadataLocation: "s3://lakehouse/team a/region=eu/events/metadata/00003-0c1d.metadata.json"}}},
		{"s3/eventbridge-object-created.json", []notify.Event{{Kind: notify.KindS3, ID: "11112222-3333-4444-5555-666677778888",
			Time: at("2026-11-02T10:05:00Z"), Region: "eu-west-1", Account: "111122223333",
			MetadataLocation: "s3://lakehouse/warehouse/web/clicks/metadata/00004-5e6f.metadata.json"}}},
		{"s3/at-bucket-root.json", []notify.Event{{Kind: notify.KindS3, ID: "99990000-1111-2222-3333-444455556666",
			Time: at("2026-11-02T10:07:00Z"), Region: "eu-west-1", Account: "111122223333",
			MetadataLocation: "s3://single-table/metadata/00001-aa.metadata.json"}}},
		{"sns/glue-update-table.json", []notify.Event{glueOrders}},
		{"sns/s3-notification.json", []notify.Event{s3Orders}},
		{"sns/s3tables-update.json", []notify.Event{s3TablesClicks}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := notify.Parse(readFixture(t, c.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Parse =\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

// Messages that cannot be read are ErrMalformed, and the error names what
// is wrong; well-formed messages announcing no commit are ErrUnrelated (N2).
func TestParse_Errors(t *testing.T) {
	cases := []struct {
		file    string
		want    error
		mention string
	}{
		{"bad/not-json.txt", notify.ErrMalformed, "not a JSON object"},
		{"bad/empty.txt", notify.ErrMalformed, "not a JSON object"},
		{"bad/truncated.json", notify.ErrMalformed, "in string literal"},
		{"bad/records-not-list.json", notify.ErrMalformed, "Records"},
		{"bad/detail-string.json", notify.ErrMalformed, "detail must be an object"},
		{"bad/detail-field-type.json", notify.ErrMalformed, "databaseName"},
		{"bad/s3-record-no-bucket.json", notify.ErrMalformed, "Records[0]"},
		{"bad/sns-in-sns.json", notify.ErrMalformed, "inside another"},
		{"bad/sns-message-not-json.json", notify.ErrMalformed, "sns Message"},
		{"glue/missing-table-name.json", notify.ErrMalformed, "detail.tableName"},
		{"s3tables/namespace-number.json", notify.ErrMalformed, "requestParameters.namespace"},
		{"glue/batch-create-partition.json", notify.ErrUnrelated, "BatchCreatePartition"},
		{"s3tables/failed-call.json", notify.ErrUnrelated, "ConflictException"},
		{"s3tables/other-call.json", notify.ErrUnrelated, "GetTableMetadataLocation"},
		{"s3/data-files-only.json", notify.ErrUnrelated, "3 records"},
		{"s3/test-event.json", notify.ErrUnrelated, "s3:TestEvent"},
		{"unrelated/other-detail-type.json", notify.ErrUnrelated, "EC2 Instance State-change Notification"},
		{"unrelated/plain-object.json", notify.ErrUnrelated, "neither"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			evs, err := notify.Parse(readFixture(t, c.file))
			if !errors.Is(err, c.want) {
				t.Fatalf("Parse = %v, %v; want %v", evs, err, c.want)
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("error %q does not mention %q", err, c.mention)
			}
		})
	}
}

func TestParse_TooLarge(t *testing.T) {
	body := []byte(`{"x":"` + strings.Repeat("a", 300<<10) + `"}`)
	if _, err := notify.Parse(body); !errors.Is(err, notify.ErrMalformed) {
		t.Fatalf("Parse of a 300 KiB message = %v, want ErrMalformed", err)
	}
}

func TestTableLocation(t *testing.T) {
	ok := map[string]string{
		"s3://b/wh/db/t/metadata/00001-a.metadata.json":      "s3://b/wh/db/t",
		"s3a://b/wh/db/t/metadata/00001-a.gz.metadata.json":  "s3://b/wh/db/t",
		"s3n://b/metadata/v3.metadata.json":                  "s3://b",
		"file:///tmp/wh/t/metadata/00000-x.metadata.json":    "file:///tmp/wh/t",
		"s3://b/a/metadata/b/metadata/00002-c.metadata.json": "s3://b/a/metadata/b",
	}
	for in, want := range ok {
		if got, found := notify.TableLocation(in); !found || got != want {
			t.Errorf("TableLocation(%q) = %q, %v; want %q", in, got, found, want)
		}
	}
	for _, in := range []string{
		"s3://b/t/metadata/snap-1-1-a.avro", "s3://b/t/data/00001.parquet", "s3://b/t/metadata/.metadata.json",
		"s3://b/t/metadata/x/00001.metadata.json", "", "s3://b/t/00001-a.metadata.json",
	} {
		if got, found := notify.TableLocation(in); found {
			t.Errorf("TableLocation(%q) = %q, want none", in, got)
		}
	}
}
