//go:build integration

package catalog_test

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/testpeer"
)

// These tests run with moto's IAM enforcement on, so every permission and
// every assumed role really matters. They use Glue and S3: moto 5.2.5
// rejects the SigV4 signature of every S3 Tables call once enforcement is
// on (its bucket-ARN paths hold %2F), for any client, so S3 Tables
// permission errors are covered by the fake in errors_internal_test.go.

type motoKeys map[string]struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
	ARN    string `json:"arn"`
}

// authMoto registers a Glue table over PyIceberg data in moto, creates the
// IAM users and roles of testdata/moto_iam.py, then turns enforcement on.
func authMoto(t *testing.T) (moto string, keys motoKeys) {
	t.Helper()
	moto = testpeer.StartMoto(t)
	glueFixture(t, moto, false)
	if err := json.Unmarshal(runPython(t, "moto_iam.py", moto), &keys); err != nil {
		t.Fatalf("parse moto_iam.py output: %v", err)
	}
	testpeer.EnableMotoAuth(t, moto)
	return moto, keys
}

func glueAs(moto string, keys motoKeys, user string, kv ...string) catalog.Config {
	cfg := glueConfig(moto)
	cfg.Secrets = map[string]string{catalog.SecretAccessKeyID: keys[user].ID, catalog.SecretSecretAccessKey: keys[user].Secret}
	cfg.Props = maps.Clone(cfg.Props)
	for i := 0; i+1 < len(kv); i += 2 {
		cfg.Props[kv[i]] = kv[i+1]
	}
	return cfg
}

func TestCredentials_OnMotoWithIAM(t *testing.T) {
	moto, keys := authMoto(t)
	customer, service := keys["role:customer-reader"].ARN, keys["role:floe-service"].ARN

	t.Run("static keys", func(t *testing.T) {
		rep := openOK(t, glueAs(moto, keys, "reader")).Validate(t.Context())
		if !rep.OK || !strings.Contains(rep.Steps[0].Detail, "user/reader") {
			t.Fatalf("Validate = %+v, want ok and authenticated as user/reader", rep)
		}
	})
	t.Run("assumed role with external id", func(t *testing.T) {
		rep := openOK(t, glueAs(moto, keys, "assumer", catalog.PropRoleARN, customer, catalog.PropExternalID, "ext-42")).Validate(t.Context())
		if !rep.OK || !strings.Contains(rep.Steps[0].Detail, "assumed-role/customer-reader") {
			t.Fatalf("Validate = %+v, want ok as assumed-role/customer-reader", rep)
		}
	})
	t.Run("two-hop chain", func(t *testing.T) {
		rep := openOK(t, glueAs(moto, keys, "assumer", catalog.PropViaRoleARN, service, catalog.PropRoleARN, customer)).Validate(t.Context())
		if !rep.OK || !strings.Contains(rep.Steps[0].Detail, "assumed-role/customer-reader") {
			t.Fatalf("Validate = %+v, want ok as assumed-role/customer-reader", rep)
		}
	})
	t.Run("first hop alone lacks permissions", func(t *testing.T) {
		rep := openOK(t, glueAs(moto, keys, "assumer", catalog.PropRoleARN, service)).Validate(t.Context())
		wantFailedStep(t, rep, "list namespaces", catalog.ErrAccessDenied, "glue:GetDatabases")
	})
	t.Run("separate data credentials", func(t *testing.T) {
		cfg := glueAs(moto, keys, "no-data")
		cfg.Secrets["data."+catalog.SecretAccessKeyID] = keys["reader"].ID
		cfg.Secrets["data."+catalog.SecretSecretAccessKey] = keys["reader"].Secret
		checkValid(t, openOK(t, cfg))
		// and the data side with an assumed role of its own
		cfg = withDataRole(glueAs(moto, keys, "no-data"), keys, customer)
		checkValid(t, openOK(t, cfg))
	})
	t.Run("denied glue:GetTable", func(t *testing.T) {
		wantFailedStep(t, openOK(t, glueAs(moto, keys, "no-gettable")).Validate(t.Context()), "load table", catalog.ErrAccessDenied, "glue:GetTable")
	})
	t.Run("denied s3:GetObject", func(t *testing.T) {
		wantFailedStep(t, openOK(t, glueAs(moto, keys, "no-data")).Validate(t.Context()), "load table", catalog.ErrAccessDenied, "s3:GetObject")
	})
	t.Run("bad credentials", func(t *testing.T) {
		cfg := glueConfig(moto)
		cfg.Secrets = map[string]string{catalog.SecretAccessKeyID: "AKIAFLOEUNKNOWN00000", catalog.SecretSecretAccessKey: "wrong-secret-value"}
		rep := openOK(t, cfg).Validate(t.Context())
		if rep.OK || rep.Steps[0].Name != "check credentials" || rep.Steps[0].Status != catalog.StepFailed ||
			!strings.Contains(rep.Steps[0].Error, catalog.ErrBadCredentials.Error()) {
			t.Fatalf("Validate = %+v, want the credentials step to fail with %v", rep, catalog.ErrBadCredentials)
		}
		if strings.Contains(rep.Steps[0].Error, "wrong-secret-value") {
			t.Fatalf("report leaks the secret: %v", rep.Steps[0].Error)
		}
	})
	t.Run("bad credentials for the role hop", func(t *testing.T) {
		cfg := glueConfig(moto)
		cfg.Secrets = map[string]string{catalog.SecretAccessKeyID: "AKIAFLOEUNKNOWN00000", catalog.SecretSecretAccessKey: "wrong-secret-value"}
		cfg.Props[catalog.PropRoleARN] = customer
		_, err := openOK(t, cfg).ListNamespaces(t.Context(), nil, catalog.PageRequest{})
		if !errors.Is(err, catalog.ErrBadCredentials) || !strings.Contains(err.Error(), "assume role "+customer) {
			t.Fatalf("ListNamespaces = %v, want ErrBadCredentials naming the role", err)
		}
	})
}

func withDataRole(cfg catalog.Config, keys motoKeys, role string) catalog.Config {
	cfg.Secrets["data."+catalog.SecretAccessKeyID] = keys["assumer"].ID
	cfg.Secrets["data."+catalog.SecretSecretAccessKey] = keys["assumer"].Secret
	cfg.Props["data."+catalog.PropRoleARN] = role
	return cfg
}

// wantFailedStep checks that the named step failed with a permission hint,
// the steps before it passed and the ones after it were skipped.
func wantFailedStep(t *testing.T, rep catalog.Report, name string, kind error, permission string) {
	t.Helper()
	i := stepIndex(rep, name)
	if rep.OK || i < 0 {
		t.Fatalf("Validate = %+v, want step %q to fail", rep, name)
	}
	for j, s := range rep.Steps {
		want := catalog.StepOK
		switch {
		case j == i:
			want = catalog.StepFailed
		case j > i:
			want = catalog.StepSkipped
		}
		if s.Status != want {
			t.Errorf("step %d %q = %s (%s), want %s", j, s.Name, s.Status, s.Error, want)
		}
	}
	s := rep.Steps[i]
	if s.Permission != permission || !strings.Contains(s.Error, kind.Error()) || !strings.Contains(s.Error, "needs "+permission) {
		t.Errorf("step %q: permission %q, error %q; want %s naming %s", s.Name, s.Permission, s.Error, kind, permission)
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), permission) {
		t.Errorf("Report.Err() = %v, want it to name %s", err, permission)
	}
}
