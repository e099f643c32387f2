package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/testpeer"
)

// buildFloe gives a test that needs the real exit code or a real process
// its own copy of the binary (linked once per change to floe's code:
// testpeer.BuildFloe).
func buildFloe(t testing.TB) string {
	t.Helper()
	return testpeer.BuildFloe(t)
}

// Invalid configuration and an unreachable Redis each give one error line
// that names the problem, and exit non-zero; no password is printed.
func TestMain_StartupErrorsAreOneLine(t *testing.T) {
	bin := buildFloe(t)
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badYAML, []byte("watcher:\n  leaseTTL: soon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"bad redis url", []string{"serve"}, []string{"FLOE_STORE_REDIS_URL=http://user:hunter2@x:1"}, "store.redis.url"},
		{"unknown variable", []string{"serve"}, []string{"FLOE_STORE_REDIS_ULR=redis://x"}, "FLOE_STORE_REDIS_ULR"},
		{"bad yaml value", []string{"serve", "-config", badYAML}, nil, "leaseTTL"},
		{"unreachable redis", []string{"serve"}, []string{"FLOE_STORE_REDIS_URL=redis://:hunter2@127.0.0.1:1/0"}, "127.0.0.1:1"},
		{"missing config file", []string{"serve", "-config", filepath.Join(dir, "nope.yaml")}, nil, "nope.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("want a non-zero exit, got %v", err)
			}
			msg := strings.TrimRight(stderr.String(), "\n")
			if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, tc.want) {
				t.Fatalf("want one line naming %q, got:\n%s", tc.want, msg)
			}
			if strings.Contains(msg, "hunter2") {
				t.Fatalf("password leaked: %s", msg)
			}
		})
	}
}

func TestMain_Version(t *testing.T) {
	var out bytes.Buffer
	if err := dispatch(t.Context(), []string{"version"}, &out, &out); err != nil || !strings.HasPrefix(out.String(), "floe ") {
		t.Fatalf("version: %q, %v", out.String(), err)
	}
	if err := dispatch(t.Context(), []string{"nope"}, &out, &out); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown command: %v", err)
	}
}

// TestDispatch_helpIsSuccessOnStdout: asking for help answers on standard
// output and is not an error exit; a remote command's usage names its
// TABLE argument; flag placeholders keep the backticks of examples.
func TestDispatch_helpIsSuccessOnStdout(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"pause", "-h"}, {"infer", "--help"}, {"sync", "-help"}} {
		var stdout, stderr bytes.Buffer
		err := dispatch(t.Context(), args, &stdout, &stderr)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("floe %v: %v", args, err)
		}
		if stdout.Len() == 0 || stderr.Len() != 0 {
			t.Errorf("floe %v: help on stdout %d bytes, stderr %q", args, stdout.Len(), stderr.String())
		}
	}
	var out bytes.Buffer
	_ = dispatch(t.Context(), []string{"pause", "-h"}, &out, &out)
	if !strings.Contains(out.String(), "usage: floe pause TABLE [flags]") {
		t.Errorf("pause usage does not name TABLE:\n%s", out.String())
	}
	out.Reset()
	_ = dispatch(t.Context(), []string{"infer", "-h"}, &out, &out)
	if !strings.Contains(out.String(), "sales.`order-lines`") {
		t.Errorf("infer usage lost the backticks of its example:\n%s", out.String())
	}
}

// A release build's -ldflags reach `floe version`, `--version` and
// `version -json`, together with the Go version the binary was built with.
func TestMain_VersionFromLdflags(t *testing.T) {
	ldflags := "-X main.version=v1.2.3-test -X main.revision=0123abcd -X main.buildDate=2026-12-03T00:00:00Z"
	bin := testpeer.BuildFloe(t, "-ldflags", ldflags)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"floe v1.2.3-test", "commit 0123abcd", "built 2026-12-03T00:00:00Z", "go1."} {
			if !strings.Contains(string(out), want) {
				t.Fatalf("%v printed %q, want it to contain %q", args, out, want)
			}
		}
	}
	out, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Version, Commit, Date, GoVersion string }
	if err := json.Unmarshal(out, &info); err != nil || info.Version != "v1.2.3-test" || info.Commit != "0123abcd" ||
		!strings.HasPrefix(info.GoVersion, "go1.") {
		t.Fatalf("version -json: %s (%v)", out, err)
	}
}
