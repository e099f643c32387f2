package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	iceio "github.com/apache/iceberg-go/io"
)

// The guarded FileIO opens what it checked: file URLs of this host and
// plain paths under the roots; never another host, a path outside, or a
// removal.
func TestLocalGuard_Paths(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, dir := range []string{root, outside} {
		if err := os.WriteFile(filepath.Join(dir, "f.parquet"), []byte("PAR1"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fs := (&localGuard{roots: resolveRoots([]string{root})}).guard(iceio.LocalFS{})
	rf, ok := fs.(iceio.ReadFileIO)
	if !ok {
		t.Fatal("the guarded FileIO does not read whole files")
	}
	for _, name := range []string{
		filepath.Join(root, "f.parquet"),
		"file://" + filepath.Join(root, "f.parquet"),
		"file://localhost" + filepath.Join(root, "f.parquet"),
		"file:" + filepath.Join(root, "f.parquet"),
		"file://" + filepath.Join(root, "sub", "..", "f.parquet"),
	} {
		if b, err := rf.ReadFile(name); err != nil || string(b) != "PAR1" {
			t.Errorf("ReadFile(%s) = %q, %v; want the file", name, b, err)
		}
		f, err := fs.Open(name)
		if err != nil {
			t.Errorf("Open(%s): %v", name, err)
			continue
		}
		f.Close()
	}
	for name, want := range map[string]string{
		filepath.Join(outside, "f.parquet"):                                        "outside the allowed directories",
		"file://" + filepath.Join(outside, "f.parquet"):                            "outside the allowed directories",
		"file://" + filepath.Join(root, "..", filepath.Base(outside), "f.parquet"): "outside the allowed directories",
		"file:///etc/passwd":                                                       "never reads",
		"file://db.example/" + filepath.Join(root, "f.parquet"):                    "names another host",
		"f.parquet":             "outside the allowed directories",
		"s3://bucket/f.parquet": "outside the allowed directories",
	} {
		_, oerr := fs.Open(name)
		_, rerr := rf.ReadFile(name)
		for _, err := range []error{oerr, rerr} {
			if !errors.Is(err, ErrAccessDenied) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "security.localRoots") {
				t.Errorf("%s: %v; want ErrAccessDenied saying %q and naming security.localRoots", name, err, want)
			}
		}
	}
	if err := fs.Remove(filepath.Join(root, "f.parquet")); !errors.Is(err, ErrAccessDenied) {
		t.Errorf("Remove: %v, want ErrAccessDenied", err)
	}
	if _, err := os.Stat(filepath.Join(root, "f.parquet")); err != nil {
		t.Errorf("the file is gone after a refused Remove: %v", err)
	}
}

// A catalog that answers a metadata location on floe's disk (Glue, S3
// Tables) has it read only under the roots; a connection without a
// policy is not guarded.
func TestLocalGuard_MetadataLocation(t *testing.T) {
	outside := t.TempDir()
	loc := "file://" + filepath.Join(outside, "v1.metadata.json")
	if err := os.WriteFile(filepath.Join(outside, "v1.metadata.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := dataAccess{local: &localGuard{roots: resolveRoots([]string{t.TempDir()})}}
	_, err := d.loadFromLocation(t.Context(), TableIdent{Namespace: []string{"db"}, Name: "t"}, loc)
	if !errors.Is(err, ErrAccessDenied) || !strings.Contains(err.Error(), "security.localRoots") {
		t.Fatalf("metadata outside the roots: %v, want ErrAccessDenied naming security.localRoots", err)
	}
	_, err = dataAccess{}.loadFromLocation(t.Context(), TableIdent{Namespace: []string{"db"}, Name: "t"}, loc)
	if err == nil || errors.Is(err, ErrAccessDenied) {
		t.Fatalf("without a policy the file is read (and is no table): %v", err)
	}
}
