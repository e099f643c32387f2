package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

func TestParseOverride(t *testing.T) {
	tests := []struct {
		in   string
		col  string
		want schema.Override
	}{
		{"ts=LONG", "ts", schema.Override{DataType: spec.Long}},
		{"ts=long", "ts", schema.Override{DataType: spec.Long}},
		{"amount=METRIC", "amount", schema.Override{FieldType: spec.Metric}},
		{"id=DIMENSION", "id", schema.Override{FieldType: spec.Dimension}},
		{"a.b=DATE_TIME", "a.b", schema.Override{FieldType: spec.DateTime}},
		{"epoch=DATE_TIME:SECONDS", "epoch", schema.Override{FieldType: spec.DateTime, TimeUnit: schema.Seconds}},
		{"ts=LONG,DIMENSION", "ts", schema.Override{DataType: spec.Long, FieldType: spec.Dimension}},
		{"addr=FLATTEN", "addr", schema.Override{Flatten: true}},
		{"x=y=METRIC", "x=y", schema.Override{FieldType: spec.Metric}},
		{"day=TIMESTAMP", "day", schema.Override{DataType: spec.Timestamp}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			col, o, err := schema.ParseOverride(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if col != tt.col || o != tt.want {
				t.Errorf("got %q %+v, want %q %+v", col, o, tt.col, tt.want)
			}
		})
	}
}

func TestParseOverride_errors(t *testing.T) {
	for _, in := range []string{"ts", "=LONG", "ts=", "ts=FOO", "ts=DATE_TIME:WEEKS", "ts=LONG,INT", "ts=METRIC,DIMENSION"} {
		t.Run(in, func(t *testing.T) {
			_, _, err := schema.ParseOverride(in)
			if !errors.Is(err, schema.ErrIllegalOverride) {
				t.Fatalf("err = %v, want ErrIllegalOverride", err)
			}
			if !strings.Contains(err.Error(), in) {
				t.Errorf("error %q does not quote the input", err)
			}
		})
	}
}

func TestParseOverrides(t *testing.T) {
	got, err := schema.ParseOverrides([]string{"ts=LONG", "ts=DIMENSION", "addr=FLATTEN"})
	if err != nil {
		t.Fatal(err)
	}
	if got["ts"] != (schema.Override{DataType: spec.Long, FieldType: spec.Dimension}) || !got["addr"].Flatten || len(got) != 2 {
		t.Errorf("merged = %+v", got)
	}
	_, err = schema.ParseOverrides([]string{"ts=LONG", "ts=TIMESTAMP"})
	if !errors.Is(err, schema.ErrIllegalOverride) || !strings.Contains(err.Error(), `"ts"`) {
		t.Errorf("conflict: err = %v", err)
	}
}

// TestInfer_overridesAllowed walks every allowed override of the rules in
// doc.go against the every-type schema.
func TestInfer_overridesAllowed(t *testing.T) {
	tests := []struct {
		col    string
		o      schema.Override
		dt     spec.DataType
		ft     spec.FieldType
		format string
		gran   string
		lossy  bool
	}{
		{"ts", schema.Override{DataType: spec.Long}, spec.Long, spec.DateTime, "1:MICROSECONDS:EPOCH", "1:MICROSECONDS", false},
		{"tstz", schema.Override{DataType: spec.Long}, spec.Long, spec.DateTime, "1:MICROSECONDS:EPOCH", "1:MICROSECONDS", false},
		{"tsn", schema.Override{DataType: spec.Long}, spec.Long, spec.DateTime, "1:NANOSECONDS:EPOCH", "1:NANOSECONDS", false},
		{"tstzn", schema.Override{DataType: spec.Long}, spec.Long, spec.DateTime, "1:NANOSECONDS:EPOCH", "1:NANOSECONDS", false},
		{"ts", schema.Override{DataType: spec.Long, FieldType: spec.Dimension}, spec.Long, spec.Dimension, "", "", false},
		{"ts", schema.Override{DataType: spec.Long, FieldType: spec.Metric}, spec.Long, spec.Metric, "", "", false},
		{"ts", schema.Override{FieldType: spec.DateTime}, spec.Timestamp, spec.DateTime, "1:MILLISECONDS:TIMESTAMP", "1:MILLISECONDS", true},
		{"ts", schema.Override{FieldType: spec.DateTime, TimeUnit: schema.Milliseconds}, spec.Timestamp, spec.DateTime, "1:MILLISECONDS:TIMESTAMP", "1:MILLISECONDS", true},
		{"id", schema.Override{FieldType: spec.Metric}, spec.Long, spec.Metric, "", "", false},
		{"id", schema.Override{FieldType: spec.DateTime}, spec.Long, spec.DateTime, "1:MILLISECONDS:EPOCH", "1:MILLISECONDS", false},
		{"id", schema.Override{FieldType: spec.DateTime, TimeUnit: schema.Seconds}, spec.Long, spec.DateTime, "1:SECONDS:EPOCH", "1:SECONDS", false},
		{"i", schema.Override{FieldType: spec.DateTime}, spec.Int, spec.DateTime, "1:DAYS:EPOCH", "1:DAYS", false},
		{"i", schema.Override{FieldType: spec.Metric}, spec.Int, spec.Metric, "", "", false},
		{"i", schema.Override{DataType: spec.Long}, spec.Long, spec.Dimension, "", "", false},
		{"f", schema.Override{DataType: spec.Double}, spec.Double, spec.Metric, "", "", false},
		{"f", schema.Override{FieldType: spec.Dimension}, spec.Float, spec.Dimension, "", "", false},
		{"d", schema.Override{FieldType: spec.Dimension}, spec.Double, spec.Dimension, "", "", false},
		{"amount", schema.Override{FieldType: spec.Dimension}, spec.BigDecimal, spec.Dimension, "", "", false},
		{"day", schema.Override{DataType: spec.Timestamp}, spec.Timestamp, spec.DateTime, "1:MILLISECONDS:TIMESTAMP", "1:MILLISECONDS", false},
		{"day", schema.Override{FieldType: spec.Dimension}, spec.Int, spec.Dimension, "", "", false},
		{"day", schema.Override{FieldType: spec.Metric}, spec.Int, spec.Metric, "", "", false},
		{"tod", schema.Override{FieldType: spec.DateTime}, spec.Long, spec.DateTime, "1:MICROSECONDS:EPOCH", "1:MICROSECONDS", false},
		{"tod", schema.Override{FieldType: spec.Metric}, spec.Long, spec.Metric, "", "", false},
		{"name", schema.Override{FieldType: spec.Dimension}, spec.String, spec.Dimension, "", "", false},
		{"flag", schema.Override{FieldType: spec.Dimension}, spec.Boolean, spec.Dimension, "", "", false},
		{"tags", schema.Override{FieldType: spec.Dimension}, spec.String, spec.Dimension, "", "", true},
		{"nums", schema.Override{DataType: spec.Long}, spec.Long, spec.Dimension, "", "", true},
		{"v", schema.Override{DataType: spec.JSON}, spec.JSON, spec.Dimension, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.col+"="+string(tt.o.DataType)+string(tt.o.FieldType)+tt.o.TimeUnit, func(t *testing.T) {
			res, err := schema.Infer(everyType(t), schema.Options{Name: "t", NoTimeColumn: true,
				Overrides: map[string]schema.Override{tt.col: tt.o}})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := res.Column(tt.col)
			f := c.Field
			if f.DataType != tt.dt || f.FieldType != tt.ft || f.Format != tt.format || f.Granularity != tt.gran {
				t.Errorf("got %s %s %q %q, want %s %s %q %q", f.DataType, f.FieldType, f.Format, f.Granularity,
					tt.dt, tt.ft, tt.format, tt.gran)
			}
			if (c.Lossy != "") != tt.lossy {
				t.Errorf("Lossy = %q, want lossy=%v", c.Lossy, tt.lossy)
			}
		})
	}
}

// TestInfer_overridesRefused checks every refused kind of override: the
// error is ErrIllegalOverride and names the column and what is allowed.
func TestInfer_overridesRefused(t *testing.T) {
	tests := []struct {
		col     string
		o       schema.Override
		allowed string
	}{
		{"ts", schema.Override{FieldType: spec.Metric}, "allowed: DATE_TIME"},
		{"ts", schema.Override{FieldType: spec.Dimension}, "allowed: DATE_TIME"},
		{"ts", schema.Override{DataType: spec.String}, "allowed: TIMESTAMP, LONG"},
		{"tsn", schema.Override{DataType: spec.Int}, "allowed: TIMESTAMP, LONG"},
		{"ts", schema.Override{DataType: spec.Long, TimeUnit: schema.Seconds, FieldType: spec.DateTime}, "allowed time unit: MICROSECONDS"},
		{"name", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"name", schema.Override{FieldType: spec.DateTime}, "allowed: DIMENSION"},
		{"uid", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"uid", schema.Override{DataType: spec.Bytes}, "allowed: STRING"},
		{"flag", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"flag", schema.Override{FieldType: spec.DateTime}, "allowed: DIMENSION"},
		{"tags", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"nums", schema.Override{FieldType: spec.DateTime}, "allowed: DIMENSION"},
		{"nums", schema.Override{DataType: spec.Int}, "allowed: LONG"},
		{"f", schema.Override{FieldType: spec.DateTime}, "allowed: DIMENSION, METRIC"},
		{"amount", schema.Override{FieldType: spec.DateTime}, "allowed: DIMENSION, METRIC"},
		{"amount", schema.Override{DataType: spec.Double}, "allowed: BIG_DECIMAL"},
		{"i", schema.Override{DataType: spec.Float}, "allowed: INT, LONG"},
		{"d", schema.Override{DataType: spec.Float}, "allowed: DOUBLE"},
		{"day", schema.Override{DataType: spec.Long}, "allowed: INT, TIMESTAMP"},
		{"day", schema.Override{DataType: spec.Timestamp, FieldType: spec.Metric}, "allowed: DATE_TIME"},
		{"v", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"attrs", schema.Override{DataType: spec.String}, "allowed: JSON"},
		{"bin", schema.Override{FieldType: spec.Metric}, "allowed: DIMENSION"},
		{"geom", schema.Override{DataType: spec.String}, "allowed: BYTES"},
		{"id", schema.Override{TimeUnit: schema.Seconds}, "needs field type DATE_TIME"},
		{"name", schema.Override{Flatten: true}, "only struct columns"},
		{"attrs", schema.Override{Flatten: true}, "only struct columns"},
		{"addr", schema.Override{Flatten: true, FieldType: spec.Metric}, "override the leaves"},
		{"nothing", schema.Override{DataType: spec.String}, "always null"},
		{"nosuch", schema.Override{FieldType: spec.Metric}, "no such column"},
		{"addr.street", schema.Override{FieldType: spec.Dimension}, "no such column"},
	}
	for _, tt := range tests {
		t.Run(tt.col+"/"+tt.allowed, func(t *testing.T) {
			_, err := schema.Infer(everyType(t), schema.Options{Name: "t",
				Overrides: map[string]schema.Override{tt.col: tt.o}})
			if !errors.Is(err, schema.ErrIllegalOverride) {
				t.Fatalf("err = %v, want ErrIllegalOverride", err)
			}
			if !strings.Contains(err.Error(), `"`+tt.col+`"`) || !strings.Contains(err.Error(), tt.allowed) {
				t.Errorf("error %q should name %q and say %q", err, tt.col, tt.allowed)
			}
		})
	}
}
