package egress_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/internal/egress"
)

// client returns an HTTP client of kind under p.
func client(p *egress.Policy, kind egress.Kind, scrub func(string) string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.ResponseHeaderTimeout = 300 * time.Millisecond
	return p.Client(kind, tr, &net.Dialer{Timeout: 300 * time.Millisecond}, 2*time.Second, scrub)
}

func get(c *http.Client, url string, header http.Header) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header = header
	resp, err := c.Do(req)
	if err == nil {
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	return resp, err
}

// E3: a name that resolves to loopback is refused when loopback is not
// allowed, although the name itself is not; the same name reaches the
// server once loopback is allowed (so the refusal is the policy's).
func TestPolicy_DialRebinding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dns := egress.StaticResolver{"catalog.example.com": {netip.MustParseAddr("127.0.0.1")},
		"meta.example.com": {netip.MustParseAddr("169.254.169.254")}}
	strict, err := egress.New(egress.Config{}, dns)
	if err != nil {
		t.Fatal(err)
	}
	_, err = get(client(strict, egress.Catalog, nil), "http://catalog.example.com:"+port+"/v1/config", nil)
	var refused *egress.RefusedError
	if !errors.As(err, &refused) || refused.Class != "loopback" || !strings.Contains(err.Error(), "catalog.example.com") {
		t.Fatalf("GET through a name resolving to 127.0.0.1 = %v, want a loopback refusal naming the host", err)
	}
	_, err = get(client(strict, egress.AWS, nil), "http://meta.example.com/latest/meta-data/", nil)
	if !errors.As(err, &refused) || refused.Class != "metadata" {
		t.Fatalf("GET through a name resolving to the metadata address = %v, want refused", err)
	}
	open, err := egress.New(egress.Config{Allow: []string{"127.0.0.0/8"}}, dns)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := get(client(open, egress.Catalog, nil), "http://catalog.example.com:"+port+"/v1/config", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET with loopback allowed = %v, %v; want 200", resp, err)
	}
}

// E1 at dial time: literal metadata and link-local addresses are refused
// before any packet is sent.
func TestPolicy_DialMetadata(t *testing.T) {
	c := client(egress.Default(), egress.AWS, nil)
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://169.254.1.1:8080/"} {
		_, err := get(c, u, nil)
		if !errors.Is(err, egress.ErrRefused) {
			t.Errorf("GET %s = %v, want refused", u, err)
		}
	}
}

// E4: a closed port, a listener that never answers (a filtered port as a
// client sees it, within its timeout), a peer that answers no HTTP and a
// name that does not resolve all give the same error text.
func TestTransport_SameErrorForEveryDialFailure(t *testing.T) {
	closed := freeAddr(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0") // never accepts
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	garbage := garbageServer(t)
	dns := egress.StaticResolver{"down.example.com": {netip.MustParseAddr("127.0.0.1")}}
	p, err := egress.New(egress.Config{Allow: []string{"127.0.0.0/8"}}, dns)
	if err != nil {
		t.Fatal(err)
	}
	c := client(p, egress.Catalog, nil)
	texts := map[string]string{}
	for name, addr := range map[string]string{"closed": closed, "silent": silent.Addr().String(), "garbage": garbage} {
		_, err := get(c, "http://"+addr+"/v1/config", nil)
		if err == nil {
			t.Fatalf("%s port: no error", name)
		}
		texts[name] = strings.ReplaceAll(err.Error(), addr, "ADDR")
	}
	_, err = get(c, "http://nowhere.example.com:81/v1/config", nil)
	texts["unresolved"] = strings.ReplaceAll(err.Error(), "nowhere.example.com:81", "ADDR")
	want := `Get "http://ADDR/v1/config": cannot reach catalog at ADDR`
	for name, got := range texts {
		if got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if !errors.Is(err, egress.ErrUnreachable) {
		t.Errorf("errors.Is(ErrUnreachable) = false for %v", err)
	}
}

// garbageServer accepts connections and answers bytes that are not HTTP.
func garbageServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(conn, "SSH-2.0-OpenSSH_9.6\r\n")
			conn.Close()
		}
	}()
	return ln.Addr().String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// recorder is a server that records the Authorization header of every
// request it gets.
type recorder struct {
	mu    sync.Mutex
	auths []string
	srv   *httptest.Server
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auths = append(r.auths, req.Header.Get("Authorization"))
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

// E5: a 302 to another port of the same host is not followed; the target
// gets no request, so no credential; a redirect on the same origin is.
func TestTransport_CrossOriginRedirect(t *testing.T) {
	second := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "{}") })
	first := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/v1/config", http.StatusFound)
			return
		}
		if r.URL.Path == "/v1/config" {
			io.WriteString(w, "{}")
			return
		}
		http.Redirect(w, r, "http://localhost:"+second.srv.URL[strings.LastIndex(second.srv.URL, ":")+1:]+"/v1/config?x=1", http.StatusFound)
	})
	p, err := egress.New(egress.Config{Allow: []string{"127.0.0.0/8", "::1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client(p, egress.Catalog, nil)
	hdr := http.Header{"Authorization": {"Bearer tok-4f5e6d7c8b9a"}}
	_, err = get(c, first.srv.URL+"/elsewhere", hdr)
	var re *egress.RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "redirected to http://localhost:") || strings.Contains(err.Error(), "x=1") {
		t.Fatalf("GET redirected to another port = %v, want a RedirectError naming the target without its query", err)
	}
	if got := second.seen(); len(got) != 0 {
		t.Fatalf("the redirect target received %d requests (Authorization %q); want none", len(got), got)
	}
	resp, err := get(c, first.srv.URL+"/same", hdr)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET redirected on the same origin = %v, %v; want followed", resp, err)
	}
	if got := first.seen(); len(got) != 3 || got[2] != "Bearer tok-4f5e6d7c8b9a" {
		t.Fatalf("first server saw %q", got)
	}
}

// E6: a peer echoing a long error answer reaches the caller as excerpts,
// scrubbed before they are cut, its JSON structure kept.
func TestTransport_ErrorAnswerExcerpt(t *testing.T) {
	const secret = "tok-1a2b3c4d5e6f7a8b"
	long := strings.Repeat("A", 150) + secret + strings.Repeat("B", 5000)
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"`+long+`","type":"BadRequestException","code":400,"stack":["`+long+`"]}}`)
		case "/xml":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0"?><ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Code>AccessDenied</Code><Message>`+long+`</Message></Error></ErrorResponse>`)
		default:
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, long)
		}
	})
	p, err := egress.New(egress.Config{Allow: []string{"127.0.0.0/8"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client(p, egress.Pinot, func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") })
	for _, path := range []string{"/json", "/xml", "/plain"} {
		resp, err := get(c, srv.srv.URL+path, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		s := string(body)
		if strings.Contains(s, secret) || strings.Contains(s, "tok-1a2b") || strings.Contains(s, strings.Repeat("B", egress.ExcerptLen)) {
			t.Errorf("GET %s: body keeps the secret or more than an excerpt: %d bytes", path, len(s))
		}
		if !strings.Contains(s, "[redacted]") {
			t.Errorf("GET %s: the secret was cut instead of scrubbed: %q", path, s)
		}
		switch path {
		case "/json":
			if !strings.Contains(s, `"type":"BadRequestException"`) || strings.Contains(s, "stack") {
				t.Errorf("JSON answer lost its structure or kept its stack: %s", s)
			}
		case "/xml":
			if !strings.Contains(s, "<Code>AccessDenied</Code>") || !strings.Contains(s, `xmlns="https://sts.amazonaws.com/doc/2011-06-15/"`) {
				t.Errorf("XML answer lost its structure: %s", s)
			}
		default:
			if len(s) > egress.ExcerptLen {
				t.Errorf("plain answer is %d bytes, want at most %d", len(s), egress.ExcerptLen)
			}
		}
	}
}
