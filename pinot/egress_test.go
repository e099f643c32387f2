package pinot_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/pinot"
)

// authLog is a peer that records the Authorization header of each call.
type authLog struct {
	mu    sync.Mutex
	auths []string
}

func (a *authLog) handler(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.auths = append(a.auths, r.Header.Get("Authorization"))
		a.mu.Unlock()
		next(w, r)
	}
}

func (a *authLog) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.auths)
}

// egress E5: a controller answering 302 to another port of localhost does
// not get its Authorization header forwarded there.
func TestController_RedirectNotFollowed(t *testing.T) {
	var second authLog
	target := httptest.NewServer(second.handler(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{}`) }))
	defer target.Close()
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	ctl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+port+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer ctl.Close()
	c, err := pinot.NewController(ctl.URL, 5*time.Second, map[string]string{"Authorization": "Basic YWRtaW46cGlub3QtcHctMTIzNDU2"})
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry
	_, err = c.ListSegments(t.Context(), "orders")
	var re *egress.RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "redirected to http://localhost:"+port) {
		t.Fatalf("ListSegments = %v, want a RedirectError naming the target", err)
	}
	if n := second.count(); n != 0 {
		t.Fatalf("the redirect target got %d calls; want none", n)
	}
}

// egress E1-E3 for Pinot: with the default policy a loopback controller is
// refused at dial, once (a refusal is not retried); allowing loopback
// reaches it.
func TestController_Egress(t *testing.T) {
	var seen authLog
	ctl := httptest.NewServer(seen.handler(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `[]`) }))
	defer ctl.Close()
	c, err := pinot.NewController(ctl.URL, 5*time.Second, nil, pinot.WithEgress(egress.Default()))
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry
	_, err = c.ListSegments(t.Context(), "orders")
	if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), "security.egress.pinot.allow") || seen.count() != 0 {
		t.Fatalf("ListSegments (loopback refused) = %v with %d calls; want refused naming the setting, no call", err, seen.count())
	}
	lo, err := egress.New(egress.Config{Pinot: egress.Rule{Allow: []string{"127.0.0.0/8"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err = pinot.NewController(ctl.URL, 5*time.Second, nil, pinot.WithEgress(lo))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSegments(t.Context(), "orders"); err != nil || seen.count() != 1 {
		t.Fatalf("ListSegments (loopback allowed) = %v with %d calls", err, seen.count())
	}
}

// egress E6: a controller echoing a long error answer shows an excerpt in
// the error, its headers scrubbed before the cut; the whole answer stays
// in APIError.Body for matching.
func TestController_LongErrorAnswer(t *testing.T) {
	const header = "Bearer pinot-tok-0a9b8c7d6e5f"
	ctl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"code":400,"error":"`+strings.Repeat("A", 180)+r.Header.Get("Authorization")+strings.Repeat("B", 5000)+`"}`)
	}))
	defer ctl.Close()
	c, err := pinot.NewController(ctl.URL, 5*time.Second, map[string]string{"Authorization": header})
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry
	_, err = c.ListSegments(t.Context(), "orders")
	var api *pinot.APIError
	if !errors.As(err, &api) || !strings.Contains(api.Body, strings.Repeat("B", 5000)) {
		t.Fatalf("ListSegments = %v, want an APIError keeping the answer", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "pinot-tok") || strings.Contains(msg, strings.Repeat("B", 30)) || len(msg) > 400 {
		t.Fatalf("error carries more than a scrubbed excerpt (%d bytes): %s", len(msg), msg)
	}
}

// The S3 deep store dials under the deep-store rules: a loopback endpoint
// is refused (no request sent, no retry) until loopback is allowed.
func TestS3DeepStore_Egress(t *testing.T) {
	var seen authLog
	s3 := httptest.NewServer(seen.handler(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer s3.Close()
	tarball := t.TempDir() + "/s.tar.gz"
	if err := os.WriteFile(tarball, []byte("tar"), 0o600); err != nil {
		t.Fatal(err)
	}
	lo, err := egress.New(egress.Config{DeepStore: egress.Rule{Allow: []string{"127.0.0.0/8"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy  *egress.Policy
		reaches bool
	}{{egress.Default(), false}, {lo, true}} {
		store, err := pinot.NewS3DeepStore(t.Context(), pinot.S3Options{S3Location: pinot.S3Location{URI: "s3://deep/floe", Region: "us-east-1", Endpoint: s3.URL,
			PathStyle: true, AccessKeyID: "AKIDDEEPSTORE", SecretAccessKey: "deep-secret-0123"}, Retry: fastRetry, Egress: c.policy})
		if err != nil {
			t.Fatal(err)
		}
		before := seen.count()
		err = store.Put(t.Context(), "orders", "seg_0", tarball)
		if c.reaches != (err == nil) || c.reaches != (seen.count() > before) || !c.reaches && !errors.Is(err, egress.ErrRefused) {
			t.Fatalf("Put (allowed %t) = %v with %d requests", c.reaches, err, seen.count()-before)
		}
	}
}
