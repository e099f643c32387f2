package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
)

func TestLoad_PinotDeepStoreAndRetry(t *testing.T) {
	p := writeFile(t, `
security:
  egress:
    allow: [127.0.0.0/8]
pinot:
  controllerURL: http://127.0.0.1:9000
  headers:
    Authorization: Bearer t0ken-value
  retry:
    attempts: 3
    initialBackoff: 100ms
    maxBackoff: 2s
    maxElapsed: 30s
  deepStore:
    uri: s3://deep/floe
    region: eu-west-1
    endpoint: http://127.0.0.1:9100
    accessKeyID: ${KEY_ID}
    secretAccessKey: ${SECRET}
`)
	cfg, err := config.Load(p, []string{"KEY_ID=AKIDEXAMPLE", "SECRET=s3cr3t", "FLOE_PINOT_DEEPSTORE_PATHSTYLE=true", "FLOE_PINOT_RETRY_ATTEMPTS=4"})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Retry{Attempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second, MaxElapsed: 30 * time.Second}
	if cfg.Pinot.Retry != want {
		t.Fatalf("retry %+v, want %+v", cfg.Pinot.Retry, want)
	}
	ds := cfg.Pinot.DeepStore
	if ds.URI != "s3://deep/floe" || ds.Region != "eu-west-1" || !ds.PathStyle || ds.AccessKeyID != "AKIDEXAMPLE" || ds.SecretAccessKey != "s3cr3t" {
		t.Fatalf("deep store %+v", ds)
	}
	if printed := fmt.Sprintf("%+v", cfg); strings.Contains(printed, "s3cr3t") || strings.Contains(printed, "AKIDEXAMPLE") ||
		strings.Contains(printed, "t0ken-value") || !strings.Contains(printed, "Authorization") {
		t.Fatalf("a printed config shows the deep-store credentials: %s", printed)
	}
	def := config.Default().Pinot
	if def.Retry.Attempts != 5 || def.Retry.MaxElapsed != 2*time.Minute || def.DeepStore.URI != "" {
		t.Fatalf("defaults: %+v", def)
	}
}

func TestLoad_PinotErrors(t *testing.T) {
	const ctl = "pinot:\n  controllerURL: http://c:9000\n"
	for _, tc := range []struct {
		name, file string
		env        []string
		wantField  string
	}{
		{"deep store without controller", "pinot:\n  deepStore: {uri: s3://b, region: r}\n", nil, "pinot.deepStore.uri"},
		{"deep store not s3", ctl + "  deepStore: {uri: 'gs://b', region: r}\n", nil, "pinot.deepStore.uri"},
		{"deep store without region", ctl + "  deepStore: {uri: 's3://b/p'}\n", nil, "pinot.deepStore.region"},
		{"bad endpoint", ctl + "  deepStore: {uri: 's3://b', region: r, endpoint: 'ftp://x'}\n", nil, "pinot.deepStore.endpoint"},
		{"secret without key id", ctl + "  deepStore: {uri: 's3://b', region: r, secretAccessKey: hunter2}\n", nil, "pinot.deepStore.secretAccessKey"},
		{"zero attempts", "pinot:\n  retry: {attempts: 0}\n", nil, "pinot.retry.attempts"},
		{"backoff ceiling below start", "pinot:\n  retry: {initialBackoff: 2s, maxBackoff: 1s}\n", nil, "pinot.retry.maxBackoff"},
		{"bad env bool", "", []string{"FLOE_PINOT_DEEPSTORE_PATHSTYLE=maybe"}, "pinot.deepStore.pathStyle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(writeFile(t, tc.file), tc.env)
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.wantField) {
				t.Fatalf("error %v does not name %q", err, tc.wantField)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error leaks the secret: %v", err)
			}
		})
	}
}
