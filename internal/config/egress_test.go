package config_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/egress"
)

// security.egress is read from the file and FLOE_SECURITY_EGRESS_*, and
// the policy it gives admits what it lists and nothing more.
func TestLoad_Egress(t *testing.T) {
	p := writeFile(t, `
security:
  egress:
    allow: ["::1"]
    catalog:
      allow: [10.0.0.0/8, catalog.internal]
    aws:
      listedOnly: true
      allow: ["*.amazonaws.com"]
`)
	cfg, err := config.Load(p, []string{"FLOE_SECURITY_EGRESS_PINOT_ALLOW=127.0.0.1, pinot.internal", "FLOE_SECURITY_EGRESS_DEEPSTORE_LISTEDONLY=true"})
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Security.Egress
	if len(e.Catalog.Allow) != 2 || !e.AWS.ListedOnly || len(e.Pinot.Allow) != 2 || e.Pinot.Allow[1] != "pinot.internal" || !e.DeepStore.ListedOnly {
		t.Fatalf("egress config %+v", e)
	}
	pol := cfg.Security.EgressPolicy()
	for _, c := range []struct {
		kind egress.Kind
		host string
		ip   string
		ok   bool
	}{
		{egress.Catalog, "", "10.1.1.1", true}, {egress.Pinot, "", "10.1.1.1", false}, {egress.Pinot, "", "127.0.0.1", true},
		{egress.OAuth, "", "::1", true}, {egress.AWS, "sts.amazonaws.com", "52.94.0.1", true}, {egress.AWS, "evil.example", "52.94.0.1", false},
		{egress.DeepStore, "", "52.94.0.1", false}, {egress.Catalog, "", "169.254.169.254", false},
	} {
		if err := pol.Admit(c.kind, c.host, netip.MustParseAddr(c.ip)); (err == nil) != c.ok {
			t.Errorf("Admit(%s, %q, %s) = %v, want admitted %t", c.kind, c.host, c.ip, err, c.ok)
		}
	}
	if cfg.Security.Policy().Egress == nil {
		t.Fatal("the catalog policy has no egress policy")
	}
}

// Mistakes name the field: a bad entry, and Pinot or deep-store addresses
// the policy refuses.
func TestLoad_EgressErrors(t *testing.T) {
	for _, c := range []struct {
		file  string
		env   []string
		field string
	}{
		{"security:\n  egress:\n    catalog:\n      allow: [\"http://c:8181\"]\n", nil, "security.egress.catalog.allow[0]"},
		{"security:\n  egress:\n    allow: [10.0.0.0/40]\n", nil, "security.egress.allow[0]"},
		{"pinot:\n  controllerURL: http://127.0.0.1:9000\n", nil, "pinot.controllerURL"},
		{"pinot:\n  controllerURL: http://pinot.example.com:9000\n  brokerURL: http://169.254.169.254/\n", nil, "pinot.brokerURL"},
		{"pinot:\n  controllerURL: http://pinot.example.com:9000\n  deepStore: {uri: s3://b, region: r, endpoint: \"http://[::1]:9100\"}\n",
			[]string{"FLOE_SECURITY_EGRESS_PINOT_ALLOW=::1"}, "pinot.deepStore.endpoint"},
		{"", []string{"FLOE_SECURITY_EGRESS_AWS_LISTEDONLY=maybe"}, "security.egress.aws.listedOnly"},
	} {
		_, err := config.Load(writeFile(t, c.file), c.env)
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), c.field+": ") && !strings.Contains(err.Error(), c.field+" (from") {
			t.Errorf("Load(%q, %v) = %v, want an error naming %s", c.file, c.env, err, c.field)
		}
	}
}
