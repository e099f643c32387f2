package egress

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExcerptLen is the most bytes of a peer's text an error carries (E6).
const ExcerptLen = 200

// maxErrorBody is how much of an error answer is read at all.
const maxErrorBody = 64 << 10

// Excerpt returns at most ExcerptLen bytes of s, scrubbed first (so a
// secret is never cut in half and left unrecognised), with control
// characters and runs of white space turned into one space; "…" marks a
// cut.
func Excerpt(s string, scrub func(string) string) string {
	if scrub != nil {
		s = scrub(s)
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) <= ExcerptLen {
		return s
	}
	const mark = "…"
	cut := ExcerptLen - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// shortenBody rewrites an error answer so that no text of the peer in it
// is longer than an excerpt: every JSON string and XML text is
// scrubbed and cut to ExcerptLen bytes (the structure stays, so clients
// still read error codes), JSON "stack" members are dropped, arrays keep
// four elements; any other body becomes one excerpt.
func shortenBody(body []byte, scrub func(string) string) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) <= ExcerptLen {
		return []byte(Excerpt(string(trimmed), scrub))
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		var v any
		if json.Unmarshal(trimmed, &v) == nil {
			if out, err := json.Marshal(shortenJSON(v, scrub)); err == nil {
				return out
			}
		}
	}
	if trimmed[0] == '<' {
		if out, ok := shortenXML(trimmed, scrub); ok {
			return out
		}
	}
	return []byte(Excerpt(string(body), scrub))
}

func shortenJSON(v any, scrub func(string) string) any {
	switch t := v.(type) {
	case string:
		return Excerpt(t, scrub)
	case []any:
		if len(t) > 4 {
			t = t[:4]
		}
		for i := range t {
			t[i] = shortenJSON(t[i], scrub)
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if strings.EqualFold(k, "stack") {
				continue
			}
			out[Excerpt(k, scrub)] = shortenJSON(val, scrub)
		}
		return out
	}
	return v
}

// shortenXML cuts every text node and attribute value of an XML
// document, keeping its elements and namespace prefixes as written; false
// when body is not well-formed XML.
func shortenXML(body []byte, scrub func(string) string) ([]byte, bool) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var out bytes.Buffer
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			return out.Bytes(), true
		}
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			out.WriteString("<" + qname(t.Name))
			for _, a := range t.Attr {
				out.WriteString(" " + qname(a.Name) + `="`)
				_ = xml.EscapeText(&out, []byte(Excerpt(a.Value, scrub)))
				out.WriteString(`"`)
			}
			out.WriteString(">")
		case xml.EndElement:
			out.WriteString("</" + qname(t.Name) + ">")
		case xml.CharData:
			_ = xml.EscapeText(&out, []byte(Excerpt(string(t), scrub)))
		case xml.ProcInst:
			out.WriteString("<?" + t.Target + " " + string(t.Inst) + "?>")
		}
	}
}

// qname writes a raw name with its prefix.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}
