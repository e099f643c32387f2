package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/config"
)

// The commands that ask a running floe (-server) send the token from
// FLOE_API_TOKEN, so they keep working when the API asks for one.
func TestCLI_SendsAPIToken(t *testing.T) {
	e := startServed(t, nil)
	conn := `{"name":"files","type":"hadoop","props":{"warehouse":"s3://lake-files/wh","region":"us-east-1"}}`
	if code, _, body := e.do("POST", "/api/v1/connections", nil, conn); code != 201 {
		t.Fatalf("create connection: %d %s", code, body)
	}
	args := []string{"aws-policy", "-server", "http://" + e.addr, "-connection", "files",
		"-trusted-principal", "arn:aws:iam::111122223333:user/floe"}
	var out, errOut bytes.Buffer
	t.Setenv(config.APITokenEnv, "")
	if err := dispatch(t.Context(), args, &out, &errOut); err == nil || !strings.Contains(err.Error(), "authentication required") {
		t.Fatalf("without a token: %v", err)
	}
	t.Setenv(config.APITokenEnv, testReadToken)
	out.Reset()
	if err := dispatch(t.Context(), args, &out, &errOut); err != nil || !strings.Contains(out.String(), "s3:GetObject") {
		t.Fatalf("with a read token: %v\n%s", err, out.String())
	}
	if _, err := config.Load("", []string{config.APITokenEnv + "=x"}); err != nil {
		t.Fatalf("%s must not be taken for a setting: %v", config.APITokenEnv, err)
	}
}
