//go:build integration

package catalog_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/smithy-go"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/internal/testpeer"
)

// fixtureTable is one line printed by testdata/pyiceberg_fixture.py.
type fixtureTable struct {
	Table            string `json:"table"`
	MetadataLocation string `json:"metadata_location"`
	Snapshots        int    `json:"snapshots"`
	Rows             int64  `json:"rows"`
}

// runPython runs a script from testdata with the venv's python.
func runPython(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	py := testpeer.VenvBin(t, "python")
	cmd := exec.CommandContext(t.Context(), py, append([]string{filepath.Join("testdata", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, stderr.String())
	}
	return out
}

// pyIceberg writes tables with PyIceberg (two appends: 2 snapshots, 30 rows).
func pyIceberg(t *testing.T, args ...string) []fixtureTable {
	t.Helper()
	out := runPython(t, "pyiceberg_fixture.py", args...)
	var res []fixtureTable
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ft fixtureTable
		if err := json.Unmarshal(sc.Bytes(), &ft); err != nil {
			t.Fatalf("parse fixture output %q: %v", sc.Text(), err)
		}
		res = append(res, ft)
	}
	if len(res) == 0 {
		t.Fatalf("pyiceberg fixture printed no table: %s", out)
	}
	return res
}

// motoAWS is an AWS config for setting moto up (moto's test keys).
func motoAWS(endpoint string) aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("testing", "testing", ""),
		BaseEndpoint: aws.String(endpoint),
	}
}

// motoFileIO is iceberg-go FileIO props for moto's S3.
func motoFileIO(endpoint string) iceberg.Properties {
	return iceberg.Properties{"s3.endpoint": endpoint, "s3.region": "us-east-1",
		"s3.access-key-id": "testing", "s3.secret-access-key": "testing"}
}

func testingSecrets() map[string]string {
	return map[string]string{catalog.SecretAccessKeyID: "testing", catalog.SecretSecretAccessKey: "testing"}
}

// createBucket makes an S3 bucket in moto.
func createBucket(t *testing.T, endpoint, bucket string) {
	t.Helper()
	client := s3.NewFromConfig(motoAWS(endpoint), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
}

// s3TablesFixture creates a table bucket, namespace and table in moto,
// writes the table with PyIceberg into the table's warehouse location and
// registers it with UpdateTableMetadataLocation. It returns the bucket ARN
// and the metadata location.
func s3TablesFixture(t *testing.T, endpoint, bucket, ns, name string) (arn, loc string) {
	t.Helper()
	ctx := t.Context()
	client := s3tables.NewFromConfig(motoAWS(endpoint))
	b, err := client.CreateTableBucket(ctx, &s3tables.CreateTableBucketInput{Name: aws.String(bucket)})
	if err != nil {
		t.Fatalf("create table bucket: %v", err)
	}
	arn = aws.ToString(b.Arn)
	return arn, s3TablesAddTable(t, endpoint, arn, ns, name)
}

func s3TablesAddTable(t *testing.T, endpoint, arn, ns, name string) string {
	t.Helper()
	ctx := t.Context()
	client := s3tables.NewFromConfig(motoAWS(endpoint))
	_, err := client.CreateNamespace(ctx, &s3tables.CreateNamespaceInput{TableBucketARN: aws.String(arn), Namespace: []string{ns}})
	var conflict interface{ ErrorCode() string }
	if err != nil && !(errors.As(err, &conflict) && conflict.ErrorCode() == "ConflictException") {
		t.Fatalf("create namespace: %v", err)
	}
	if _, err := client.CreateTable(ctx, &s3tables.CreateTableInput{TableBucketARN: aws.String(arn),
		Namespace: aws.String(ns), Name: aws.String(name), Format: "ICEBERG"}); err != nil {
		t.Fatalf("create table: %v", err)
	}
	md, err := client.GetTableMetadataLocation(ctx, &s3tables.GetTableMetadataLocationInput{
		TableBucketARN: aws.String(arn), Namespace: aws.String(ns), Name: aws.String(name)})
	if err != nil {
		t.Fatalf("get table metadata location: %v", err)
	}
	// Written by iceberg-go: PyIceberg's pyarrow FileIO lists objects before
	// writing, which table buckets (and moto's model of them) refuse.
	tbl, err := lakefixture.WriteFixture(ctx, lakefixture.Options{Name: "scratch", DBPath: filepath.Join(t.TempDir(), "scratch.db"),
		Warehouse: "s3://unused/wh", Props: motoFileIO(endpoint)}, ns, name, aws.ToString(md.WarehouseLocation), 10, 20)
	if err != nil {
		t.Fatalf("write %s.%s with iceberg-go: %v", ns, name, err)
	}
	registerS3Table(t, endpoint, arn, ns, name, tbl.MetadataLocation())
	return tbl.MetadataLocation()
}

// registerS3Table points an S3 Tables table at a metadata location.
func registerS3Table(t *testing.T, endpoint, arn, ns, name, loc string) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context()) // also used from t.Cleanup
	client := s3tables.NewFromConfig(motoAWS(endpoint))
	md, err := client.GetTableMetadataLocation(ctx, &s3tables.GetTableMetadataLocationInput{
		TableBucketARN: aws.String(arn), Namespace: aws.String(ns), Name: aws.String(name)})
	if err != nil {
		t.Fatalf("get table metadata location: %v", err)
	}
	if _, err := client.UpdateTableMetadataLocation(ctx, &s3tables.UpdateTableMetadataLocationInput{
		TableBucketARN: aws.String(arn), Namespace: aws.String(ns), Name: aws.String(name),
		MetadataLocation: aws.String(loc), VersionToken: md.VersionToken}); err != nil {
		// moto 5.2.5 answers 200 with "namespace" as a string where the API
		// has a list; the SDK cannot decode that, but the update happened.
		// The read-back below checks it.
		var de *smithy.DeserializationError
		if !errors.As(err, &de) {
			t.Fatalf("update table metadata location: %v", err)
		}
	}
	md, err = client.GetTableMetadataLocation(ctx, &s3tables.GetTableMetadataLocationInput{
		TableBucketARN: aws.String(arn), Namespace: aws.String(ns), Name: aws.String(name)})
	if err != nil || aws.ToString(md.MetadataLocation) != loc {
		t.Fatalf("metadata location after update = %v, %v; want %s", aws.ToString(md.MetadataLocation), err, loc)
	}
}

// checkLoaded loads ident and checks it is the fixture table.
func checkLoaded(t *testing.T, cat catalog.Catalog, ident catalog.TableIdent, wantLoc string) {
	t.Helper()
	tbl, err := cat.LoadTable(t.Context(), ident)
	if err != nil {
		t.Fatalf("LoadTable(%s): %v", ident, err)
	}
	if wantLoc != "" && tbl.MetadataLocation != wantLoc {
		t.Errorf("metadata location = %q, want %q", tbl.MetadataLocation, wantLoc)
	}
	if len(tbl.Snapshots()) != 2 || tbl.UUID == "" {
		t.Errorf("snapshots = %d, uuid %q; want 2 and a uuid", len(tbl.Snapshots()), tbl.UUID)
	}
	if rows := countRows(t, tbl); rows != 30 {
		t.Errorf("rows = %d, want 30", rows)
	}
	info, err := cat.Describe(t.Context(), ident)
	if err != nil {
		t.Fatalf("Describe(%s): %v", ident, err)
	}
	if info.SnapshotCount != 2 || info.CurrentSnapshot == nil || info.FormatVersion != 2 || len(info.Schema.Fields()) != 2 {
		t.Errorf("Describe = %+v", info)
	}
}

// checkValid runs Validate and wants every step ok.
func checkValid(t *testing.T, cat catalog.Catalog) {
	t.Helper()
	rep := cat.Validate(t.Context())
	if !rep.OK || len(rep.Steps) < 4 {
		t.Fatalf("Validate = %+v, want every step ok", rep)
	}
	for _, s := range rep.Steps {
		if s.Status != catalog.StepOK {
			t.Errorf("step %q: %s %s", s.Name, s.Status, s.Error)
		}
	}
}

// Conformance keys: moto takes any key, and these are long and distinctive
// enough that the suite can look for them in every error.
const (
	confKeyID  = "AKIAFLOECONFORMANCE7"
	confSecret = "floe-conformance-secret-access-key-0001"
)

// conformanceSecrets are the conformance keys under prefix ("" or "data.").
func conformanceSecrets(prefix string) map[string]string {
	return map[string]string{prefix + catalog.SecretAccessKeyID: confKeyID, prefix + catalog.SecretSecretAccessKey: confSecret}
}

// deadEndpoint is a loopback URL nothing listens on.
func deadEndpoint(t *testing.T) string {
	return "http://127.0.0.1:" + itoa(testpeer.FreePort(t))
}

// brokenAWS opens cfg against a dead endpoint: every AWS call is
// ErrUnreachable.
func brokenAWS(cfg catalog.Config) func(t *testing.T) (catalog.Catalog, error) {
	return func(t *testing.T) (catalog.Catalog, error) {
		cfg.Props = maps.Clone(cfg.Props)
		cfg.Props[catalog.PropEndpoint] = deadEndpoint(t)
		return catalog.Open(t.Context(), cfg, discard())
	}
}
