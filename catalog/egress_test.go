package catalog_test

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

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/egress"
)

func egressPolicy(t *testing.T, cfg egress.Config, r egress.Resolver) *egress.Policy {
	t.Helper()
	p, err := egress.New(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openResolved opens cfg as floe does: through the policy first.
func openResolved(t *testing.T, p catalog.Policy, cfg catalog.Config) (catalog.Catalog, error) {
	t.Helper()
	cfg, err := p.Resolve(cfg)
	if err != nil {
		return nil, err
	}
	return catalog.Open(t.Context(), cfg, discard())
}

// requestLog is a fake peer that records each request's path and
// Authorization header.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// egress E1, E2 at create: URL props with refused address literals are
// refused by Policy.Check, naming the prop; allowing loopback opens
// loopback and nothing else.
func TestPolicy_CheckEgress(t *testing.T) {
	cases := []struct {
		typ   string
		props map[string]string
		field string
	}{
		{catalog.TypeREST, map[string]string{"uri": "http://169.254.169.254/latest/meta-data/iam/"}, "connections.c.props.uri"},
		{catalog.TypeREST, map[string]string{"uri": "https://catalog.example.com", "oauth2-server-uri": "http://localhost:9000/token"},
			"connections.c.props.oauth2-server-uri"},
		{catalog.TypeGlue, map[string]string{"region": "us-east-1", "endpoint.sts": "http://[fd00:ec2::254]/"}, "connections.c.props.endpoint.sts"},
		{catalog.TypeS3Tables, map[string]string{"arn": "arn:aws:s3tables:us-east-1:111122223333:bucket/b", "endpoint": "http://10.0.0.7:9000"},
			"connections.c.props.endpoint"},
		{catalog.TypeHadoop, map[string]string{"warehouse": "s3://b/wh", "s3.endpoint": "http://metadata.google.internal/"}, "connections.c.props.s3.endpoint"},
		{catalog.TypeHadoop, map[string]string{"warehouse": "s3://b/wh", "s3.proxy-uri": "http://127.0.0.1:3128"}, "connections.c.props.s3.proxy-uri"},
	}
	for _, c := range cases {
		err := catalog.Policy{}.Check(catalog.Config{Name: "c", Type: c.typ, Props: c.props})
		var fe *catalog.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "security.egress") {
			t.Errorf("Check(%v) = %v, want a refusal naming %s", c.props, err, c.field)
		}
	}
	lo := catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}}, nil)}
	if err := lo.Check(catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": "http://127.0.0.1:8181"}}); err != nil {
		t.Errorf("Check(loopback uri) with loopback allowed = %v", err)
	}
	err := lo.Check(catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": "http://169.254.169.254/"}})
	if err == nil || !strings.Contains(err.Error(), "cloud metadata address") {
		t.Errorf("Check(metadata uri) with loopback allowed = %v, want refused", err)
	}
}

// egress E3: a catalog name that resolves to 127.0.0.1 is refused at dial
// when loopback is not allowed (the peer gets no request), and reached
// when it is.
func TestOpen_DialRefusesRebinding(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		io.WriteString(w, `{"defaults":{},"overrides":{}}`)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dns := egress.StaticResolver{"catalog.example.com": {netip.MustParseAddr("127.0.0.1")}}
	cfg := catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": "http://catalog.example.com:" + port},
		Secrets: map[string]string{"token": "tok-5a6b7c8d9e0f1a2b"}}
	_, err := openResolved(t, catalog.Policy{Egress: egressPolicy(t, egress.Config{}, dns)}, cfg)
	if !errors.Is(err, catalog.ErrUnreachable) || !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Open(name resolving to loopback) = %v, want refused as loopback", err)
	}
	if got := log.all(); len(got) != 0 {
		t.Fatalf("the catalog got %q; want nothing", got)
	}
	cat, err := openResolved(t, catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}}, dns)}, cfg)
	if err != nil {
		t.Fatalf("Open with loopback allowed: %v", err)
	}
	cat.Close()
	if got := log.all(); len(got) != 1 || got[0] != "/v1/config Bearer tok-5a6b7c8d9e0f1a2b" {
		t.Fatalf("the catalog got %q; want the config call with the token", got)
	}
}

// egress E5: a REST catalog answering 302 to another loopback port does
// not get its token forwarded: the target receives no request at all.
func TestREST_RedirectToAnotherPort(t *testing.T) {
	var second requestLog
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		second.add(r)
		io.WriteString(w, `{"defaults":{},"overrides":{}}`)
	}))
	defer target.Close()
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+port+r.URL.Path, http.StatusFound)
	}))
	defer first.Close()
	p := catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8", "::1"}}, nil)}
	_, err := openResolved(t, p, catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": first.URL},
		Secrets: map[string]string{"token": "tok-9f8e7d6c5b4a3210"}})
	if !errors.Is(err, catalog.ErrUnreachable) || !strings.Contains(err.Error(), "redirected to http://localhost:"+port+"/v1/config") {
		t.Fatalf("Open(redirecting catalog) = %v, want an error naming the redirect target", err)
	}
	if got := second.all(); len(got) != 0 {
		t.Fatalf("the redirect target got %q; want no request (and so no token)", got)
	}
}

// A catalog's config answer moving the catalog to another host
// (overrides.uri) does not take the token there unless
// security.egress.catalog.allow lists that host.
func TestREST_OverridesURIToAnotherHost(t *testing.T) {
	var moved requestLog
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		moved.add(r)
		io.WriteString(w, `{"namespaces":[]}`)
	}))
	other.Listener.Close()
	other.Listener = ln
	other.Start()
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"defaults":{},"overrides":{"uri":"`+other.URL+`"}}`)
	}))
	defer home.Close()
	cfg := catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": home.URL},
		Secrets: map[string]string{"token": "tok-0a1b2c3d4e5f6a7b"}}
	for _, c := range []struct {
		allow   []string
		reaches bool
	}{{[]string{"127.0.0.1"}, false}, {[]string{"127.0.0.1", "127.0.0.2"}, true}} {
		cat, err := openResolved(t, catalog.Policy{Egress: egressPolicy(t, egress.Config{Catalog: egress.Rule{Allow: c.allow}}, nil)}, cfg)
		if err != nil {
			t.Fatalf("Open (allow %v): %v", c.allow, err)
		}
		_, err = cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		cat.Close()
		got := moved.all()
		if !c.reaches {
			if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), other.URL) || len(got) != 0 {
				t.Fatalf("ListNamespaces (allow %v) = %v, moved host got %q; want refused naming %s, nothing sent", c.allow, err, got, other.URL)
			}
			continue
		}
		if err != nil || len(got) != 1 || !strings.HasSuffix(got[0], "Bearer tok-0a1b2c3d4e5f6a7b") {
			t.Fatalf("ListNamespaces (allow %v) = %v, moved host got %q; want the call with the token", c.allow, err, got)
		}
	}
}

// egress E4: a REST catalog and an AWS endpoint that accept connections
// but never answer give the same error as a closed port.
func TestOpen_SilentPeerLikeClosedPort(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	silent := newHangingServer(t, release)
	closed := "http://127.0.0.1:" + itoa(freePort(t))
	p := catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}}, nil)}
	texts := func(uri string) (rest, glue string) {
		_, err := openResolved(t, p, catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": uri, "timeout": "800ms"}})
		if !errors.Is(err, catalog.ErrUnreachable) {
			t.Fatalf("Open(rest at %s) = %v, want ErrUnreachable", uri, err)
		}
		rest = strings.ReplaceAll(err.Error(), strings.TrimPrefix(uri, "http://"), "ADDR")
		cat, err := openResolved(t, p, catalog.Config{Name: "c", Type: catalog.TypeGlue,
			Props: map[string]string{"region": "us-east-1", "endpoint": uri, "timeout": "800ms"}, Secrets: fakeKeys()})
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		_, err = cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if !errors.Is(err, catalog.ErrUnreachable) {
			t.Fatalf("ListNamespaces(glue at %s) = %v, want ErrUnreachable", uri, err)
		}
		return rest, strings.ReplaceAll(err.Error(), strings.TrimPrefix(uri, "http://"), "ADDR")
	}
	start := time.Now()
	restSilent, glueSilent := texts(silent)
	restClosed, glueClosed := texts(closed)
	if restSilent != restClosed || glueSilent != glueClosed {
		t.Fatalf("silent and closed ports differ:\n%s\n%s\n%s\n%s", restSilent, restClosed, glueSilent, glueClosed)
	}
	if !strings.Contains(restClosed, "cannot reach catalog at ADDR") || !strings.Contains(glueClosed, "cannot reach AWS endpoint at ADDR") {
		t.Fatalf("errors do not say what could not be reached: %s / %s", restClosed, glueClosed)
	}
	t.Logf("four failures in %s", time.Since(start))
}

// egress E6: a catalog echoing a long error answer shows at most an
// excerpt of it, the token scrubbed before the cut.
func TestREST_LongErrorAnswer(t *testing.T) {
	const token = "tok-7e6d5c4b3a291807"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		msg := strings.Repeat("A", 190) + r.Header.Get("Authorization") + strings.Repeat("B", 10000)
		io.WriteString(w, `{"error":{"message":"`+msg+`","type":"ServiceFailureException","code":500}}`)
	}))
	defer srv.Close()
	p := catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}}, nil)}
	_, err := openResolved(t, p, catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": srv.URL},
		Secrets: map[string]string{"token": token}})
	if err == nil {
		t.Fatal("Open: no error")
	}
	msg := err.Error()
	if strings.Contains(msg, token[:8]) || strings.Contains(msg, strings.Repeat("B", 20)) || len(msg) > 600 {
		t.Fatalf("Open error carries more than a scrubbed excerpt (%d bytes): %s", len(msg), msg)
	}
	if !strings.Contains(msg, strings.Repeat("A", 100)) {
		t.Fatalf("Open error lost the excerpt: %s", msg)
	}
}

// tableMetadata is a minimal Iceberg v2 table metadata document.
const tableMetadata = `{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://lake/orders",
"last-sequence-number":0,"last-updated-ms":1700000000000,"last-column-id":1,"current-schema-id":0,
"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}],
"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},"snapshots":[],"snapshot-log":[],"metadata-log":[]}`

// A REST catalog that vends an S3 endpoint for its tables' files cannot
// send floe's file reads to an address the policy refuses: the FileIO
// iceberg-go builds from the vended props dials under the AWS rules.
func TestREST_VendedFileEndpointUnderPolicy(t *testing.T) {
	var s3 requestLog
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s3.add(r)
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`)
	}))
	defer store.Close()
	for _, c := range []struct {
		endpoint string
		allowed  bool
	}{{"http://169.254.169.254", false}, {store.URL, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/config") {
				io.WriteString(w, `{"defaults":{},"overrides":{}}`)
				return
			}
			io.WriteString(w, `{"metadata-location":"s3://lake/orders/metadata/v1.json","metadata":`+tableMetadata+
				`,"config":{"s3.endpoint":"`+c.endpoint+`","s3.region":"us-east-1","s3.access-key-id":"AKIDVENDED","s3.secret-access-key":"vended-secret-1234"}}`)
		}))
		p := catalog.Policy{Egress: egressPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}}, nil)}
		cat, err := openResolved(t, p, catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": srv.URL}})
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"})
		if err != nil {
			t.Fatalf("LoadTable: %v", err)
		}
		fs, err := tbl.Iceberg.FS(t.Context())
		if err != nil {
			t.Fatalf("FS: %v", err)
		}
		before := len(s3.all())
		_, err = fs.Open("s3://lake/orders/data/f.parquet")
		refused := err != nil && strings.Contains(err.Error(), "refused by the egress policy")
		if c.allowed == refused || c.allowed && len(s3.all()) == before {
			t.Errorf("open a file at vended endpoint %s: %v (store got %d requests); want allowed %t", c.endpoint, err, len(s3.all())-before, c.allowed)
		}
		cat.Close()
		srv.Close()
	}
}
