package schema_test

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floehq/floe/schema"
)

func TestParseTableName(t *testing.T) {
	tests := []struct {
		in        string
		want      schema.TableName
		canonical string
	}{
		{"cat.sales.orders", schema.TableName{Catalog: "cat", Namespace: []string{"sales"}, Table: "orders"}, ""},
		{"`My-Catalog`.sales.orders", schema.TableName{Catalog: "My-Catalog", Namespace: []string{"sales"}, Table: "orders"}, ""},
		{"c.a.b.t_1", schema.TableName{Catalog: "c", Namespace: []string{"a", "b"}, Table: "t_1"}, ""},
		{"c.`we.ird`.`x``y`", schema.TableName{Catalog: "c", Namespace: []string{"we.ird"}, Table: "x`y"}, ""},
		{"c.`sp ace`.`ünï`", schema.TableName{Catalog: "c", Namespace: []string{"sp ace"}, Table: "ünï"}, ""},
		{"`cat`.`sales`.orders", schema.TableName{Catalog: "cat", Namespace: []string{"sales"}, Table: "orders"}, "cat.sales.orders"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := schema.ParseTableName(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Catalog != tt.want.Catalog || got.Table != tt.want.Table || !slices.Equal(got.Namespace, tt.want.Namespace) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			canon := tt.canonical
			if canon == "" {
				canon = tt.in
			}
			if s := got.String(); s != canon {
				t.Errorf("String() = %q, want %q", s, canon)
			}
			again, err := schema.ParseTableName(got.String())
			if err != nil || again.String() != got.String() {
				t.Errorf("round trip: %+v, %v", again, err)
			}
		})
	}
}

func TestParseTableName_errors(t *testing.T) {
	for _, in := range []string{"", "orders", "sales.orders", "c..t", "c.s.", ".s.t", "c.`s.t", "c.`s`x.t",
		"c.``.t", "My-Catalog.sales.orders", "c.s.t t"} {
		t.Run(in, func(t *testing.T) {
			_, err := schema.ParseTableName(in)
			if !errors.Is(err, schema.ErrInvalidName) {
				t.Fatalf("err = %v, want ErrInvalidName", err)
			}
			if !strings.Contains(err.Error(), `"`+in+`"`) {
				t.Errorf("error %q does not quote the input", err)
			}
		})
	}
}

func TestParseTableIdent(t *testing.T) {
	got, err := schema.ParseTableIdent("sales.`order-lines`")
	if err != nil {
		t.Fatal(err)
	}
	if got.Catalog != "" || !slices.Equal(got.Ident(), []string{"sales", "order-lines"}) {
		t.Errorf("got %+v", got)
	}
	if got.String() != "sales.`order-lines`" {
		t.Errorf("String() = %q", got.String())
	}
	if _, err := schema.ParseTableIdent("orders"); !errors.Is(err, schema.ErrInvalidName) {
		t.Errorf("one part: err = %v", err)
	}
}

func TestTableName_PinotName(t *testing.T) {
	legal := regexp.MustCompile(`^[A-Za-z0-9]+(_[A-Za-z0-9]+)*$`)
	tests := []struct {
		name   schema.TableName
		want   string // "" = only check legality and the hash suffix
		hashed bool
	}{
		{schema.TableName{Catalog: "c", Namespace: []string{"sales"}, Table: "orders"}, "sales_orders", false},
		{schema.TableName{Catalog: "other", Namespace: []string{"sales"}, Table: "orders"}, "sales_orders", false},
		{schema.TableName{Namespace: []string{"a", "b"}, Table: "t_1"}, "a_b_t_1", false},
		{schema.TableName{Namespace: []string{"sales"}, Table: "order-lines"}, "", true},
		{schema.TableName{Namespace: []string{"sales"}, Table: "order__lines"}, "", true},
		{schema.TableName{Namespace: []string{"_x_"}, Table: "t"}, "", true},
		{schema.TableName{Namespace: []string{"ns"}, Table: "订单"}, "", true},
		{schema.TableName{Namespace: []string{"we.ird"}, Table: "t"}, "", true},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := tt.name.PinotName()
		if tt.want != "" && got != tt.want {
			t.Errorf("%s: PinotName = %q, want %q", tt.name, got, tt.want)
		}
		if !legal.MatchString(got) || schema.ValidatePinotName(got) != nil {
			t.Errorf("%s: PinotName %q is not a legal Pinot name", tt.name, got)
		}
		if hashed := regexp.MustCompile(`_?[0-9a-f]{8}$`).MatchString(got) && tt.want == ""; hashed != tt.hashed {
			t.Errorf("%s: PinotName %q hashed=%v, want %v", tt.name, got, hashed, tt.hashed)
		}
		if got != tt.name.PinotName() {
			t.Errorf("%s: PinotName not deterministic", tt.name)
		}
		if prev, ok := seen[got]; ok && tt.hashed {
			t.Errorf("%s and %s share %q", prev, tt.name, got)
		}
		seen[got] = tt.name.String()
	}
	a := schema.TableName{Namespace: []string{"sales"}, Table: "order-lines"}.PinotName()
	b := schema.TableName{Namespace: []string{"sales"}, Table: "order lines"}.PinotName()
	if a == b {
		t.Errorf("different Iceberg names share Pinot name %q", a)
	}
}

func TestValidatePinotName(t *testing.T) {
	for _, ok := range []string{"orders", "sales_orders", "a1", "Orders-2"} {
		if err := schema.ValidatePinotName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	bad := []struct{ name, names string }{
		{"", "empty"},
		{"a__b", `"__"`},
		{"db.t", "'.'"},
		{"a b", "white space"},
		{"a\tb", "white space"},
		{"_orders", "starts with"},
		{"-orders", "starts with"},
		{"orders\u202egpj", "U+202E"}, // right-to-left override
		{"ord\u200bers", "U+200B"},    // zero-width space
		{"ord\u2066ers", "U+2066"},    // left-to-right isolate
		{"orders\x00", "U+0000"},      // NUL
		{"orders\x1b[31m", "U+001B"},  // escape
		{"cafe\u0301", "U+0301"},      // combining accent
		{"оrders", "U+043E"},          // Cyrillic o
		{"a/b", "'/'"},
		{strings.Repeat("a", schema.MaxPinotNameLen+1), "129 bytes"},
	}
	for _, tc := range bad {
		err := schema.ValidatePinotName(tc.name)
		if !errors.Is(err, schema.ErrInvalidName) || !strings.Contains(err.Error(), tc.names) ||
			!strings.Contains(err.Error(), schema.PinotNameRule) ||
			(tc.name != "" && !strings.Contains(err.Error(), strconv.Quote(tc.name))) {
			t.Errorf("%q: err = %v", tc.name, err)
		}
	}
}
