package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aws-policy and aws-template generate offline from the config file's
// connections, and name what is missing.
func TestAWSCommands_FromConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "floe.yaml")
	yaml := `connections:
  lake:
    type: glue
    props:
      region: eu-west-1
      catalog-id: "111122223333"
      role-arn: arn:aws:iam::111122223333:role/floe-lake-reader
      external-id: ext-9
    secrets:
      secret-access-key: never-printed-secret
`
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := dispatch(t.Context(), []string{"aws-policy", "-config", cfgPath, "-connection", "lake", "-data", "s3://lake/wh",
		"-trusted-principal", "999988887777", "-lake-formation"}, &out, &errOut)
	if err != nil || !strings.Contains(out.String(), "glue:GetTable") || !strings.Contains(out.String(), "lakeformation:GetDataAccess") ||
		!strings.Contains(out.String(), `"sts:ExternalId"`) || strings.Contains(out.String(), "never-printed-secret") {
		t.Fatalf("aws-policy: %v\n%s%s", err, out.String(), errOut.String())
	}
	tpl := filepath.Join(dir, "t.yaml")
	out.Reset()
	if err := dispatch(t.Context(), []string{"aws-template", "-config", cfgPath, "-connection", "lake", "-data", "s3://lake/wh", "-o", tpl}, &out, &errOut); err != nil {
		t.Fatalf("aws-template: %v\n%s", err, errOut.String())
	}
	if b, err := os.ReadFile(tpl); err != nil || !strings.Contains(string(b), "AWS::IAM::Role") || !strings.Contains(string(b), "Default: ext-9") {
		t.Fatalf("template %s: %v\n%s", tpl, err, b)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"aws-policy", "-config", cfgPath}, "-connection is required"},
		{[]string{"aws-policy", "-config", cfgPath, "-connection", "nope"}, "connection nope is not in the config file"},
		{[]string{"aws-policy", "-config", cfgPath, "-connection", "lake"}, "options.data"},
		{[]string{"aws-template", "-config", cfgPath, "-connection", "lake", "-data", "s3://x", "-role", "middle"}, "no via-role-arn"},
		{[]string{"aws-policy", "-server", "http://127.0.0.1:1", "-connection", "lake"}, "127.0.0.1:1"},
	} {
		err := dispatch(t.Context(), tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("floe %s = %v, want an error naming %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// The README walks through the flow the commands serve.
func TestAWSCommands_README(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Connect to AWS", "/cloudformation?", "floe aws-policy", "floe aws-template", "aws cloudformation deploy", "/validate"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
