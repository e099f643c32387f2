package spec_test

import (
	"testing"

	"github.com/floehq/floe/pinot/spec"
)

func TestUnescapeProperty(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:                 "plain",
		`a\=b\:c\ d`:            "a=b:c d",
		`tab\tnl\ncr\rff\fbs\b`: "tab\tnl\ncr\rff\fbs\b",
		`\u00e9t\u00E9`:         "été",
		`\ud83d\ude00`:          "😀",   // a surrogate pair joined
		`\u12`:                  "u12", // too short: the backslash goes
		`end\`:                  `end\`,
		`\\`:                    `\`,
	} {
		if got := spec.UnescapeProperty(in); got != want {
			t.Errorf("UnescapeProperty(%q) = %q, want %q", in, got, want)
		}
	}
}
