//go:build integration

package catalog_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

// TestCredentials_DefaultChainAndEndpointEnv: with no keys and no endpoint
// in the config, the AWS default chain (here: environment variables) and
// the AWS_ENDPOINT_URL convention are used, with IAM enforced by moto.
func TestCredentials_DefaultChainAndEndpointEnv(t *testing.T) {
	moto, keys := authMoto(t)
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_ACCESS_KEY_ID", keys["reader"].ID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", keys["reader"].Secret)
	t.Setenv("AWS_ENDPOINT_URL", moto)

	cat := openOK(t, catalog.Config{Name: "env", Type: catalog.TypeGlue, Props: map[string]string{catalog.PropRegion: "us-east-1"}})
	rep := cat.Validate(t.Context())
	if !rep.OK || !strings.Contains(rep.Steps[0].Detail, "user/reader") {
		t.Fatalf("Validate = %+v, want ok as user/reader from the environment", rep)
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, "")
}
