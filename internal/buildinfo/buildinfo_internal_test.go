package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}}
	t.Run("linker values win", func(t *testing.T) {
		got := fromBuild(bi, "v9.9.9", "def456", "2026-12-01T00:00:00Z")
		want := Info{Version: "v9.9.9", Commit: "def456", Date: "2026-12-01T00:00:00Z", GoVersion: "go1.26.8", Platform: "linux/amd64"}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
	t.Run("build information fills the rest", func(t *testing.T) {
		got := fromBuild(bi, "dev", "", "")
		want := Info{Version: "v1.2.3", Commit: "abc123", Date: "2026-01-02T03:04:05Z", GoVersion: "go1.26.8", Platform: "linux/amd64"}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
	t.Run("nothing known", func(t *testing.T) {
		got := fromBuild(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev", "", "")
		want := Info{Version: "dev", Commit: Unknown, Date: Unknown, GoVersion: Unknown, Platform: Unknown}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		if s := got.String(); !strings.HasPrefix(s, "floe dev (commit unknown") {
			t.Fatalf("String() = %q", s)
		}
	})
}
