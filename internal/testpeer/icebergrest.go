package testpeer

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// IcebergRESTOptions configures StartIcebergREST.
type IcebergRESTOptions struct {
	// Warehouse is the warehouse URL, e.g. s3://bucket/wh (the bucket must exist).
	Warehouse string
	// S3Endpoint is the S3 endpoint the server's S3FileIO uses (moto).
	S3Endpoint string
}

// StartIcebergREST starts Apache Iceberg's REST catalog test server
// (org.apache.iceberg.rest.RESTCatalogServer, JDBC catalog on in-memory
// sqlite, S3FileIO against opts.S3Endpoint with moto's test keys) on a free
// port and returns its base URI (http://127.0.0.1:PORT). The server binds
// all interfaces; tests talk to it on 127.0.0.1 only.
func StartIcebergREST(t testing.TB, opts IcebergRESTOptions) string {
	t.Helper()
	java := Require(t, "java", "apt-get install -y openjdk-17-jre-headless")
	lib := filepath.Join(RepoRoot(t), "tools", "iceberg-rest", "target", "lib")
	if m, _ := filepath.Glob(filepath.Join(lib, "iceberg-open-api-*-test-fixtures.jar")); len(m) == 0 {
		t.Fatalf("testpeer: Iceberg REST server jars missing in %s: run scripts/setup-iceberg-rest.sh", lib)
	}
	port := FreePort(t)
	env := []string{
		"CATALOG_REST_PORT=" + strconv.Itoa(port),
		"CATALOG_URI=jdbc:sqlite:file::memory:?cache=shared",
		"CATALOG_WAREHOUSE=" + opts.Warehouse,
		"CATALOG_IO__IMPL=org.apache.iceberg.aws.s3.S3FileIO",
		"CATALOG_S3_ENDPOINT=" + opts.S3Endpoint,
		"CATALOG_S3_PATH__STYLE__ACCESS=true",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=testing",
		"AWS_SECRET_ACCESS_KEY=testing",
	}
	Start(t, ProcessSpec{Name: "iceberg-rest", Cmd: java, Env: env, Dir: t.TempDir(),
		Args: []string{"-Xmx512m", "-cp", filepath.Join(lib, "*"), "org.apache.iceberg.rest.RESTCatalogServer"}})
	uri := "http://127.0.0.1:" + strconv.Itoa(port)
	WaitHTTP(t, uri+"/v1/config", 120*time.Second, nil)
	return uri
}
