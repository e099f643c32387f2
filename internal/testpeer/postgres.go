package testpeer

import (
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Postgres is a throw-away PostgreSQL cluster started by StartPostgres.
type Postgres struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string
}

// URL is the postgres:// URL; withPassword=false leaves the password out.
func (p Postgres) URL(withPassword bool) string {
	u := url.URL{Scheme: "postgres", Host: p.Host + ":" + strconv.Itoa(p.Port), Path: "/" + p.Database,
		RawQuery: "sslmode=disable", User: url.User(p.User)}
	if withPassword {
		u.User = url.UserPassword(p.User, p.Password)
	}
	return u.String()
}

// StartPostgres initialises a cluster in a temporary directory (password
// authentication, superuser "floe") and starts it on a free loopback port.
// As root it runs the server as the "postgres" OS user, which PostgreSQL
// requires.
func StartPostgres(t testing.TB) Postgres {
	t.Helper()
	bin := postgresBin(t)
	dir, err := os.MkdirTemp("", "floe-pg-")
	if err != nil {
		t.Fatalf("testpeer: postgres temp dir: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := Postgres{Host: "127.0.0.1", Port: FreePort(t), User: "floe", Password: "floe-pg-" + strconv.Itoa(os.Getpid()), Database: "postgres"}
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(p.Password+"\n"), 0o600); err != nil {
		t.Fatalf("testpeer: write postgres password file: %v", err)
	}
	asUser := ownForPostgres(t, dir)
	data := filepath.Join(dir, "data")
	if out, err := runAs(asUser, filepath.Join(bin, "initdb"), "-D", data, "-U", p.User, "--pwfile="+pwFile,
		"-A", "scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatalf("testpeer: initdb: %v\n%s", err, out)
	}
	args := append(asUser[1:], filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(p.Port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off")
	Start(t, ProcessSpec{Name: "postgres", Cmd: asUser[0], Args: args})
	WaitTCP(t, p.Host+":"+strconv.Itoa(p.Port), 60*time.Second)
	return p
}

// postgresBin finds the newest PostgreSQL server bin directory.
func postgresBin(t testing.TB) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	t.Fatalf("testpeer: PostgreSQL server not found under /usr/lib/postgresql: run scripts/setup-postgres.sh")
	return ""
}

// ownForPostgres hands dir to the postgres OS user when running as root
// and returns the command prefix that runs a program as that user
// (["runuser", "-u", "postgres", "--"]), or ["env"] otherwise.
func ownForPostgres(t testing.TB, dir string) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		return []string{"env"}
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("testpeer: running as root needs the postgres OS user (scripts/setup-postgres.sh): %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err = filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(path, uid, gid)
	})
	if err != nil {
		t.Fatalf("testpeer: chown %s to postgres: %v", dir, err)
	}
	return []string{Require(t, "runuser", "apt-get install -y util-linux"), "-u", "postgres", "--"}
}

func runAs(prefix []string, args ...string) ([]byte, error) {
	all := append(append([]string(nil), prefix...), args...)
	return exec.Command(all[0], all[1:]...).CombinedOutput()
}
