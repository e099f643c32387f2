package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floehq/floe/tools/bench/report"
)

func TestUpdate(t *testing.T) {
	b := report.Block{Begin: "<!-- x:begin -->", End: "<!-- x:end -->", Section: "## X\n\nHow X is measured."}
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	steps := []struct{ before, text, want string }{
		{"", "<!-- x:begin -->\none\n<!-- x:end -->\n",
			"# Benchmarks\n\n## X\n\nHow X is measured.\n\n<!-- x:begin -->\none\n<!-- x:end -->\n"},
		{"# Benchmarks\n\n## Y\n\ny\n", "<!-- x:begin -->\none\n<!-- x:end -->\n",
			"# Benchmarks\n\n## Y\n\ny\n\n## X\n\nHow X is measured.\n\n<!-- x:begin -->\none\n<!-- x:end -->\n"},
		{"a\n<!-- x:begin -->\nold\nolder\n<!-- x:end -->\nafter\n", "<!-- x:begin -->\nnew\n<!-- x:end -->\n",
			"a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nafter\n"},
	}
	for i, s := range steps {
		if err := os.WriteFile(path, []byte(s.before), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := report.Update(path, b, s.text); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != s.want {
			t.Errorf("step %d: got\n%q\nwant\n%q", i, got, s.want)
		}
	}
}
