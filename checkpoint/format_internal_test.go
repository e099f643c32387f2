package checkpoint

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode_Versions(t *testing.T) {
	cases := []struct {
		name, data, wantErr string
	}{
		{"v1", `{"v":1,"name":"orders"}`, ""},
		{"current", `{"v":2,"revision":7,"name":"orders"}`, ""},
		{"newer", `{"v":3,"name":"orders"}`, "format version 3 not supported"},
		{"newer, other types", `{"v":3,"name":["orders"]}`, "format version 3 not supported"},
		{"missing v", `{"name":"orders"}`, "format version 0 not supported"},
		{"not json", `{"v":1,`, "decode table \"orders\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r tableRecord
			err := decode(`table "orders"`, []byte(c.data), &r)
			if c.wantErr == "" {
				if err != nil || r.Name != "orders" {
					t.Fatalf("decode = %+v, %v; want table orders", r, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), `table "orders"`) {
				t.Fatalf("decode error = %v, want one naming the record and %q", err, c.wantErr)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	ok := []string{"orders", "a.b-c_d", "名前", strings.Repeat("x", 512)}
	bad := []string{"", "a\nb", "tab\there", strings.Repeat("x", 513)}
	for _, n := range ok {
		if err := checkName("table", n); err != nil {
			t.Errorf("checkName(%q) = %v, want nil", n, err)
		}
	}
	for _, n := range bad {
		if err := checkName("table", n); !errors.Is(err, ErrInvalid) {
			t.Errorf("checkName(%.20q) = %v, want ErrInvalid", n, err)
		}
	}
}

func TestRedisKeys(t *testing.T) {
	k := redisKeys{prefix: "floe:"}
	got := []string{k.conns(), k.conn("c"), k.tables(), k.table("t"), k.checkpoint("t"), k.files("t"),
		k.staging("t", "n1"), k.runs("t"), k.runOrder("t"), k.lease("t"), k.fence("t")}
	want := []string{"floe:v1:conns", "floe:v1:conn:c", "floe:v1:tables", "floe:v1:table:t", "floe:v1:checkpoint:t",
		"floe:v1:files:t", "floe:v1:staging:t:n1", "floe:v1:runs:t", "floe:v1:runorder:t", "floe:v1:lease:t",
		"floe:v1:fence:t"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("keys = %v\nwant %v", got, want)
	}
}
