package catalog_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

var restOK = []route{
	{method: "GET", prefix: "/iceberg/v1/config", status: 200, body: `{"defaults":{},"overrides":{}}`},
	{method: "GET", prefix: "/iceberg/v1/namespaces", status: 200, body: `{"namespaces":[["sales"]]}`},
}

func fakeKeys() map[string]string {
	return map[string]string{catalog.SecretAccessKeyID: "AKIDFLOETEST", catalog.SecretSecretAccessKey: "fake-secret"}
}

// TestSigV4_S3TablesREST: requests to the S3 Tables Iceberg REST endpoint
// are signed for service s3tables in the ARN's region, and /v1/config
// carries the bucket ARN as warehouse.
func TestSigV4_S3TablesREST(t *testing.T) {
	const arn = "arn:aws:s3tables:eu-central-1:111122223333:bucket/lake"
	fake := newFake(t, restOK...)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "lake", Type: catalog.TypeS3Tables,
		Props:   map[string]string{"arn": arn, "mode": "rest", "endpoint.s3tables": fake.URL, "endpoint.sts": fake.URL},
		Secrets: fakeKeys()}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	if _, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{}); err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	checkSigned(t, fake.requests(), "eu-central-1", "s3tables", arn)
}

// TestSigV4_GlueREST: Glue's Iceberg REST endpoint is signed for service
// glue in the configured region; the warehouse is the catalog id.
func TestSigV4_GlueREST(t *testing.T) {
	fake := newFake(t, restOK...)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "glue", Type: catalog.TypeGlue,
		Props:   map[string]string{"region": "ap-southeast-2", "mode": "rest", "catalog-id": "111122223333", "endpoint.glue": fake.URL},
		Secrets: fakeKeys()}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	if _, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{}); err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	checkSigned(t, fake.requests(), "ap-southeast-2", "glue", "111122223333")
}

func checkSigned(t *testing.T, reqs []*http.Request, region, service, warehouse string) {
	t.Helper()
	var sawConfig, sawList bool
	for _, r := range reqs {
		key, gotRegion, gotService := scopeParts(scope(r))
		if key != "AKIDFLOETEST" || gotRegion != region || gotService != service {
			t.Errorf("%s %s signed as key=%q region=%q service=%q; want AKIDFLOETEST %s %s (Authorization %q)",
				r.Method, r.URL, key, gotRegion, gotService, region, service, r.Header.Get("Authorization"))
		}
		if r.Header.Get("X-Amz-Content-Sha256") == "" {
			t.Errorf("%s %s has no x-amz-content-sha256", r.Method, r.URL)
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/iceberg/v1/config"):
			sawConfig = true
			if got := r.URL.Query().Get("warehouse"); got != warehouse {
				t.Errorf("/v1/config warehouse = %q, want %q", got, warehouse)
			}
		case strings.HasPrefix(r.URL.Path, "/iceberg/v1/namespaces"):
			sawList = true
		}
	}
	if !sawConfig || !sawList {
		t.Errorf("requests %v: want /iceberg/v1/config and /iceberg/v1/namespaces", reqs)
	}
}

// TestS3Tables_AutoMode: auto uses REST when the endpoint answers, and the
// native API when /iceberg is not served.
func TestS3Tables_AutoMode(t *testing.T) {
	const arn = "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"
	cfg := func(url string) catalog.Config {
		return catalog.Config{Name: "lake", Type: catalog.TypeS3Tables,
			Props: map[string]string{"arn": arn, "endpoint": url}, Secrets: fakeKeys()}
	}
	t.Run("rest available", func(t *testing.T) {
		fake := newFake(t, restOK...)
		cat, err := catalog.Open(t.Context(), cfg(fake.URL), discard())
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer cat.Close()
		p, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if err != nil || len(p.Items) != 1 || p.Items[0].String() != "sales" {
			t.Fatalf("ListNamespaces = %v, %v; want [sales] from REST", p.Items, err)
		}
	})
	t.Run("native fallback", func(t *testing.T) {
		fake := newFake(t, route{method: "GET", prefix: "/namespaces/", status: 200,
			body: `{"namespaces":[{"namespace":["native_ns"],"createdAt":"2026-01-01T00:00:00Z","createdBy":"x","ownerAccountId":"111122223333"}]}`})
		cat, err := catalog.Open(t.Context(), cfg(fake.URL), discard())
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer cat.Close()
		p, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if err != nil || len(p.Items) != 1 || p.Items[0].String() != "native_ns" {
			t.Fatalf("ListNamespaces = %v, %v; want [native_ns] from the native API", p.Items, err)
		}
		last := fake.requests()[len(fake.requests())-1]
		if _, _, svc := scopeParts(scope(last)); svc != "s3tables" || !strings.Contains(last.URL.EscapedPath(), "bucket%2Flake") {
			t.Errorf("native request %s signed for %q, want s3tables and the bucket ARN in the path", last.URL, svc)
		}
	})
}

// TestS3Tables_NativeErrorMapping: AWS error responses of the native API
// become categories with the permission and resource named.
func TestS3Tables_NativeErrorMapping(t *testing.T) {
	const arn = "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"
	cases := []struct {
		code   string
		status int
		want   error
		perm   string
	}{
		{"AccessDeniedException", 403, catalog.ErrAccessDenied, "needs s3tables:GetTableMetadataLocation on " + arn + "/table/sales/orders"},
		{"NotFoundException", 404, catalog.ErrNotFound, "check the table bucket ARN"},
		{"UnrecognizedClientException", 403, catalog.ErrBadCredentials, "s3tables:GetTableMetadataLocation"},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			fake := newFake(t, route{method: "GET", prefix: "/tables/", status: tc.status,
				header: map[string]string{"X-Amzn-Errortype": tc.code}, body: `{"message":"nope"}`})
			cat, err := catalog.Open(t.Context(), catalog.Config{Name: "lake", Type: catalog.TypeS3Tables,
				Props: map[string]string{"arn": arn, "mode": "native", "endpoint": fake.URL}, Secrets: fakeKeys()}, discard())
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer cat.Close()
			_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.perm) {
				t.Fatalf("LoadTable = %v\nwant %v containing %q", err, tc.want, tc.perm)
			}
			if strings.Contains(err.Error(), "fake-secret") {
				t.Fatalf("error leaks the secret: %v", err)
			}
		})
	}
}
