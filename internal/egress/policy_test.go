package egress_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/egress"
)

func mustPolicy(t *testing.T, cfg egress.Config) *egress.Policy {
	t.Helper()
	p, err := egress.New(cfg, nil)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return p
}

// E1, E2: what the default policy refuses, and what allow entries open.
func TestPolicy_Admit(t *testing.T) {
	loopback := egress.Config{Allow: []string{"127.0.0.0/8", "::1"}}
	cases := []struct {
		name  string
		cfg   egress.Config
		kind  egress.Kind
		host  string
		ip    string
		class string // "" when admitted
	}{
		{"public", egress.Config{}, egress.Catalog, "", "93.184.216.34", ""},
		{"aws metadata", egress.Config{}, egress.AWS, "", "169.254.169.254", "cloud metadata"},
		{"ec2 metadata over IPv6", egress.Config{}, egress.AWS, "", "fd00:ec2::254", "cloud metadata"},
		{"alibaba metadata", egress.Config{}, egress.Catalog, "", "100.100.100.200", "cloud metadata"},
		{"link-local", egress.Config{}, egress.Catalog, "", "169.254.10.1", "link-local"},
		{"link-local IPv6", egress.Config{}, egress.Catalog, "", "fe80::1", "link-local"},
		{"loopback", egress.Config{}, egress.Pinot, "", "127.0.0.1", "loopback"},
		{"loopback IPv6", egress.Config{}, egress.Pinot, "", "::1", "loopback"},
		{"unspecified", egress.Config{}, egress.Pinot, "", "0.0.0.0", "loopback"},
		{"IPv4-mapped loopback", egress.Config{}, egress.Catalog, "", "::ffff:127.0.0.1", "loopback"},
		{"NAT64 metadata", egress.Config{}, egress.Catalog, "", "64:ff9b::a9fe:a9fe", "cloud metadata"},
		{"private 10/8", egress.Config{}, egress.Catalog, "", "10.1.2.3", "private"},
		{"private 172.16/12", egress.Config{}, egress.Catalog, "", "172.31.0.1", "private"},
		{"private 192.168/16", egress.Config{}, egress.Catalog, "", "192.168.1.1", "private"},
		{"carrier-grade NAT", egress.Config{}, egress.Catalog, "", "100.64.0.1", "private"},
		{"unique local IPv6", egress.Config{}, egress.Catalog, "", "fd12::1", "private"},
		{"loopback allowed", loopback, egress.Catalog, "", "127.0.0.1", ""},
		{"loopback allowed IPv6", loopback, egress.DeepStore, "", "::1", ""},
		{"loopback allow opens no metadata", loopback, egress.AWS, "", "169.254.169.254", "cloud metadata"},
		{"allow of one kind only", egress.Config{Pinot: egress.Rule{Allow: []string{"10.0.0.0/8"}}}, egress.Catalog, "", "10.0.0.5", "private"},
		{"allow of the kind", egress.Config{Pinot: egress.Rule{Allow: []string{"10.0.0.0/8"}}}, egress.Pinot, "", "10.0.0.5", ""},
		{"name entry", egress.Config{Allow: []string{"catalog.internal"}}, egress.Catalog, "catalog.internal", "10.0.0.5", ""},
		{"suffix entry", egress.Config{Allow: []string{"*.corp.example"}}, egress.Catalog, "a.b.corp.example", "10.0.0.5", ""},
		{"suffix entry is not the apex", egress.Config{Allow: []string{"*.corp.example"}}, egress.Catalog, "corp.example", "10.0.0.5", "private"},
		{"name entry opens no metadata", egress.Config{Allow: []string{"metadata.google.internal"}}, egress.AWS, "metadata.google.internal", "169.254.169.254", "cloud metadata"},
		{"wide network opens no metadata", egress.Config{Allow: []string{"0.0.0.0/0"}}, egress.AWS, "", "169.254.169.254", "cloud metadata"},
		{"link-local network opens no metadata", egress.Config{Allow: []string{"169.254.0.0/16"}}, egress.AWS, "", "169.254.169.254", "cloud metadata"},
		{"link-local network opens link-local", egress.Config{Allow: []string{"169.254.0.0/16"}}, egress.AWS, "", "169.254.3.4", ""},
		{"metadata named exactly", egress.Config{Allow: []string{"169.254.169.254"}}, egress.AWS, "", "169.254.169.254", ""},
		{"listed only refuses public", egress.Config{ListedOnly: true}, egress.AWS, "", "93.184.216.34", "public"},
		{"listed only admits listed", egress.Config{AWS: egress.Rule{ListedOnly: true, Allow: []string{"*.amazonaws.com"}}}, egress.AWS, "s3.us-east-1.amazonaws.com", "52.1.2.3", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := mustPolicy(t, c.cfg).Admit(c.kind, c.host, netip.MustParseAddr(c.ip))
			if c.class == "" {
				if err != nil {
					t.Fatalf("Admit(%s, %q, %s) = %v, want admitted", c.kind, c.host, c.ip, err)
				}
				return
			}
			if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), c.class) ||
				!strings.Contains(err.Error(), "security.egress."+string(c.kind)+".allow") {
				t.Fatalf("Admit(%s, %q, %s) = %v, want a refusal naming %q and the setting", c.kind, c.host, c.ip, err, c.class)
			}
		})
	}
}

// Literal hosts are judged before anything is dialled; names are left to
// the dial, except localhost and the metadata names.
func TestPolicy_CheckURL(t *testing.T) {
	def := egress.Default()
	refused := []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://127.0.0.1:8181/",
		"http://localhost:8181", "https://api.localhost/", "http://metadata.google.internal/computeMetadata/v1/",
		"http://[::ffff:169.254.169.254]/", "http://10.0.0.1/", "http://[fe80::1%25eth0]:80/"}
	for _, u := range refused {
		if err := def.CheckURL(egress.Catalog, u); !errors.Is(err, egress.ErrRefused) {
			t.Errorf("CheckURL(%s) = %v, want refused", u, err)
		}
	}
	for _, u := range []string{"https://catalog.example.com/v1", "http://93.184.216.34/", "not a url", ""} {
		if err := def.CheckURL(egress.Catalog, u); err != nil {
			t.Errorf("CheckURL(%s) = %v, want nil", u, err)
		}
	}
	lo := mustPolicy(t, egress.Config{Allow: []string{"127.0.0.0/8"}})
	if err := lo.CheckURL(egress.Catalog, "http://localhost:8181"); err != nil {
		t.Errorf("CheckURL(localhost) with loopback allowed = %v", err)
	}
	var none *egress.Policy
	if err := none.CheckURL(egress.Catalog, "http://169.254.169.254/"); err != nil {
		t.Errorf("nil policy CheckURL = %v, want nil (no policy)", err)
	}
}

// Configuration mistakes name the entry.
func TestNew_Errors(t *testing.T) {
	cases := []struct {
		cfg   egress.Config
		field string
	}{
		{egress.Config{Allow: []string{"10.0.0.0/33"}}, "allow[0]"},
		{egress.Config{Allow: []string{"127.0.0.1", ""}}, "allow[1]"},
		{egress.Config{Catalog: egress.Rule{Allow: []string{"http://catalog:8181"}}}, "catalog.allow[0]"},
		{egress.Config{DeepStore: egress.Rule{Allow: []string{"*."}}}, "deepStore.allow[0]"},
		{egress.Config{OAuth: egress.Rule{Allow: []string{"idp.example.com:443"}}}, "oauth.allow[0]"},
	}
	for _, c := range cases {
		_, err := egress.New(c.cfg, nil)
		var fe *egress.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("New(%+v) = %v, want a FieldError on %s", c.cfg, err, c.field)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 500)
	got := egress.Excerpt("secret-value-123 "+long, func(s string) string { return strings.ReplaceAll(s, "secret-value-123", "[redacted]") })
	if len(got) > egress.ExcerptLen || !strings.HasPrefix(got, "[redacted] xxx") || !strings.HasSuffix(got, "…") {
		t.Fatalf("Excerpt = %q (%d bytes)", got, len(got))
	}
	if got := egress.Excerpt("a\n\tb\x00c", nil); got != "a b c" {
		t.Fatalf("Excerpt(control characters) = %q", got)
	}
	if got := egress.Excerpt(strings.Repeat("é", 150), nil); len(got) > egress.ExcerptLen || !strings.HasSuffix(got, "é…") {
		t.Fatalf("Excerpt cut a rune: %q", got)
	}
}
