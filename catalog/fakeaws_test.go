package catalog_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeServer records every request and answers from a route table keyed
// by "METHOD /path-prefix"; unmatched requests get 404.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

type route struct {
	method, prefix string
	status         int
	header         map[string]string
	body           string
}

func newFake(t *testing.T, routes ...route) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(r.Context()))
		f.mu.Unlock()
		for _, rt := range routes {
			if r.Method == rt.method && strings.HasPrefix(r.URL.EscapedPath(), rt.prefix) {
				for k, v := range rt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(rt.status)
				_, _ = w.Write([]byte(rt.body))
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

// scope returns the SigV4 credential scope of a request:
// <key>/<date>/<region>/<service>/aws4_request.
func scope(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok || !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
		return ""
	}
	cred, _, _ := strings.Cut(rest, ",")
	return cred
}

// scopeParts splits a scope into key, region and service.
func scopeParts(s string) (key, region, service string) {
	p := strings.Split(s, "/")
	if len(p) != 5 || p[4] != "aws4_request" {
		return "", "", ""
	}
	return p[0], p[2], p[3]
}

// newHangingServer accepts requests and answers none until release closes.
func newHangingServer(t *testing.T, release <-chan struct{}) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
