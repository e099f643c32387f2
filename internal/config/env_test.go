package config_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/floehq/floe/internal/config"
)

var update = flag.Bool("update", false, "rewrite docs/environment.md from config.EnvVars")

// fields returns every leaf of cfg by its dotted YAML path, valued as
// the YAML encoding renders it ("30s", "[a b]", "true").
func fields(t *testing.T, cfg config.Config) map[string]string {
	t.Helper()
	raw, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := yaml.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			out[prefix+k] = fmt.Sprint(v)
		}
	}
	walk("", root)
	return out
}

// fieldValue returns the value of the dotted YAML path field in cfg.
func fieldValue(t *testing.T, cfg config.Config, field string) string {
	t.Helper()
	v, ok := fields(t, cfg)[field]
	if !ok {
		t.Fatalf("no field %s in the encoded config", field)
	}
	return v
}

// loadEnv loads the defaults with env applied, unvalidated: a value that
// sets a field is enough here, whatever the other fields say.
func loadEnv(t *testing.T, env ...string) config.Config {
	t.Helper()
	cfg, err := config.LoadUnvalidated("", env)
	if err != nil {
		t.Fatalf("%v: %v", env, err)
	}
	return cfg
}

// Every variable floe read before the overrides were derived from the
// config's tags still sets the same field, with the same parsing.
func TestEnvVars_EarlierNamesKeepTheirFields(t *testing.T) {
	cases := []struct{ name, field, value, want string }{
		{"FLOE_SERVER_ADDR", "server.addr", "10.0.0.1:9", "10.0.0.1:9"},
		{"FLOE_SERVER_INSECURE", "server.insecure", "yes", "true"},
		{"FLOE_SERVER_ADMINTOKENS", "server.adminTokens", "a, ,b", "[a b]"},
		{"FLOE_SERVER_READTOKENS", "server.readTokens", "c,d", "[c d]"},
		{"FLOE_SERVER_PROTECTMETRICS", "server.protectMetrics", "1", "true"},
		{"FLOE_SERVER_ALLOWEDORIGINS", "server.allowedOrigins", "https://ops.example", "[https://ops.example]"},
		{"FLOE_SERVER_ALLOWEDHOSTS", "server.allowedHosts", "a.example,b.example", "[a.example b.example]"},
		{"FLOE_SERVER_READTIMEOUT", "server.readTimeout", "3s", "3s"},
		{"FLOE_SERVER_WRITETIMEOUT", "server.writeTimeout", "4s", "4s"},
		{"FLOE_SERVER_IDLETIMEOUT", "server.idleTimeout", "5s", "5s"},
		{"FLOE_SERVER_MAXBODYBYTES", "server.maxBodyBytes", "12345", "12345"},
		{"FLOE_SERVER_MAXCATALOGCALLS", "server.maxCatalogCalls", "9", "9"},
		{"FLOE_SERVER_STORETIMEOUT", "server.storeTimeout", "6s", "6s"},
		{"FLOE_SECURITY_LOCALROOTS", "security.localRoots", "/a,/b", "[/a /b]"},
		{"FLOE_SECURITY_SECRETENV", "security.secretEnv", "LAKE_*", "[LAKE_*]"},
		{"FLOE_SECURITY_SECRETFILEROOTS", "security.secretFileRoots", "/run/secrets", "[/run/secrets]"},
		{"FLOE_STORE_REDIS_URL", "store.redis.url", "redis://r:6379/1", "redis://r:6379/1"},
		{"FLOE_STORE_REDIS_KEYPREFIX", "store.redis.keyPrefix", "x:", "x:"},
		{"FLOE_STORE_PATH", "store.path", "/data/floe.db", "/data/floe.db"},
		{"FLOE_PINOT_CONTROLLERURL", "pinot.controllerURL", "http://c:9000", "http://c:9000"},
		{"FLOE_PINOT_BROKERURL", "pinot.brokerURL", "http://b:8099", "http://b:8099"},
		{"FLOE_PINOT_SEGMENTDIR", "pinot.segmentDir", "/segs", "/segs"},
		{"FLOE_PINOT_TIMEOUT", "pinot.timeout", "7s", "7s"},
		{"FLOE_PINOT_RETRY_ATTEMPTS", "pinot.retry.attempts", "3", "3"},
		{"FLOE_PINOT_RETRY_MAXELAPSED", "pinot.retry.maxElapsed", "8s", "8s"},
		{"FLOE_PINOT_DEEPSTORE_URI", "pinot.deepStore.uri", "s3://bucket/p", "s3://bucket/p"},
		{"FLOE_PINOT_DEEPSTORE_REGION", "pinot.deepStore.region", "eu-west-1", "eu-west-1"},
		{"FLOE_PINOT_DEEPSTORE_ENDPOINT", "pinot.deepStore.endpoint", "http://s3:9", "http://s3:9"},
		{"FLOE_PINOT_DEEPSTORE_PATHSTYLE", "pinot.deepStore.pathStyle", "TRUE", "true"},
		{"FLOE_WATCHER_DEFAULTSCHEDULE", "watcher.defaultSchedule", "@hourly", "@hourly"},
		{"FLOE_WATCHER_MAXCONCURRENTRUNS", "watcher.maxConcurrentRuns", "11", "11"},
		{"FLOE_WATCHER_BUILDPARALLELISM", "watcher.buildParallelism", "12", "12"},
		{"FLOE_WATCHER_LEASETTL", "watcher.leaseTTL", "9m", "9m0s"},
		{"FLOE_WATCHER_REFRESHINTERVAL", "watcher.refreshInterval", "10s", "10s"},
		{"FLOE_WATCHER_LAGINTERVAL", "watcher.lagInterval", "-1s", "-1s"},
		{"FLOE_WATCHER_OWNER", "watcher.owner", "replica-a", "replica-a"},
		{"FLOE_WATCHER_WORKDIR", "watcher.workDir", "/work", "/work"},
		{"FLOE_WATCHER_LEASEMARGIN", "watcher.leaseMargin", "11s", "11s"},
		{"FLOE_WATCHER_BATCHFILES", "watcher.batchFiles", "13", "13"},
		{"FLOE_WATCHER_BATCHBYTES", "watcher.batchBytes", "8589934593", "8589934593"},
		{"FLOE_WATCHER_SHAREBUILDS", "watcher.shareBuilds", "no", "false"},
		{"FLOE_WATCHER_CLAIMTIMEOUT", "watcher.claimTimeout", "12s", "12s"},
		{"FLOE_WATCHER_DRAINGRACE", "watcher.drainGrace", "13s", "13s"},
		{"FLOE_WATCHER_MINSCHEDULEINTERVAL", "watcher.minScheduleInterval", "14s", "14s"},
		{"FLOE_LOG_LEVEL", "log.level", "debug", "debug"},
		{"LOG_LEVEL", "log.level", "warn", "warn"},
		{"FLOE_LOG_FORMAT", "log.format", "json", "json"},
		{"FLOE_SECURITY_EGRESS_ALLOW", "security.egress.allow", "10.0.0.0/8,::1", "[10.0.0.0/8 ::1]"},
		{"FLOE_SECURITY_EGRESS_LISTEDONLY", "security.egress.listedOnly", "true", "true"},
		{"FLOE_SECURITY_EGRESS_CATALOG_ALLOW", "security.egress.catalog.allow", "10.1.0.0/16", "[10.1.0.0/16]"},
		{"FLOE_SECURITY_EGRESS_CATALOG_LISTEDONLY", "security.egress.catalog.listedOnly", "true", "true"},
		{"FLOE_SECURITY_EGRESS_OAUTH_ALLOW", "security.egress.oauth.allow", "10.2.0.0/16", "[10.2.0.0/16]"},
		{"FLOE_SECURITY_EGRESS_OAUTH_LISTEDONLY", "security.egress.oauth.listedOnly", "true", "true"},
		{"FLOE_SECURITY_EGRESS_AWS_ALLOW", "security.egress.aws.allow", "10.3.0.0/16", "[10.3.0.0/16]"},
		{"FLOE_SECURITY_EGRESS_AWS_LISTEDONLY", "security.egress.aws.listedOnly", "true", "true"},
		{"FLOE_SECURITY_EGRESS_PINOT_ALLOW", "security.egress.pinot.allow", "10.4.0.0/16", "[10.4.0.0/16]"},
		{"FLOE_SECURITY_EGRESS_PINOT_LISTEDONLY", "security.egress.pinot.listedOnly", "true", "true"},
		{"FLOE_SECURITY_EGRESS_DEEPSTORE_ALLOW", "security.egress.deepStore.allow", "10.5.0.0/16", "[10.5.0.0/16]"},
		{"FLOE_SECURITY_EGRESS_DEEPSTORE_LISTEDONLY", "security.egress.deepStore.listedOnly", "true", "true"},
	}
	fields := map[string]string{}
	for _, v := range config.EnvVars() {
		fields[v.Name] = v.Field
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if fields[tc.name] != tc.field {
				t.Fatalf("%s names field %q, want %q", tc.name, fields[tc.name], tc.field)
			}
			if before := fieldValue(t, config.Default(), tc.field); before == tc.want {
				t.Fatalf("%s: the default of %s is already %s; pick another value", tc.name, tc.field, tc.want)
			}
			if got := fieldValue(t, loadEnv(t, tc.name+"="+tc.value), tc.field); got != tc.want {
				t.Fatalf("%s=%s set %s to %s, want %s", tc.name, tc.value, tc.field, got, tc.want)
			}
		})
	}
}

// sampleValue is a value of a variable's type that differs from the
// field's default, and that value as the encoded config shows it.
func sampleValue(v config.EnvVar, def string) (value, want string) {
	switch v.Type {
	case "bool":
		if def == "true" {
			return "false", "false"
		}
		return "true", "true"
	case "int":
		return "424242", "424242"
	case "duration":
		return "42s", "42s"
	case "list":
		return "x, y", "[x y]"
	}
	return "s-" + v.Name, "s-" + v.Name
}

// Every variable, the derived ones included (the watcher's planning
// settings among them), sets its own field and no other.
func TestEnvVars_EachSetsItsFieldOnly(t *testing.T) {
	vars := config.EnvVars()
	if len(vars) < 60 {
		t.Fatalf("only %d variables derived", len(vars))
	}
	def := fields(t, config.Default())
	for _, v := range vars {
		t.Run(v.Name, func(t *testing.T) {
			value, want := sampleValue(v, def[v.Field])
			got := fields(t, loadEnv(t, v.Name+"="+value))
			if got[v.Field] != want {
				t.Fatalf("%s=%s set %s to %s, want %s", v.Name, value, v.Field, got[v.Field], want)
			}
			for field, val := range got {
				if field != v.Field && val != def[field] {
					t.Fatalf("%s also changed %s to %s", v.Name, field, val)
				}
			}
		})
	}
}

// A variable's name is its field's path, and no two fields share one.
func TestEnvVars_NamesFollowTheFields(t *testing.T) {
	seen := map[string]string{}
	for _, v := range config.EnvVars() {
		want := "FLOE_" + strings.ToUpper(strings.ReplaceAll(v.Field, ".", "_"))
		if v.Name != want && !(v.Name == "LOG_LEVEL" && v.Field == "log.level") {
			t.Errorf("%s sets %s; want the name %s", v.Name, v.Field, want)
		}
		if prev, dup := seen[v.Name]; dup {
			t.Errorf("%s names both %s and %s", v.Name, prev, v.Field)
		}
		seen[v.Name] = v.Field
		for _, client := range []string{"FLOE_CONFIG", config.APITokenEnv, config.AddrEnv, config.TokenEnv} {
			if v.Name == client {
				t.Errorf("%s is the command line's own variable; field %s may not take it", client, v.Field)
			}
		}
	}
}

// A value a field cannot hold is refused naming the field and the
// variable; an unknown FLOE_ variable is refused naming it.
func TestEnvVars_Errors(t *testing.T) {
	cases := []struct{ env, want string }{
		{"FLOE_WATCHER_MANIFESTCACHEBYTES=lots", "watcher.manifestCacheBytes (from FLOE_WATCHER_MANIFESTCACHEBYTES)"},
		{"FLOE_NOTIFICATIONS_DEBOUNCE=soon", "notifications.debounce (from FLOE_NOTIFICATIONS_DEBOUNCE)"},
		{"FLOE_SERVER_INSECURE=maybe", "server.insecure (from FLOE_SERVER_INSECURE)"},
		{"FLOE_SERVER_MAXCATALOGCALLS=99999999999999999999", "server.maxCatalogCalls (from FLOE_SERVER_MAXCATALOGCALLS)"},
		{"FLOE_WATCHER_MAXROWSPERSEGMNT=1", "FLOE_WATCHER_MAXROWSPERSEGMNT: unknown environment variable"},
		{"FLOE_PINOT_HEADERS=Authorization", "FLOE_PINOT_HEADERS: unknown environment variable"},
		{"FLOE_CONNECTIONS=x", "FLOE_CONNECTIONS: unknown environment variable"},
	}
	for _, tc := range cases {
		_, err := config.LoadUnvalidated("", []string{tc.env})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", tc.env, err, tc.want)
		}
	}
	if _, err := config.LoadUnvalidated("", []string{"FLOE_CONFIG=x", "FLOE_ADDR=x", "FLOE_TOKEN=x", "FLOE_API_TOKEN=x", "OTHER=1"}); err != nil {
		t.Errorf("the command line's variables are not overrides: %v", err)
	}
}

// envDoc renders docs/environment.md from the derived variables.
func envDoc() []byte {
	var b bytes.Buffer
	b.WriteString("# floe: environment variables\n\n")
	b.WriteString("Generated from the configuration's fields by `go test ./internal/config -run TestEnvVars_Doc -update`; do not edit.\n\n")
	b.WriteString("Each variable overrides one key of the YAML file (`etc/floe.yaml` shows the defaults). Its name is `FLOE_`\n")
	b.WriteString("and the key's path upper-cased with dots turned into underscores. Lists are comma-separated; bools take\n")
	b.WriteString("`true`/`false`, `1`/`0`, `yes`/`no`; durations are Go durations (`30s`, `2m`). An unknown `FLOE_` variable is\n")
	b.WriteString("an error. Maps and lists of sections (`connections`, `pinot.headers`, `notifications.queues`) are set in the\n")
	b.WriteString("file only. `FLOE_CONFIG` names the file; `FLOE_ADDR`, `FLOE_TOKEN` and `FLOE_API_TOKEN` are the command line's.\n\n")
	b.WriteString("| variable | key | type |\n| --- | --- | --- |\n")
	for _, v := range config.EnvVars() {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", v.Name, v.Field, v.Type)
	}
	return b.Bytes()
}

// docs/environment.md lists exactly the variables floe reads.
func TestEnvVars_Doc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "environment.md")
	got := envDoc()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (go test -run TestEnvVars_Doc -update writes it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: go test ./internal/config -run TestEnvVars_Doc -update, and review the diff", path)
	}
}

// Every FLOE_ variable the docs, the example config and the chart name is
// one floe reads (a name ending in "_" is a prefix or a pattern, such as
// FLOE_* or FLOE_SECURITY_EGRESS_<KIND>_ALLOW).
func TestEnvVars_DocsNameRealVariables(t *testing.T) {
	known := map[string]bool{"FLOE_CONFIG": true, config.APITokenEnv: true, config.AddrEnv: true, config.TokenEnv: true}
	for _, v := range config.EnvVars() {
		known[v.Name] = true
	}
	var files []string
	for _, pattern := range []string{"README.md", "CHANGELOG.md", "CONTRIBUTING.md", "docs/*.md", "etc/*.yaml", "deploy/helm/floe/*.yaml", "deploy/helm/floe/templates/*"} {
		m, err := filepath.Glob(filepath.Join("..", "..", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	name := regexp.MustCompile(`FLOE_[A-Z0-9_]*`)
	checked := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range name.FindAllIndex(body, -1) {
			n := string(body[loc[0]:loc[1]])
			if strings.HasSuffix(n, "_") {
				continue
			}
			checked++
			if !known[n] {
				t.Errorf("%s names %s, which floe does not read", f, n)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d names checked", checked)
	}
}
