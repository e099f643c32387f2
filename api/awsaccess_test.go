package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/checkpoint"
)

func post(t *testing.T, url, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// The IAM policy and CloudFormation routes answer for a saved connection
// and for an unsaved body, and a bad input is a 400 naming the field.
func TestServer_AWSAccess(t *testing.T) {
	srv, store := newServer(t)
	if err := store.PutConnection(t.Context(), checkpoint.Connection{Name: "files", Type: "hadoop",
		Props: map[string]string{"warehouse": "s3://lake-files/wh", "region": "us-east-1",
			"role-arn": "arn:aws:iam::111122223333:role/floe-files-reader", "external-id": "ext-42"},
		Secrets: map[string]string{"access-key-id": "AKIDFLOE", "secret-access-key": secret}}); err != nil {
		t.Fatal(err)
	}
	base := srv.URL + "/api/v1/connections/"
	q := url.Values{"trustedPrincipal": {"999988887777"}, "deepStore": {"s3://deep/segments"}}

	code, _, body := get(t, base+"files/iam-policy?"+q.Encode())
	var res awsaccess.Result
	if code != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil {
		t.Fatalf("GET iam-policy: %d %s", code, body)
	}
	if res.Access != awsaccess.HadoopS3 || res.Reader.Name != "floe-files-reader" || res.Reader.TrustPolicy == nil ||
		!strings.Contains(body, "s3:PutObject") || strings.Contains(body, secret) {
		t.Errorf("GET iam-policy = %s", body)
	}

	code, hdr, body := get(t, base+"files/cloudformation?"+q.Encode())
	if code != http.StatusOK || hdr.Get("Content-Type") != "application/yaml" ||
		hdr.Get("Content-Disposition") != `attachment; filename="floe-files-reader.yaml"` || !strings.Contains(body, "AWS::IAM::Role") {
		t.Errorf("GET cloudformation: %d %v\n%s", code, hdr, body)
	}

	unsaved := `{"type":"glue","props":{"region":"us-east-1","catalog-id":"111122223333"},"secrets":{"secret-access-key":"` + secret +
		`"},"options":{"data":["s3://lake/wh"],"lakeFormation":true}}`
	code, _, body = post(t, base+"new-glue/iam-policy", unsaved)
	if code != http.StatusOK || !strings.Contains(body, "lakeformation:GetDataAccess") || !strings.Contains(body, `"connection": "new-glue"`) ||
		strings.Contains(body, secret) {
		t.Errorf("POST iam-policy: %d %s", code, body)
	}
	code, hdr, body = post(t, base+"new-glue/cloudformation", unsaved)
	if code != http.StatusOK || !strings.Contains(hdr.Get("Content-Disposition"), "floe-new-glue-reader.yaml") || !strings.Contains(body, "glue:GetTable") {
		t.Errorf("POST cloudformation: %d %v %s", code, hdr, body)
	}

	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "new-glue/iam-policy", `{"type":"glue","props":{"region":"us-east-1","catalog-id":"111122223333"}}`, "options.data"},
		{"POST", "new-glue/iam-policy", `{"type":"glue","props":{}}`, "props.region"},
		{"POST", "x/iam-policy", `{"name":"y","type":"hadoop","props":{"warehouse":"s3://b"}}`, "name"},
		{"POST", "x/iam-policy", `{"type":"hadoop","props":{"warehouse":"/local/wh"}}`, "nothing to grant"},
		{"GET", "files/iam-policy?kmsKey=alias%2Fx", "", "options.kmsKeys[0]"},
		{"GET", "files/iam-policy?lakeFormation=maybe", "", "lakeFormation"},
		{"GET", "files/cloudformation?role=middle", "", "no via-role-arn"},
		{"GET", "lake/iam-policy", "", "nothing to grant"},
	} {
		var code int
		var body string
		if tc.method == "GET" {
			code, _, body = get(t, base+tc.path)
		} else {
			code, _, body = post(t, base+tc.path, tc.body)
		}
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) || strings.Contains(body, secret) {
			t.Errorf("%s %s: %d %s; want 400 naming %s", tc.method, tc.path, code, body, tc.want)
		}
	}
	if code, _, body := get(t, base+"nope/iam-policy"); code != http.StatusNotFound {
		t.Errorf("GET iam-policy of a missing connection: %d %s", code, body)
	}
	if code, _, body := post(t, base+"files/validate?wait=forever", ""); code != http.StatusBadRequest || !strings.Contains(body, "wait") {
		t.Errorf("validate?wait=forever: %d %s", code, body)
	}
}
