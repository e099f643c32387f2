package catalogtest

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

// Fixture table shape every Lake's Table has.
const (
	fixtureSnapshots = 2
	fixtureRows      = 30
	fixtureFormat    = 2
)

// Lake is what a backend's test set up, for Run.
type Lake struct {
	// Open opens a connection to the catalog. Run closes it.
	Open func(t *testing.T) catalog.Catalog
	// Namespaces is every top-level namespace of the catalog.
	Namespaces []string
	// Table is a fixture table (2 snapshots, 30 rows, format 2, id and
	// name); Tables names every table of its namespace, Table's included.
	Table  catalog.TableIdent
	Tables []string
	// MetadataLocation is Table's current metadata file; "" when the
	// backend's fixture cannot know it.
	MetadataLocation string
	// Secrets are the secret values Open's connection carries.
	Secrets []string

	// Broken opens a connection that cannot work (a dead endpoint, a
	// rejected password, a file that is not a catalog); Open may fail
	// already. Its calls fail with BrokenKind. BrokenSecrets are the secret
	// values it carries.
	Broken        func(t *testing.T) (catalog.Catalog, error)
	BrokenKind    error
	BrokenSecrets []string
}

// Run runs the conformance suite against lake.
func Run(t *testing.T, lake Lake) {
	if lake.Open == nil || lake.Broken == nil || lake.BrokenKind == nil || len(lake.Tables) == 0 {
		t.Fatal("catalogtest.Lake needs Open, Broken, BrokenKind and Tables")
	}
	cases := []struct {
		name string
		fn   func(*testing.T, Lake, catalog.Catalog)
	}{
		{"ListNamespaces", testListNamespaces},
		{"ListTables", testListTables},
		{"LoadTable", testLoadTable},
		{"LoadMissingTable", testLoadMissing},
		{"LoadInvalidIdent", testLoadInvalidIdent},
		{"Describe", testDescribe},
		{"Validate", testValidate},
		{"SecretsNotInErrors", testSecretsNotInErrors},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := lake.Open(t)
			t.Cleanup(func() { _ = cat.Close() })
			c.fn(t, lake, cat)
		})
	}
	t.Run("Broken", func(t *testing.T) { testBroken(t, lake) })
}

// noSecrets fails the test when text holds any of the secret values.
func noSecrets(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds a secret value: %s", what, text)
		}
	}
}

// wantKind checks err is a *catalog.Error (or config error) of kind.
func wantKind(t *testing.T, what string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s = %v, want %v", what, err, kind)
	}
}

// reportJSON is the report as the API shows it.
func reportJSON(t *testing.T, rep catalog.Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatalf("marshal report: %v", err)
	}
	return string(b)
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
