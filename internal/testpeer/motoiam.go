package testpeer

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// motoIAMScript does IAM and CloudFormation chores in moto with boto3.
//
//go:embed motoiam.py
var motoIAMScript []byte

// motoIAM runs one motoiam.py command and decodes its JSON output.
func motoIAM(t testing.TB, endpoint string, out any, args ...string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "motoiam.py")
	if err := os.WriteFile(script, motoIAMScript, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(VenvBin(t, "python"), append([]string{script, endpoint}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("testpeer: motoiam.py %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("testpeer: motoiam.py %s printed %q: %v", args[0], b, err)
	}
}

// MotoStack is a deployed CloudFormation stack.
type MotoStack struct {
	Status  string            `json:"status"`
	Outputs map[string]string `json:"outputs"`
}

// DeployMotoStack creates a CloudFormation stack in moto from a template,
// with KEY=VALUE parameters. It must run while moto's IAM enforcement is
// off (it uses moto's default keys). The inline policies of the stack's
// roles are put again as JSON: see motoiam.py for the moto bug.
func DeployMotoStack(t testing.TB, endpoint, stack string, template []byte, params ...string) MotoStack {
	t.Helper()
	path := filepath.Join(t.TempDir(), stack+".yaml")
	if err := os.WriteFile(path, template, 0o644); err != nil {
		t.Fatal(err)
	}
	var st MotoStack
	motoIAM(t, endpoint, &st, append([]string{"deploy", stack, path}, params...)...)
	return st
}

// MotoUser is an IAM user with an access key.
type MotoUser struct {
	ARN    string `json:"arn"`
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// CreateMotoUser creates an IAM user whose only permission is
// sts:AssumeRole (floe's own principal in the tests), with a key.
func CreateMotoUser(t testing.TB, endpoint, name string) MotoUser {
	t.Helper()
	var u MotoUser
	motoIAM(t, endpoint, &u, "user", name)
	return u
}

// PutMotoRolePolicy replaces a role's inline policy floe-access. It lifts
// moto's IAM enforcement for the call and turns it on again when on.
func PutMotoRolePolicy(t testing.TB, endpoint, role string, policy any, enforced bool) {
	t.Helper()
	doc, err := json.Marshal(policy)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if enforced {
		setMotoAuth(t, endpoint, "inf")
		defer setMotoAuth(t, endpoint, "0")
	}
	motoIAM(t, endpoint, &struct{}{}, "put-role-policy", role, path)
}

// MotoRolePolicy returns a role's inline policy floe-access, as JSON.
func MotoRolePolicy(t testing.TB, endpoint, role string) json.RawMessage {
	t.Helper()
	var doc json.RawMessage
	motoIAM(t, endpoint, &doc, "role-policy", role)
	return doc
}

// setMotoAuth sets the number of unauthenticated requests moto allows
// ("0": enforce from now on, "inf": never).
func setMotoAuth(t testing.TB, endpoint, count string) {
	t.Helper()
	resp, err := http.Post(endpoint+"/moto-api/reset-auth", "text/plain", strings.NewReader(count))
	if err != nil {
		t.Fatalf("testpeer: moto reset-auth %s: %v", count, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("testpeer: moto reset-auth %s: HTTP %s", count, resp.Status)
	}
}
