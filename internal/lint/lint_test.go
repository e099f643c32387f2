// Package lint holds floe's own grep rules, run as a test so that
// `go test ./...` enforces them.
package lint

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rule forbids a pattern in Go files that match applies.
type rule struct {
	name    string
	pattern *regexp.Regexp
	applies func(path string) bool
	why     string
	// comments: the rule also applies inside // comments.
	comments bool
}

func rules() []rule {
	isTest := func(p string) bool { return strings.HasSuffix(p, "_test.go") }
	// Programs (package main) own the process context; test-support
	// packages run under tests.
	ownsRoot := func(p string) bool {
		return isMainPackage(p) || strings.HasPrefix(p, "internal/testpeer/") || strings.HasPrefix(p, "internal/pinottest/")
	}
	return []rule{
		{"log.Printf", regexp.MustCompile(`\blog\.(Print|Fatal|Panic)`), func(string) bool { return true },
			"use the injected *slog.Logger", false},
		{"context.Background", regexp.MustCompile(`context\.Background\(\)`),
			func(p string) bool { return !isTest(p) && !ownsRoot(p) }, "take a ctx from the caller", false},
		{"t.Skip", regexp.MustCompile(`\bt\.Skip(f|Now)?\(`), isTest,
			"a missing peer must fail the test, not skip it", false},
		{"init()", regexp.MustCompile(`^func init\(\)`), func(string) bool { return true },
			"no init() registries: wire explicitly", false},
		{"issue reference", regexp.MustCompile(`(?i)\bissue \d+|\bthe issue\b`), func(string) bool { return true },
			"code and comments speak of floe alone, not of the tracker's issues", true},
		{"machine path", regexp.MustCompile(`/(work|root|farm)/|/tmp/bash[_]jobs`), func(string) bool { return true },
			"no machine-specific paths", true},
	}
}

func TestRepoFollowsHouseRules(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", ".venv", "node_modules", "target", "floe-data", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || rel == filepath.Join("internal", "lint", "lint_test.go") {
			return nil
		}
		checkFile(t, path, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkFile(t *testing.T, path, rel string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var active []rule
	for _, r := range rules() {
		if r.applies(rel) {
			active = append(active, r)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		comment := strings.HasPrefix(strings.TrimSpace(line), "//")
		for _, r := range active {
			if comment && !r.comments {
				continue
			}
			if r.pattern.MatchString(line) {
				t.Errorf("%s:%d: %s: %s", rel, n, r.name, r.why)
			}
		}
	}
}

// isMainPackage reports whether the Go file at rel (from the repo root)
// declares package main.
func isMainPackage(rel string) bool {
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	return regexp.MustCompile(`(?m)^package main\b`).Match(b)
}
