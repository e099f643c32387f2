package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

const lakeARN = "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"

func TestConfig_Validate(t *testing.T) {
	ok := []catalog.Config{
		{Name: "a", Type: "sql", Props: map[string]string{"uri": "/tmp/x.db"}},
		{Name: "a", Type: "hadoop", Props: map[string]string{"warehouse": "s3://b/wh"}},
		{Name: "a", Type: "rest", Props: map[string]string{"uri": "https://cat.example/api", "sigv4": "true"},
			Secrets: map[string]string{"credential": "id:secret"}},
		{Name: "a", Type: "s3tables", Props: map[string]string{"arn": lakeARN, "mode": "native", "region": "us-east-1",
			"role-arn": "arn:aws:iam::111122223333:role/reader", "external-id": "x", "via-role-arn": "arn:aws:iam::999988887777:role/floe"}},
		{Name: "a", Type: "glue", Props: map[string]string{"region": "eu-west-1", "catalog-id": "111122223333", "mode": "rest",
			"endpoint": "http://127.0.0.1:5000", "timeout": "5s"}},
	}
	for _, cfg := range ok {
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate(%v) = %v, want nil", cfg, err)
		}
	}
	bad := []struct {
		cfg  catalog.Config
		want string
	}{
		{catalog.Config{Name: "foo", Type: "s3tables", Props: map[string]string{"arn": "arn:aws:s3tables:us-east-1:1:bucket/x"}},
			`connections.foo.props.arn: invalid S3 Tables ARN "arn:aws:s3tables:us-east-1:1:bucket/x"`},
		{catalog.Config{Name: "foo", Type: "s3tables"}, "connections.foo.props.arn: is required"},
		{catalog.Config{Name: "foo", Type: "s3tables", Props: map[string]string{"arn": lakeARN, "region": "us-west-2"}},
			`connections.foo.props.region: wrong region: "us-west-2" differs from the ARN's region "us-east-1"`},
		{catalog.Config{Name: "foo", Type: "s3tables", Props: map[string]string{"arn": lakeARN, "mode": "fast"}},
			`connections.foo.props.mode: unknown mode "fast"`},
		{catalog.Config{Name: "foo", Type: "nosql"}, `connections.foo.type: unknown catalog type "nosql"`},
		{catalog.Config{Type: "sql", Props: map[string]string{"uri": "x"}}, "connections.(unnamed).name: must not be empty"},
		{catalog.Config{Name: "foo", Type: "rest", Props: map[string]string{"uri": "ftp://x"}}, `connections.foo.props.uri: invalid URL "ftp://x"`},
		{catalog.Config{Name: "foo", Type: "rest", Props: map[string]string{"uri": "http://x"}, Secrets: map[string]string{"credential": "nocolon"}},
			"connections.foo.secrets.credential: must be <client-id>:<client-secret>"},
		{catalog.Config{Name: "foo", Type: "glue"}, "connections.foo.props.region: is required"},
		{catalog.Config{Name: "foo", Type: "glue", Props: map[string]string{"region": "us-east-1", "timeout": "soon"}},
			`connections.foo.props.timeout: invalid duration "soon"`},
		{catalog.Config{Name: "foo", Type: "glue", Props: map[string]string{"region": "us-east-1"}, Secrets: map[string]string{"access-key-id": "AKIA"}},
			"connections.foo.secrets.access-key-id: access-key-id and secret-access-key must be given together"},
		{catalog.Config{Name: "foo", Type: "glue", Props: map[string]string{"region": "us-east-1", "role-arn": "reader"}},
			`connections.foo.props.role-arn: invalid IAM role ARN "reader"`},
		{catalog.Config{Name: "foo", Type: "glue", Props: map[string]string{"region": "us-east-1", "external-id": "x"}},
			"connections.foo.props.external-id: needs role-arn"},
		{catalog.Config{Name: "foo", Type: "glue", Props: map[string]string{"region": "us-east-1", "data.via-role-arn": "arn:aws:iam::111122223333:role/a"}},
			"connections.foo.props.data.via-role-arn: needs data.role-arn"},
		{catalog.Config{Name: "foo", Type: "sql", Props: map[string]string{"uri": "x", "dialect": "oracle"}},
			`connections.foo.props.dialect: unsupported dialect "oracle"`},
		{catalog.Config{Name: "foo", Type: "hadoop"}, "connections.foo.props.warehouse: is required"},
	}
	for _, tc := range bad {
		err := tc.cfg.Validate()
		if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%v) = %v\nwant ErrInvalidConfig containing %q", tc.cfg, err, tc.want)
		}
		var fe *catalog.FieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "connections.") {
			t.Errorf("Validate(%v): no *FieldError with a field path in %v", tc.cfg, err)
		}
	}
}

func TestConfig_Redaction(t *testing.T) {
	cfg := catalog.Config{Name: "lake", Type: "s3tables", Props: map[string]string{"arn": lakeARN},
		Secrets: map[string]string{"access-key-id": "AKIASECRETVALUE1", "secret-access-key": "s3cr3t/VALUE", "token": "bearer-VALUE"}}
	var logBuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("conn", slog.Any("cfg", cfg))
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", cfg), "%+v": fmt.Sprintf("%+v", cfg), "%#v": fmt.Sprintf("%#v", cfg),
		"%s": fmt.Sprintf("%s", cfg), "Sprint": fmt.Sprint(cfg), "String": cfg.String(),
		"slog": logBuf.String(), "json": string(js), "pointer": fmt.Sprintf("%v", &cfg),
	}
	for how, out := range outputs {
		for _, secret := range cfg.Secrets {
			if strings.Contains(out, secret) {
				t.Errorf("%s output leaks a secret: %s", how, out)
			}
		}
		if !strings.Contains(out, "access-key-id") || !strings.Contains(out, lakeARN) {
			t.Errorf("%s output should still show secret keys and props: %s", how, out)
		}
	}
}

func TestOpen_InvalidConfigNoIO(t *testing.T) {
	_, err := catalog.Open(t.Context(), catalog.Config{Name: "foo", Type: "s3tables",
		Props: map[string]string{"arn": "arn:aws:s3tables:us-east-1:123:bucket/x"}}, nil)
	if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.foo.props.arn") {
		t.Fatalf("Open(bad ARN) = %v, want ErrInvalidConfig naming connections.foo.props.arn", err)
	}
}
