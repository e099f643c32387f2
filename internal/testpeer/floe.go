package testpeer

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BuildFloe builds the floe binary of this repository, with buildFlags
// (-ldflags ...) if any, and returns the path of a copy in t.TempDir(). It
// links through `go run`, whose executables the Go build cache keeps (Go
// 1.24 and later; one per set of flags), so only the first call after a
// change to floe's code links; every later call, in this test process or
// another, copies the cached binary (well under a second, where a link
// takes 5-10 s on a busy 2-core machine). The -exec program is cp, given
// the executable and the destination.
func BuildFloe(t testing.TB, buildFlags ...string) string {
	t.Helper()
	return buildPackage(t, "./cmd/floe", "floe", buildFlags)
}

// buildPackage builds the main package pkg (a path relative to the module
// root) with `go run -exec cp` into t.TempDir() under name.
func buildPackage(t testing.TB, pkg, name string, buildFlags []string) string {
	t.Helper()
	cp, err := exec.LookPath("cp")
	if err != nil {
		t.Fatalf("testpeer: build %s needs cp: %v", pkg, err)
	}
	bin := filepath.Join(t.TempDir(), name)
	args := append(append([]string{"run"}, buildFlags...), "-exec", cp, pkg, bin)
	cmd := exec.Command("go", args...)
	cmd.Dir = RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testpeer: build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// BuildFloeAt builds the floe binary of an earlier commit of this
// repository (ref: a release tag or a commit) and returns its path and the
// commit's full hash. The commit's tree is exported with git archive into
// a temporary directory and built there with -trimpath; the binary is kept
// under the user's cache directory by commit (a commit never changes), so
// later runs neither compile nor link it again. No git, or a clone without
// the commit (a shallow clone: git fetch --unshallow --tags), fails the
// test: it is never skipped.
func BuildFloeAt(t testing.TB, ref string) (bin, commit string) {
	t.Helper()
	root := RepoRoot(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("testpeer: building floe at %s needs git: %v", ref, err)
	}
	out, err := exec.Command(git, "-C", root, "rev-parse", "--verify", "--quiet", ref+"^{commit}").Output()
	if err != nil {
		t.Fatalf("testpeer: this clone has no commit %s (%v): a shallow clone needs `git fetch --unshallow --tags`", ref, err)
	}
	commit = strings.TrimSpace(string(out))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir()
	}
	bin = filepath.Join(cache, "floe-test", "releases", commit, "floe")
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, commit
	}
	built := buildCommit(t, git, root, commit)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatalf("testpeer: cache floe %s: %v", commit, err)
	}
	tmp := bin + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := copyFile(built, tmp); err != nil {
		t.Fatalf("testpeer: cache floe %s: %v", commit, err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatalf("testpeer: cache floe %s: %v", commit, err)
	}
	return bin, commit
}

// buildCommit exports commit's tree and builds its cmd/floe.
func buildCommit(t testing.TB, git, root, commit string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "src.tar")
	if out, err := exec.Command(git, "-C", root, "archive", "--format=tar", "-o", tarball, commit).CombinedOutput(); err != nil {
		t.Fatalf("testpeer: git archive %s: %v\n%s", commit, err, out)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
		t.Fatalf("testpeer: unpack floe %s: %v\n%s", commit, err, out)
	}
	bin := filepath.Join(dir, "floe")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.revision="+commit, "-o", bin, "./cmd/floe")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testpeer: build floe %s: %v\n%s", commit, err, out)
	}
	return bin
}

// copyFile copies an executable.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// GitShow returns the content of path at commit in this repository; no
// git or no such file fails the test.
func GitShow(t testing.TB, commit, path string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", RepoRoot(t), "show", commit+":"+path).Output()
	if err != nil {
		t.Fatalf("testpeer: git show %s:%s: %v", commit, path, err)
	}
	return string(out)
}
