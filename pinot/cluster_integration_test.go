//go:build integration

package pinot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

func clusterSchema(table string) *spec.Schema {
	return &spec.Schema{Name: table, EnableColumnNullHandle: true, Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, FieldType: spec.Dimension, SingleValue: true, NotNull: true},
		{Name: "city", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "tags", DataType: spec.String, FieldType: spec.Dimension},
		{Name: "amount", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true},
		{Name: "ts", DataType: spec.Timestamp, FieldType: spec.DateTime, SingleValue: true, NotNull: true,
			Format: "1:MILLISECONDS:TIMESTAMP", Granularity: "1:MILLISECONDS"},
	}}
}

// clusterTable is an OFFLINE table config like the ones floe generates.
// Its segmentIngestionType matters: Pinot 0.11 fails every forceCleanup
// startReplaceSegments of a table that has none once the table has an
// ended replacement (a NullPointerException, answered as HTTP 500).
func clusterTable(table string) *spec.TableConfig {
	return &spec.TableConfig{TableName: table, TableType: "OFFLINE", Tenants: map[string]string{}, Metadata: map[string]any{},
		SegmentsConfig:   spec.SegmentsConfig{TimeColumnName: "ts", Replication: "1"},
		TableIndexConfig: spec.TableIndexConfig{LoadMode: "MMAP", NullHandlingEnabled: true},
		IngestionConfig: &spec.IngestionConfig{BatchIngestionConfig: &spec.BatchIngestionConfig{
			SegmentIngestionType: "APPEND", SegmentIngestionFrequency: "DAILY"}}}
}

// buildSegment writes a floe segment of table with n rows starting at id
// first, each with amount = multiplier*id, and returns its tarball.
func buildSegment(t *testing.T, table, name string, first, n int64, multiplier float64) pinot.Segment {
	t.Helper()
	return buildSegmentWith(t, table, name, first, n, multiplier, nil)
}

// buildSegmentWith is buildSegment with a custom map in the segment's
// metadata.
func buildSegmentWith(t *testing.T, table, name string, first, n int64, multiplier float64, custom map[string]string) pinot.Segment {
	t.Helper()
	var rows [][]any
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for id := first; id < first+n; id++ {
		var city any = fmt.Sprint("city-", id%7)
		if id%10 == 0 {
			city = nil
		}
		rows = append(rows, []any{id, city, []any{"a", fmt.Sprint("t", id%3)}, multiplier * float64(id), base + id*1000})
	}
	dir := t.TempDir()
	res, err := segments.Build(context.Background(), segments.NewMemorySource(clusterSchema(table), rows, 0),
		segments.Config{Schema: clusterSchema(table), TableName: table, SegmentName: name, TimeColumn: "ts", CreationTime: time.Now(),
			CustomMap: custom}, dir)
	if err != nil {
		t.Fatal(err)
	}
	tarPath := filepath.Join(dir, name+".tar.gz")
	f, err := os.Create(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := segments.WriteTarGz(context.Background(), res.Dir, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return pinot.Segment{Name: name, TarPath: tarPath}
}

// query returns the single row of a SELECT with numeric columns.
func query(t *testing.T, b *pinot.Broker, sql string) []any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rt, err := b.Query(context.Background(), sql)
		if err == nil && len(rt.Rows) == 1 {
			return rt.Rows[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v (%+v)", sql, err, rt)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}

// waitCount polls until table answers count(*) = want: segments come
// online asynchronously after the upload returns.
func waitCount(t *testing.T, b *pinot.Broker, table string, want int64) []any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var row []any
	for time.Now().Before(deadline) {
		row = query(t, b, "SELECT count(*), sum(amount), min(id), max(id) FROM "+table)
		if int64(num(row[0])) == want {
			return row
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s: count(*) never reached %d: last %v", table, want, row)
	return nil
}

func wantListed(t *testing.T, up pinot.Uploader, table string, want ...string) {
	t.Helper()
	got, err := up.ListSegments(context.Background(), table)
	slices.Sort(got)
	if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s lists %v (%v), want %v", table, got, err, want)
	}
}

// One Pinot 0.11 cluster, with moto as its S3 deep store, serves every
// case: tar push and lineage replace, revert, metadata push from S3.
func TestController_AgainstCluster(t *testing.T) {
	moto := testpeer.StartMoto(t)
	c := testpeer.StartPinotWith(t, testpeer.PinotOptions{S3Endpoint: moto})
	b := pinot.NewBroker(c.BrokerURL, time.Minute, nil)
	b.NullHandling = false // the test cluster is Pinot 0.11
	ctl, err := pinot.NewController(c.ControllerURL, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("tar push and lineage replace", func(t *testing.T) { testTarPushAndReplace(t, ctl, b) })
	t.Run("revert", func(t *testing.T) { testRevert(t, ctl, b) })
	t.Run("metadata push from S3", func(t *testing.T) { testMetadataPush(t, c, moto, b) })
	t.Run("drop table", func(t *testing.T) { testDropTable(t, ctl, b, c.ControllerURL) })
}

// Segments floe wrote are served after a tar push, and an atomic replace
// through segment lineage swaps them for new ones.
func testTarPushAndReplace(t *testing.T, ctl *pinot.Controller, b *pinot.Broker) {
	ctx := context.Background()
	if err := ctl.EnsureTable(ctx, clusterSchema("orders"), clusterTable("orders")); err != nil {
		t.Fatal(err)
	}
	if err := ctl.EnsureTable(ctx, clusterSchema("orders"), clusterTable("orders")); err != nil {
		t.Fatalf("EnsureTable must be idempotent: %v", err)
	}
	s1, s2 := buildSegment(t, "orders", "orders_a_0", 0, 1000, 1), buildSegment(t, "orders", "orders_b_0", 1000, 500, 1)
	if err := pinot.Replace(ctx, ctl, "orders", nil, []pinot.Segment{s1, s2}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, "orders", s2); err != nil {
		t.Fatalf("a re-upload of the same segment refreshes it: %v", err)
	}
	row := waitCount(t, b, "orders", 1500)
	if num(row[1]) != 1499*1500/2 || num(row[2]) != 0 || num(row[3]) != 1499 {
		t.Fatalf("first push: got %v", row)
	}
	// Null vectors: every tenth city is null.
	if r := query(t, b, "SELECT count(*) FROM orders WHERE city IS NULL"); int64(num(r[0])) != 150 {
		t.Fatalf("null cities: %v, want 150", r)
	}
	if r := query(t, b, "SELECT count(*) FROM orders WHERE city = 'city-3'"); int64(num(r[0])) != 192 {
		t.Fatalf("dictionary filter: %v, want 192", r)
	}
	wantListed(t, ctl, "orders", "orders_a_0", "orders_b_0")

	// Replace b with c (ids 1000..1199, amounts doubled) step by step: c is
	// hidden while the replacement is open.
	id, err := ctl.StartReplace(ctx, "orders", []string{"orders_b_0"}, []string{"orders_c_0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, "orders", buildSegment(t, "orders", "orders_c_0", 1000, 200, 2)); err != nil {
		t.Fatal(err)
	}
	wantListed(t, ctl, "orders", "orders_a_0", "orders_b_0")
	if r := query(t, b, "SELECT count(*) FROM orders"); int64(num(r[0])) != 1500 {
		t.Fatalf("an open replacement's segments are served: %v", r)
	}
	for range 2 { // a repeated end succeeds
		if err := ctl.EndReplace(ctx, "orders", id); err != nil {
			t.Fatal(err)
		}
	}
	wantListed(t, ctl, "orders", "orders_a_0", "orders_c_0")
	row = waitCount(t, b, "orders", 1200)
	wantSum := float64(999*1000/2) + 2*float64((1000+1199)*200/2)
	if num(row[1]) != wantSum || num(row[3]) != 1199 {
		t.Fatalf("after replace: got %v, want sum %v", row, wantSum)
	}
	if r := query(t, b, "SELECT count(*) FROM orders WHERE tags = 't1'"); int64(num(r[0])) != 400 {
		t.Fatalf("multi-value filter: %v", r)
	}
	if err := ctl.RevertReplace(ctx, "orders", id); !errors.Is(err, pinot.ErrReplaceEnded) {
		t.Fatalf("revert of an ended replacement: %v, want ErrReplaceEnded", err)
	}
}

// A reverted replacement leaves the old segments served and its own gone;
// an end after it is ErrReplaceAborted, and its To name is refused.
func testRevert(t *testing.T, ctl *pinot.Controller, b *pinot.Broker) {
	ctx := context.Background()
	id, err := ctl.StartReplace(ctx, "orders", []string{"orders_c_0"}, []string{"orders_d_0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, "orders", buildSegment(t, "orders", "orders_d_0", 1000, 50, 3)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := ctl.RevertReplace(ctx, "orders", id); err != nil {
			t.Fatal(err)
		}
	}
	if err := ctl.EndReplace(ctx, "orders", id); !errors.Is(err, pinot.ErrReplaceAborted) {
		t.Fatalf("end after revert: %v, want ErrReplaceAborted", err)
	}
	wantListed(t, ctl, "orders", "orders_a_0", "orders_c_0")
	if r := query(t, b, "SELECT count(*) FROM orders"); int64(num(r[0])) != 1200 {
		t.Fatalf("after revert: %v, want 1200", r)
	}
	_, err = ctl.StartReplace(ctx, "orders", []string{"orders_c_0"}, []string{"orders_d_0"})
	if !errors.Is(err, pinot.ErrSegmentNameReverted) {
		t.Fatalf("reusing a reverted To name: %v, want ErrSegmentNameReverted", err)
	}
	// A pure removal goes by delete.
	if err := pinot.Replace(ctx, ctl, "orders", []string{"orders_a_0"}, nil); err != nil {
		t.Fatal(err)
	}
	wantListed(t, ctl, "orders", "orders_c_0")
	waitCount(t, b, "orders", 200)
}

// With moto as the deep store, Upload puts the tarball on S3 and sends a
// metadata push; the server downloads the segment from S3 and the broker
// answers with its rows. Deletes remove the S3 objects; a refusing guard
// stops the put.
func testMetadataPush(t *testing.T, c *testpeer.PinotCluster, moto string, b *pinot.Broker) {
	ctx := context.Background()
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(moto), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(testpeer.MotoCredential, testpeer.MotoCredential, "")})
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("deep")}); err != nil {
		t.Fatal(err)
	}
	ds, err := pinot.NewS3DeepStore(ctx, pinot.S3Options{S3Location: pinot.S3Location{URI: "s3://deep/floe/segments/", Region: "us-east-1", Endpoint: moto,
		PathStyle: true, AccessKeyID: testpeer.MotoCredential, SecretAccessKey: testpeer.MotoCredential}})
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := pinot.NewController(c.ControllerURL, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctl.DeepStore = ds
	const table = "events"
	if err := ctl.EnsureTable(ctx, clusterSchema(table), clusterTable(table)); err != nil {
		t.Fatal(err)
	}
	s1, s2 := buildSegment(t, table, "events_a_0", 0, 700, 1), buildSegment(t, table, "events_b_0", 700, 300, 1)
	if err := pinot.Replace(ctx, ctl, table, nil, []pinot.Segment{s1, s2}); err != nil {
		t.Fatal(err)
	}
	row := waitCount(t, b, table, 1000)
	if num(row[1]) != 999*1000/2 {
		t.Fatalf("metadata push: got %v", row)
	}
	wantObjects(t, s3c, "floe/segments/events/events_a_0.tar.gz", "floe/segments/events/events_b_0.tar.gz")
	meta := controllerGet(t, c.ControllerURL+"/segments/events/events_a_0/metadata")
	if !strings.Contains(meta, "s3://deep/floe/segments/events/events_a_0.tar.gz") {
		t.Fatalf("segment metadata has no S3 download URI: %s", meta)
	}

	// Replace b by c through lineage, all segment bytes through S3.
	if err := pinot.Replace(ctx, ctl, table, []string{"events_b_0"}, []pinot.Segment{buildSegment(t, table, "events_c_0", 700, 100, 2)}); err != nil {
		t.Fatal(err)
	}
	row = waitCount(t, b, table, 800)
	if want := float64(699*700/2) + 2*float64((700+799)*100/2); num(row[1]) != want {
		t.Fatalf("after replace: got %v, want sum %v", row, want)
	}
	if err := ctl.DeleteSegments(ctx, table, []string{"events_a_0"}); err != nil {
		t.Fatal(err)
	}
	waitCount(t, b, table, 100)
	// b stays until Pinot's retention manager removes the replaced segment.
	wantObjects(t, s3c, "floe/segments/events/events_b_0.tar.gz", "floe/segments/events/events_c_0.tar.gz")

	refuse := pinot.WithGuard(ctx, func(context.Context, pinot.Write) error { return errLeaseLost })
	if err := ctl.Upload(refuse, table, buildSegment(t, table, "events_d_0", 0, 10, 1)); !errors.Is(err, errLeaseLost) {
		t.Fatalf("want the guard's refusal, got %v", err)
	}
	wantObjects(t, s3c, "floe/segments/events/events_b_0.tar.gz", "floe/segments/events/events_c_0.tar.gz")
}

func wantObjects(t *testing.T, s3c *s3.Client, want ...string) {
	t.Helper()
	out, err := s3c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("deep")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out.Contents {
		got = append(got, aws.ToString(o.Key))
	}
	slices.Sort(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("deep store holds %v, want %v", got, want)
	}
}

func controllerGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	return string(body)
}
