package testpeer

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MotoAccount is the account id moto serves by default.
const MotoAccount = "123456789012"

// VenvBin returns the path of a program in the repo venv (.venv/bin),
// failing the test with the setup command when it is missing.
func VenvBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), ".venv", "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testpeer: %s not found: run scripts/setup-python.sh (creates .venv with moto and pyiceberg)", p)
	}
	return p
}

// StartMoto starts moto in server mode on a free loopback port and returns
// its endpoint (http://127.0.0.1:PORT). It serves S3 (path-style), S3
// Tables, Glue, STS and IAM. Authentication is off until EnableMotoAuth.
func StartMoto(t testing.TB) string {
	t.Helper()
	bin := VenvBin(t, "moto_server")
	port := FreePort(t)
	Start(t, ProcessSpec{Name: "moto", Cmd: bin, Args: []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port)}})
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	WaitHTTP(t, endpoint+"/moto-api/", 60*time.Second, func(r *http.Response) bool { return r.StatusCode < 500 })
	return endpoint
}

// EnableMotoAuth makes moto authenticate and authorize every following
// request against its IAM users and policies (POST /moto-api/reset-auth).
func EnableMotoAuth(t testing.TB, endpoint string) {
	t.Helper()
	resp, err := http.Post(endpoint+"/moto-api/reset-auth", "text/plain", strings.NewReader("0"))
	if err != nil {
		t.Fatalf("testpeer: enable moto auth: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("testpeer: enable moto auth: HTTP %s", resp.Status)
	}
}
