package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

// A credential written in props, in any form, is refused naming the prop
// and the secrets key it belongs under; MoveCredentials (for records
// stored before the rule) moves it there and leaves the rest.
func TestConfig_CredentialsInProps(t *testing.T) {
	const pw = "s3cr3t-VALUE-77"
	tests := []struct {
		name, typ, prop, val string
		secret               string // the secrets key it belongs under
		rest                 string // the prop after the move ("" when dropped)
	}{
		{"s3 secret key", "hadoop", "s3.secret-access-key", pw, "s3.secret-access-key", ""},
		{"s3 session token", "glue", "s3.session-token", pw, "s3.session-token", ""},
		{"aws secret key", "glue", "secret-access-key", pw, "secret-access-key", ""},
		{"data side token", "glue", "data.session-token", pw, "data.session-token", ""},
		{"rest token", "rest", "token", pw, "token", ""},
		{"rest credential", "rest", "credential", "client:" + pw, "credential", ""},
		{"authorization header", "rest", "header.Authorization", "Bearer " + pw, "header.Authorization", ""},
		{"api key header", "rest", "header.X-Api-Key", pw, "header.X-Api-Key", ""},
		{"sql password", "sql", "password", pw, "password", ""},
		{"postgres url userinfo", "sql", "uri", "postgres://floe:" + pw + "@db:5432/lake", "password", "postgres://floe@db:5432/lake"},
		{"postgres url option", "sql", "uri", "postgres://floe@db/lake?password=" + pw + "&sslmode=disable", "password", "postgres://floe@db/lake?sslmode=disable"},
		{"pgx key=value", "sql", "uri", "host=db user=floe password='" + pw + "' dbname=lake", "password", "host='db' user='floe' dbname='lake'"},
		{"rest url userinfo", "rest", "uri", "http://u:" + pw + "@catalog:8181/", "password", "http://u@catalog:8181/"},
		{"endpoint userinfo", "glue", "endpoint.glue", "http://u:" + pw + "@glue:5000", "endpoint.glue.password", "http://u@glue:5000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{"uri": "http://catalog:8181", "region": "us-east-1", "warehouse": "s3://b/wh"}
			if tc.typ == "sql" {
				props = map[string]string{"uri": "postgres://floe@db/lake"}
			}
			props[tc.prop] = tc.val
			if tc.typ == "sql" && tc.prop == "uri" && !strings.HasPrefix(tc.val, "postgres") {
				props["dialect"] = "postgres"
			}
			cfg := catalog.Config{Name: "c", Type: tc.typ, Props: props}
			err := cfg.Validate()
			if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.c.props."+tc.prop+": ") ||
				!strings.Contains(err.Error(), "give it as secrets."+tc.secret) || strings.Contains(err.Error(), pw) {
				t.Fatalf("Validate = %v, want props.%s refused pointing at secrets.%s, without the value", err, tc.prop, tc.secret)
			}
			moved, keys := cfg.MoveCredentials()
			if !slices.Equal(keys, []string{tc.prop}) || moved.Secrets[tc.secret] == "" || moved.Props[tc.prop] != tc.rest {
				t.Fatalf("MoveCredentials = %v %v, moved %v", moved.Props, moved.Secrets, keys)
			}
			if !strings.Contains(moved.Secrets[tc.secret], pw) {
				t.Fatalf("secret %s = %q", tc.secret, moved.Secrets[tc.secret])
			}
			if !slices.ContainsFunc(cfg.SecretValues(), func(v string) bool { return strings.Contains(v, pw) }) {
				t.Fatalf("SecretValues of the unmoved config lack the credential: %v", cfg.SecretValues())
			}
			if err := moved.Validate(); err != nil && strings.Contains(err.Error(), "give it as secrets") {
				t.Fatalf("Validate after the move = %v", err)
			}
			if again, keys := moved.MoveCredentials(); keys != nil || !maps.Equal(again.Props, moved.Props) {
				t.Fatalf("a second move changed %v", keys)
			}
		})
	}
}

// Props that only sound like credentials stay props.
func TestConfig_PropsThatAreNotCredentials(t *testing.T) {
	cfg := catalog.Config{Name: "c", Type: "rest", Props: map[string]string{"uri": "http://u@catalog:8181",
		"oauth2-server-uri": "http://auth:1/token", "role-arn": "arn:aws:iam::111122223333:role/r", "external-id": "ext-1",
		"role-session-name": "floe", "header.X-Iceberg-Access-Delegation": "vended-credentials", "s3.endpoint": "http://s3:9000",
		"token-expires-in-ms": "3600000"}}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	if _, keys := cfg.MoveCredentials(); keys != nil {
		t.Fatalf("MoveCredentials moved %v", keys)
	}
}

// A password's user:password pair is a secret value too (HTTP Basic
// carries it base64-encoded).
func TestConfig_SecretValuesPairPasswordWithUser(t *testing.T) {
	cfg := catalog.Config{Name: "c", Type: "rest", Props: map[string]string{"uri": "http://reader@catalog:8181/"},
		Secrets: map[string]string{"password": "pw-0a1b2c3d"}}
	if got := cfg.SecretValues(); !slices.Contains(got, "reader:pw-0a1b2c3d") || !slices.Contains(got, "pw-0a1b2c3d") {
		t.Fatalf("SecretValues = %v", got)
	}
}

// Secrets too short to scrub are refused when written, not when a stored
// record opens.
func TestConfig_ValidateWriteRefusesShortSecrets(t *testing.T) {
	cfg := catalog.Config{Name: "c", Type: "rest", Props: map[string]string{"uri": "http://catalog:8181"},
		Secrets: map[string]string{"token": "e", "credential": "${env:X}"}}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	err := cfg.ValidateWrite()
	if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.c.secrets.token: is 1 characters") ||
		strings.Contains(err.Error(), "credential") {
		t.Fatalf("ValidateWrite = %v", err)
	}
}

// A config that still holds a credential in props prints it as a secret
// key, in every printed form.
func TestConfig_PrintsCredentialPropsAsSecrets(t *testing.T) {
	cfg := catalog.Config{Name: "c", Type: "sql", Props: map[string]string{"uri": "postgres://floe:pw-printed-1a2b@db/lake",
		"s3.secret-access-key": "sk-printed-3c4d"}}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", slog.Any("cfg", cfg))
	for _, out := range []string{cfg.String(), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg), string(js), logged.String()} {
		if strings.Contains(out, "pw-printed-1a2b") || strings.Contains(out, "sk-printed-3c4d") || !strings.Contains(out, "s3.secret-access-key") {
			t.Errorf("printed config: %s", out)
		}
	}
}
