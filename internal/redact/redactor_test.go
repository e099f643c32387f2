package redact_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/redact"
)

// Each secret kind floe holds, in the form a peer echoes it, is scrubbed
// (I7).
func TestRedactor_Scrub(t *testing.T) {
	tests := []struct {
		name   string
		values []string // registered
		text   string   // what a peer echoed
		gone   []string // must not survive
	}{
		{"connection secret", []string{"pw-1a2b3c4d"}, `password "pw-1a2b3c4d" rejected`, []string{"pw-1a2b3c4d"}},
		{"bearer token", []string{"tok-5e6f7a8b"}, "got Authorization: Bearer tok-5e6f7a8b", []string{"tok-5e6f7a8b"}},
		{"basic auth header", []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("admin:pinot-9c0d1e2f"))},
			"header Basic YWRtaW46cGlub3QtOWMwZDFlMmY= was refused; user admin:pinot-9c0d1e2f",
			[]string{"YWRtaW46cGlub3QtOWMwZDFlMmY=", "pinot-9c0d1e2f"}},
		{"oauth client credential", []string{"client-a:cs-3a4b5c6d"},
			"client_id=client-a&client_secret=cs-3a4b5c6d; Basic " + base64.StdEncoding.EncodeToString([]byte("client-a:cs-3a4b5c6d")),
			[]string{"cs-3a4b5c6d", base64.StdEncoding.EncodeToString([]byte("client-a:cs-3a4b5c6d"))}},
		{"aws key id in a signature", []string{"AKIAEXAMPLE12345678"},
			"Credential=AKIAEXAMPLE12345678/20260101/us-east-1/glue/aws4_request", []string{"AKIAEXAMPLE12345678"}},
		{"session token url-escaped", []string{"FwoGZ+XIv/a=b"}, "X-Amz-Security-Token=" + url.QueryEscape("FwoGZ+XIv/a=b"),
			[]string{url.QueryEscape("FwoGZ+XIv/a=b")}},
		{"json-escaped value", []string{`pw"with"quotes`}, `{"password":"pw\"with\"quotes"}`, []string{`pw\"with\"quotes`}},
		{"longest first", []string{"abcd", "abcdefgh"}, "x abcdefgh y", []string{"efgh"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := redact.New()
			r.Set("owner", tc.values...)
			got := r.Scrub(tc.text)
			for _, g := range tc.gone {
				if strings.Contains(got, g) {
					t.Errorf("Scrub(%q) = %q still holds %q", tc.text, got, g)
				}
			}
			if !strings.Contains(got, redact.Mask) {
				t.Errorf("Scrub(%q) = %q has no mask", tc.text, got)
			}
		})
	}
}

func TestRedactor_SetReplacesAndForget(t *testing.T) {
	r := redact.New()
	r.Set("connection/a", "first-secret")
	r.Set("connection/a", "second-secret")
	if got := r.Scrub("first-secret second-secret"); got != "first-secret "+redact.Mask {
		t.Fatalf("after replace: %q", got)
	}
	r.Add("connection/a", "third-secret")
	if got := r.Scrub("second-secret third-secret"); got != redact.Mask+" "+redact.Mask {
		t.Fatalf("after add: %q", got)
	}
	r.Forget("connection/a")
	if got := r.Scrub("second-secret"); got != "second-secret" {
		t.Fatalf("after forget: %q", got)
	}
	r.Set("short", "abc", "")
	if got := r.Scrub("abc abc"); got != "abc abc" {
		t.Fatalf("values under %d bytes must be left alone: %q", redact.MinLen, got)
	}
	var nilR *redact.Redactor
	if nilR.Scrub("x") != "x" {
		t.Fatal("a nil Redactor scrubs nothing")
	}
}

type leaky struct{ Token string }

func TestHandler_ScrubsEveryAttribute(t *testing.T) {
	const s = "tok-77aa88bb99cc"
	r := redact.New()
	r.Set("config", s)
	var buf bytes.Buffer
	log := slog.New(redact.NewHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), r))
	log = log.With(slog.String("with", "w "+s)).WithGroup("g")
	log.Debug("message "+s,
		slog.String("str", s),
		slog.Any("err", errors.New("failed: "+s)),
		slog.Group("grp", slog.String("inner", s)),
		slog.Any("struct", leaky{Token: s}),
		slog.Int("n", 3))
	out := buf.String()
	if strings.Contains(out, s) {
		t.Fatalf("log holds the secret: %s", out)
	}
	for _, want := range []string{`"msg":"message REDACTED"`, `"with":"w REDACTED"`, `"n":3`, `"inner":"REDACTED"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s: %s", want, out)
		}
	}
}

// Short values are scrubbed as whole tokens only, so they do not garble
// the words that contain them; long ones wherever they occur.
func TestRedactor_WholeTokens(t *testing.T) {
	r := redact.New()
	r.Set("short", "east", "pass")
	r.Set("long", "abcdefghijkl12")
	for text, want := range map[string]string{
		"us-east-1 northeast eastern":  "us-REDACTED-1 northeast eastern",
		"password: pass; passes":       "password: REDACTED; passes",
		"xxabcdefghijkl12yy":           "xxREDACTEDyy",
		"token=east&x=1":               "token=REDACTED&x=1",
		"user%3Aeast%40host":           "user%3AREDACTED%40host",
		"nothing secret in this line.": "nothing secret in this line.",
	} {
		if got := r.Scrub(text); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", text, got, want)
		}
	}
	if got := redact.Scrub("us-east-1 in a message", "e", "ast-1"); got != "us-east-1 in a message" {
		t.Errorf("Scrub with a 1-byte and a short value = %q, want the text unchanged", got)
	}
}

// Every derived form of a secret is scrubbed: URL userinfo (either hex
// case), Basic base64 of user:password, the value's own base64, a libpq
// quoted value, a percent-escaped password inside a longer escape.
func TestRedactor_DerivedForms(t *testing.T) {
	const pw = "p@ss/W0rd!it's"
	r := redact.New()
	r.Set("conn", pw, "floe:"+pw)
	pair := base64.StdEncoding.EncodeToString([]byte("floe:" + pw))
	userinfo := url.UserPassword("floe", pw).String()
	for _, text := range []string{
		"GET http://" + userinfo + "@host/v1/config",
		"GET http://" + strings.ReplaceAll(userinfo, "%2F", "%2f") + "@host/v1/config",
		"auth=Basic " + pair + " refused",
		"token " + base64.StdEncoding.EncodeToString([]byte(pw)) + " " + base64.RawURLEncoding.EncodeToString([]byte(pw)),
		`host=db password='p@ss/W0rd!it\'s' user=floe`,
		"dsn=" + url.QueryEscape("postgres://"+userinfo+"@db/x"),
	} {
		got := r.Scrub(text)
		if !strings.Contains(got, redact.Mask) {
			t.Errorf("Scrub(%q) = %q: nothing masked", text, got)
		}
		for _, form := range []string{pw, "W0rd", pair, base64.StdEncoding.EncodeToString([]byte(pw))} {
			if strings.Contains(got, form) {
				t.Errorf("Scrub(%q) = %q still holds %q", text, got, form)
			}
		}
	}
}
