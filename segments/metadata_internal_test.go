package segments

import "testing"

func TestEscapeValue(t *testing.T) {
	cases := map[string]string{
		"plain":         "plain",
		"a,b":           `a\,b`,
		`back\slash`:    `back\\slash`,
		"tab\tnl\ncr\r": `tab\tnl\ncr\r`,
		"bs\bff\f":      `bs\bff\f`,
		"\x00":          `\u0000`,
		"\x01\x1f":      `\u0001\u001F`,
		"é":             `\u00E9`,
		"日本":            `\u65E5\u672C`,
		"😀":             `\uD83D\uDE00`,
		"\x7f":          "\x7f",
		" lead":         " lead",
	}
	for in, want := range cases {
		if got := escapeValue(in); got != want {
			t.Errorf("escapeValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeKey(t *testing.T) {
	if got := escapeKey("column.a b=c:d"); got != `column.a\ b\=c\:d` {
		t.Errorf("escapeKey = %q", got)
	}
}

func TestStringPropertyValue(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Paris", "Paris", true},
		{"San, Jose", "San\x00\x00 Jose", true},
		{" lead", "\x00 lead", true},
		{"trail ", "trail \x00", true},
		{" both ", "\x00 both \x00", true},
		{"😀", "", false},
		{"\uE000", "\uE000", true},
	}
	for _, c := range cases {
		got, ok := stringPropertyValue(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("stringPropertyValue(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	// As written: San\u0000\u0000 Jose (the spec's example).
	v, _ := stringPropertyValue("San, Jose")
	if got := escapeValue(v); got != `San\u0000\u0000 Jose` {
		t.Errorf("escaped = %q", got)
	}
}

func TestPropertiesSetList(t *testing.T) {
	var p properties
	p.setList("segment.dimension.column.names", []string{"a", "b"})
	p.set("x", "1,2")
	if got, want := string(p.bytes()), "segment.dimension.column.names = a,b\nx = 1\\,2\n"; got != want {
		t.Errorf("properties = %q, want %q", got, want)
	}
}
