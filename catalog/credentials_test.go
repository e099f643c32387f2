package catalog_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/catalog"
)

// stsCall is one AssumeRole call seen by the fake: which key signed it and
// what it asked for.
type stsCall struct {
	signedBy, roleARN, externalID, session string
}

// roleChainFake serves STS AssumeRole (answering with the key
// "AKID<role name>") and Glue GetDatabases. Unlike moto it records the
// ExternalId of every hop, so the test can check it.
type roleChainFake struct {
	srv      *httptest.Server
	mu       sync.Mutex
	assumes  []stsCall
	glueKeys []string
}

func newRoleChainFake(t *testing.T) *roleChainFake {
	t.Helper()
	f := &roleChainFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *roleChainFake) serve(w http.ResponseWriter, r *http.Request) {
	key, _, service := scopeParts(scope(r))
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch service {
	case "sts":
		form, _ := url.ParseQuery(string(body))
		call := stsCall{signedBy: key, roleARN: form.Get("RoleArn"), externalID: form.Get("ExternalId"), session: form.Get("RoleSessionName")}
		f.assumes = append(f.assumes, call)
		role := call.roleARN[strings.LastIndex(call.roleARN, "/")+1:]
		w.Header().Set("Content-Type", "text/xml")
		_, _ = io.WriteString(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
<Credentials><AccessKeyId>AKID`+role+`</AccessKeyId><SecretAccessKey>secret-`+role+`</SecretAccessKey>
<SessionToken>token-`+role+`</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>
<AssumedRoleUser><Arn>arn:aws:sts::111122223333:assumed-role/`+role+`/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser>
</AssumeRoleResult><ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></AssumeRoleResponse>`)
	case "glue":
		f.glueKeys = append(f.glueKeys, key)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = io.WriteString(w, `{"DatabaseList":[{"Name":"sales"}]}`)
	default:
		http.Error(w, "unexpected service "+service, http.StatusBadRequest)
	}
}

// TestCredentials_RoleChainSendsExternalIDs: floe's own role is assumed
// from the base keys with its external id, the customer's role from that
// role's keys with the customer's external id, and Glue is called with the
// customer role's keys.
func TestCredentials_RoleChainSendsExternalIDs(t *testing.T) {
	f := newRoleChainFake(t)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "x-account", Type: catalog.TypeGlue,
		Props: map[string]string{"region": "us-east-1", "endpoint": f.srv.URL,
			"via-role-arn": "arn:aws:iam::999988887777:role/floeservice", "via-external-id": "floe-ext",
			"role-arn": "arn:aws:iam::111122223333:role/customer", "external-id": "cust-ext"},
		Secrets: map[string]string{"access-key-id": "AKIDBASE", "secret-access-key": "base-secret"}}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	if _, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{}); err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	want := []stsCall{
		{signedBy: "AKIDBASE", roleARN: "arn:aws:iam::999988887777:role/floeservice", externalID: "floe-ext", session: "floe-x-account"},
		{signedBy: "AKIDfloeservice", roleARN: "arn:aws:iam::111122223333:role/customer", externalID: "cust-ext", session: "floe-x-account"},
	}
	if len(f.assumes) != len(want) {
		t.Fatalf("AssumeRole calls = %+v, want %+v", f.assumes, want)
	}
	for i := range want {
		if f.assumes[i] != want[i] {
			t.Errorf("AssumeRole hop %d = %+v, want %+v", i+1, f.assumes[i], want[i])
		}
	}
	if len(f.glueKeys) != 1 || f.glueKeys[0] != "AKIDcustomer" {
		t.Errorf("Glue signed with %v, want the customer role's key AKIDcustomer", f.glueKeys)
	}
}

// TestCredentials_SingleRoleNoExternalID: without an external id none is sent.
func TestCredentials_SingleRoleNoExternalID(t *testing.T) {
	f := newRoleChainFake(t)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "r", Type: catalog.TypeGlue,
		Props: map[string]string{"region": "us-east-1", "endpoint": f.srv.URL, "role-arn": "arn:aws:iam::111122223333:role/reader",
			"role-session-name": "sync-7"},
		Secrets: map[string]string{"access-key-id": "AKIDBASE", "secret-access-key": "base-secret"}}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	if _, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{}); err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	want := stsCall{signedBy: "AKIDBASE", roleARN: "arn:aws:iam::111122223333:role/reader", session: "sync-7"}
	if len(f.assumes) != 1 || f.assumes[0] != want || len(f.glueKeys) != 1 || f.glueKeys[0] != "AKIDreader" {
		t.Fatalf("AssumeRole %+v, Glue keys %v; want %+v and AKIDreader", f.assumes, f.glueKeys, want)
	}
}
