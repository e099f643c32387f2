package catalog_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
)

// trustFake is an STS that decides AssumeRole from the trust policies
// awsaccess generated, the way AWS does: the caller must be the principal
// (a role principal also matches that role's sessions, an account root any
// principal of the account), and every StringEquals condition must hold,
// a key absent from the request never matching. moto cannot show the last
// rule (it passes a request without ExternalId); this fake does.
type trustFake struct {
	srv   *httptest.Server
	trust map[string]*awsaccess.Policy // role ARN → trust policy
	keys  map[string]string            // access key → caller ARN
}

func newTrustFake(t *testing.T, roles ...*awsaccess.Role) *trustFake {
	t.Helper()
	f := &trustFake{trust: map[string]*awsaccess.Policy{}, keys: map[string]string{"AKIDFLOE": "arn:aws:iam::999988887777:user/floe",
		"AKIDOTHER": "arn:aws:iam::444455556666:user/someone"}}
	for _, r := range roles {
		f.trust[r.ARN] = r.TrustPolicy
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *trustFake) serve(w http.ResponseWriter, r *http.Request) {
	key, _, service := scopeParts(scope(r))
	body, _ := io.ReadAll(r.Body)
	switch service {
	case "glue":
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = io.WriteString(w, `{"DatabaseList":[{"Name":"sales"}]}`)
		return
	case "sts":
	default:
		http.Error(w, "unexpected service "+service, http.StatusBadRequest)
		return
	}
	form, _ := url.ParseQuery(string(body))
	role := form.Get("RoleArn")
	if !f.allowed(f.keys[key], role, form) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: `+f.keys[key]+
			` is not authorized to perform: sts:AssumeRole on resource: `+role+`</Message></Error><RequestId>r</RequestId></ErrorResponse>`)
		return
	}
	name := role[strings.LastIndex(role, "/")+1:]
	account := strings.Split(role, ":")[4]
	f.keys["AKID"+name] = "arn:aws:sts::" + account + ":assumed-role/" + name + "/" + form.Get("RoleSessionName")
	w.Header().Set("Content-Type", "text/xml")
	_, _ = io.WriteString(w, `<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>AKID`+name+`</AccessKeyId>
<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>
<AssumedRoleUser><Arn>`+f.keys["AKID"+name]+`</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult></AssumeRoleResponse>`)
}

// allowed evaluates the role's trust policy for the caller and request.
func (f *trustFake) allowed(caller, role string, form url.Values) bool {
	trust := f.trust[role]
	if trust == nil || caller == "" {
		return false
	}
	request := map[string]string{}
	if form.Has("ExternalId") {
		request["sts:ExternalId"] = form.Get("ExternalId")
	}
	for _, st := range trust.Statement {
		if st.Effect != "Allow" || !slices.Contains(st.Action, "sts:AssumeRole") || !principalMatches(st.Principal["AWS"], caller) {
			continue
		}
		ok := true
		for op, keys := range st.Condition {
			for k, want := range keys {
				got, present := request[k]
				ok = ok && op == "StringEquals" && present && slices.Contains(want, got)
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func principalMatches(principal, caller string) bool {
	if principal == caller {
		return true
	}
	if acct, ok := strings.CutSuffix(strings.TrimPrefix(principal, "arn:aws:iam::"), ":root"); ok {
		return strings.Split(caller, ":")[4] == acct
	}
	if _, role, ok := strings.Cut(principal, ":role/"); ok { // a role's sessions
		return strings.HasPrefix(caller, "arn:aws:sts::"+strings.Split(principal, ":")[4]+":assumed-role/"+role+"/")
	}
	return false
}

// The generated trust lets floe through the two-hop chain only with both
// external ids, and refuses a missing or wrong one and an untrusted caller
// (invariant A4 of package awsaccess).
func TestGeneratedTrust_RefusesMissingExternalID(t *testing.T) {
	props := map[string]string{catalog.PropRegion: "us-east-1",
		catalog.PropViaRoleARN: "arn:aws:iam::999988887777:role/floe-service", catalog.PropViaExternalID: "floe-own-ext",
		catalog.PropRoleARN: "arn:aws:iam::111122223333:role/floe-lake-reader", catalog.PropExternalID: "lake-ext"}
	cfg := catalog.Config{Name: "x", Type: catalog.TypeGlue, Props: props}
	res, err := awsaccess.Generate(cfg.AWSAccess(), awsaccess.Options{TrustedPrincipal: "999988887777", Data: []string{"s3://lake"}})
	if err != nil {
		t.Fatal(err)
	}
	f := newTrustFake(t, &res.Reader, res.Middle)
	for _, tc := range []struct {
		name, key string
		change    map[string]string
		refused   string // the role refused, "" when the chain goes through
	}{
		{"both external ids", "AKIDFLOE", nil, ""},
		{"no reader external id", "AKIDFLOE", map[string]string{catalog.PropExternalID: ""}, props[catalog.PropRoleARN]},
		{"wrong reader external id", "AKIDFLOE", map[string]string{catalog.PropExternalID: "guess"}, props[catalog.PropRoleARN]},
		{"no middle external id", "AKIDFLOE", map[string]string{catalog.PropViaExternalID: ""}, props[catalog.PropViaRoleARN]},
		{"untrusted caller", "AKIDOTHER", nil, props[catalog.PropViaRoleARN]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog.Config{Name: "x", Type: catalog.TypeGlue, Props: map[string]string{catalog.PropEndpoint: f.srv.URL},
				Secrets: map[string]string{catalog.SecretAccessKeyID: tc.key, catalog.SecretSecretAccessKey: "s"}}
			for k, v := range props {
				if nv, ok := tc.change[k]; ok {
					v = nv
				}
				if v != "" {
					c.Props[k] = v
				}
			}
			cat, err := catalog.Open(t.Context(), c, discard())
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			_, err = cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("ListNamespaces through the chain: %v", err)
				}
				return
			}
			if !errors.Is(err, catalog.ErrAccessDenied) || !strings.Contains(err.Error(), "assume role "+tc.refused) {
				t.Fatalf("ListNamespaces = %v, want ErrAccessDenied assuming %s", err, tc.refused)
			}
		})
	}
}
