//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // s3:// FileIO
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/testpeer"
)

// s3HadoopTable writes sales.orders (rows rows, one snapshot) into a
// Hadoop warehouse at s3://bucket/wh in moto, with moto's default keys.
func s3HadoopTable(t *testing.T, moto, bucket string, rows int) {
	t.Helper()
	client := s3.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", ""),
		BaseEndpoint: aws.String(moto)}, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	cat, err := hadoop.NewCatalog("w", "s3://"+bucket+"/wh", iceberg.Properties{"s3.endpoint": moto, "s3.region": "us-east-1",
		"s3.access-key-id": "testing", "s3.secret-access-key": "testing", "allow-unsafe-commits": "true"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"sales", "orders"}, demoIcebergSchema())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC).UnixMicro()))
		b.Field(2).(*array.StringBuilder).Append(demoCities[i%len(demoCities)])
		b.Field(3).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(ctx, at, int64(rows), nil); err != nil {
		t.Fatal(err)
	}
}

// startFloe runs floe serve's wiring in-process on a free port.
func startFloe(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Server.Addr = freeAddr(t)
	cfg.Store.Path = filepath.Join(dir, "floe.db")
	cfg.Pinot.SegmentDir = filepath.Join(dir, "segments")
	cfg.Watcher.WorkDir = filepath.Join(dir, "work")
	cfg.Security.Egress.Allow = loopbackEgress() // moto listens on loopback
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newApp(ctx, cfg, newLogger(cfg.Log, io.Discard))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	srv, err := a.serve(ctx, cfg.Server.Addr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = shutdown(a, srv, newLogger(cfg.Log, io.Discard))
	})
	return "http://" + srv.Addr()
}

func floeCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := dispatch(t.Context(), args, &out, &errOut); err != nil {
		t.Fatalf("floe %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// The README's "Connect to AWS" flow against a running floe and moto with
// IAM enforced: create the connection → download the template (CLI, through
// the API) → deploy it → validate, browse and sync a table through the role.
func TestAWSAccess_ConnectThroughGeneratedRole(t *testing.T) {
	moto := testpeer.StartMoto(t)
	s3HadoopTable(t, moto, "lake-files", 120)
	user := testpeer.CreateMotoUser(t, moto, "floe-runner")
	base := startFloe(t)
	api := base + "/api/v1"

	conn := map[string]any{"name": "files", "type": "hadoop", "props": map[string]string{
		"warehouse": "s3://lake-files/wh", "region": "us-east-1", "endpoint": moto,
		"role-arn": "arn:aws:iam::" + testpeer.MotoAccount + ":role/floe-files-reader", "external-id": "ext-files-42"},
		"secrets": map[string]string{"access-key-id": user.ID, "secret-access-key": user.Secret}}
	body, _ := json.Marshal(conn)
	if code, out := postJSON(t, api+"/connections", string(body)); code != http.StatusCreated {
		t.Fatalf("create connection: %d %s", code, out)
	}

	var res awsaccess.Result
	policy := floeCLI(t, "aws-policy", "-server", base, "-connection", "files", "-trusted-principal", user.ARN)
	if err := json.Unmarshal([]byte(policy), &res); err != nil || res.Reader.TrustPolicy == nil ||
		strings.Join(res.Reader.Policy.Actions(), ",") != "s3:ListBucket,s3:GetObject" || strings.Contains(policy, user.Secret) {
		t.Fatalf("aws-policy printed %s (%v), want the reader policy with s3:ListBucket and s3:GetObject and a trust policy", policy, err)
	}
	tplPath := filepath.Join(t.TempDir(), "floe-files-reader.yaml")
	floeCLI(t, "aws-template", "-server", base, "-connection", "files", "-trusted-principal", user.ARN, "-o", tplPath)
	tpl, err := os.ReadFile(tplPath)
	if err != nil {
		t.Fatal(err)
	}
	st := testpeer.DeployMotoStack(t, moto, "floe-files", tpl)
	if st.Status != "CREATE_COMPLETE" || st.Outputs["RoleArn"] != conn["props"].(map[string]string)["role-arn"] {
		t.Fatalf("stack = %+v", st)
	}
	testpeer.EnableMotoAuth(t, moto)

	code, out := postJSON(t, api+"/connections/files/validate", "")
	if code != http.StatusOK || !strings.Contains(out, `"ok": true`) || !strings.Contains(out, "assumed-role/floe-files-reader") {
		t.Fatalf("validate: %d %s", code, out)
	}
	if code, out := call(t, api+"/connections/files/namespaces"); code != http.StatusOK || !strings.Contains(out, `"sales"`) {
		t.Fatalf("browse: %d %s", code, out)
	}
	req := `{"connection":"files","namespace":"sales","table":"orders","name":"orders","schedule":"0 0 0 1 1 ?"}`
	if code, out := postJSON(t, api+"/tables", req); code != http.StatusCreated {
		t.Fatalf("create table: %d %s", code, out)
	}
	run := waitRun(t, api+"/tables/orders")
	if run.Status != checkpoint.RunCompleted || run.Rows != 120 {
		t.Fatalf("first sync through the role: %+v, want COMPLETED with 120 rows", run)
	}
}

func call(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitRun waits for the table's first run to finish.
func waitRun(t *testing.T, url string) checkpoint.Run {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var v demoTableView
		_, out := call(t, url)
		if json.Unmarshal([]byte(out), &v) == nil && v.LastRun != nil && v.LastRun.Status != checkpoint.RunRunning {
			return *v.LastRun
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the table's first run never finished")
	return checkpoint.Run{}
}
