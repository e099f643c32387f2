package catalog_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/catalog"
)

// oauthFake is a REST catalog that wants "Bearer <token>" on every call
// and issues token for the client credentials id:secret.
func oauthFake(t *testing.T, token, id, secret string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/oauth/tokens" {
			body, _ := io.ReadAll(r.Body)
			form, _ := url.ParseQuery(string(body))
			if form.Get("grant_type") != "client_credentials" || form.Get("client_id") != id || form.Get("client_secret") != secret {
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":"invalid_client","error_description":"unknown client"}`)
				return
			}
			_, _ = io.WriteString(w, `{"access_token":"`+token+`","token_type":"bearer","expires_in":3600,"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"not authorized","type":"NotAuthorizedException","code":401}}`)
			return
		}
		switch r.URL.Path {
		case "/v1/config":
			_, _ = io.WriteString(w, `{"defaults":{},"overrides":{}}`)
		case "/v1/namespaces":
			_, _ = io.WriteString(w, `{"namespaces":[["sales"]]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestRESTCatalog_Auth(t *testing.T) {
	cases := []struct {
		name    string
		secrets map[string]string
		wantErr error
	}{
		{"oauth2 client credentials", map[string]string{"credential": "floe-client:floe-secret-1"}, nil},
		{"bearer token", map[string]string{"token": "tok-abc"}, nil},
		{"wrong client secret", map[string]string{"credential": "floe-client:wrong-secret-2"}, catalog.ErrBadCredentials},
		{"wrong token", map[string]string{"token": "stale-token-3"}, catalog.ErrBadCredentials},
		{"no credentials", nil, catalog.ErrBadCredentials},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := oauthFake(t, "tok-abc", "floe-client", "floe-secret-1")
			cat, err := catalog.Open(t.Context(), catalog.Config{Name: "r", Type: catalog.TypeREST,
				Props: map[string]string{"uri": srv.URL}, Secrets: tc.secrets}, discard())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), srv.URL) {
					t.Fatalf("Open = %v, want %v naming %s", err, tc.wantErr, srv.URL)
				}
				for _, v := range tc.secrets {
					if strings.Contains(err.Error(), strings.SplitN(v, ":", 2)[len(strings.SplitN(v, ":", 2))-1]) {
						t.Fatalf("error leaks a secret: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer cat.Close()
			p, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
			if err != nil || len(p.Items) != 1 {
				t.Fatalf("ListNamespaces = %v, %v", p.Items, err)
			}
			if last := (*seen)[len(*seen)-1]; !strings.HasSuffix(last, "Bearer tok-abc") {
				t.Errorf("last request %q was not sent with the bearer token", last)
			}
		})
	}
}
