package spec_test

import (
	"slices"
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

// ParseProperties reads commons-configuration syntax: '=', ':' and white
// space separators, comments, continuation lines; keys unescaped, values
// as written.
func TestParseProperties(t *testing.T) {
	in := "# comment\n! also\n  a = 1\nb:2\nc 3\nd\\ e = x\\,y\nlong = one \\\n    two\nempty\n"
	var got []string
	if err := spec.ParseProperties([]byte(in), func(k, v string) { got = append(got, k+"|"+v) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"a|1", "b|2", "c|3", "d e|x\\,y", "long|one two", "empty|"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
