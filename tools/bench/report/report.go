// Package report rewrites one benchmark's generated block of
// docs/benchmarks.md, so each bench command owns its block and nothing else.
package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Block names a generated block by its markers, and the section that
// holds it when the report has none yet.
type Block struct {
	// Begin and End are the marker lines around the generated text.
	Begin, End string
	// Section is the heading and introduction written before the block
	// when the report lacks it (e.g. "## Planning\n\nHow it is measured.").
	Section string
}

// Publish prints text to w and, when path is set, makes it b's block of
// the report at path (Update).
func Publish(w io.Writer, path string, b Block, text string) error {
	fmt.Fprint(w, text)
	if path == "" {
		return nil
	}
	return Update(path, b, text)
}

// Update replaces the text between b's markers in the report at path with
// text (which starts with b.Begin and ends with b.End and a newline), or
// appends b's section and text when the markers are missing.
func Update(path string, b Block, text string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read report %s: %w", path, err)
	}
	s := string(old)
	i, j := strings.Index(s, b.Begin), strings.Index(s, b.End)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + text + strings.TrimPrefix(s[j+len(b.End):], "\n")
	case s == "":
		s = "# Benchmarks\n\n" + b.Section + "\n\n" + text
	default:
		s = strings.TrimRight(s, "\n") + "\n\n" + b.Section + "\n\n" + text
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}
