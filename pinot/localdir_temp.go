package pinot

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Temporary files. Every file LocalDir writes is first written beside its
// final path under a temporary name, then linked or renamed into place; a
// process killed in between leaves the temporary file behind. The name
// says who wrote it, so that a later process can tell a dead writer's
// leftover from a live writer's file in progress (replicas may share one
// root):
//
//	<final path>.tmp-<host>.<pid>.<start>.<random>
//
// host is the first 4 bytes of the SHA-256 of the host name (hex), pid the
// writer's process id and start its start time in clock ticks since boot
// (/proc/<pid>/stat field 22; "0" where unknown), so that a reused pid is
// not taken for the writer. Format: never change (SweepTemps parses it).
const tempMarker = ".tmp-"

// staleTempAge: a temporary file whose writer cannot be checked (another
// host, no /proc, a name of an older floe) is removed once it is this old;
// no write of LocalDir keeps one open nearly as long.
const staleTempAge = time.Hour

// tempOwner identifies the process writing temporary files.
type tempOwner struct {
	host  string
	pid   int
	start string
}

func (o tempOwner) String() string { return fmt.Sprintf("%s.%d.%s", o.host, o.pid, o.start) }

// thisProcess is the owner of the temporary files this process writes.
func thisProcess() tempOwner {
	return tempOwner{host: hostTag(), pid: os.Getpid(), start: processStart(os.Getpid())}
}

func hostTag() string {
	name, err := os.Hostname()
	if err != nil {
		name = "unknown"
	}
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

// processStart is the start time of process pid in clock ticks since boot,
// "" when the process does not exist, "0" when it cannot be told (no /proc).
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat("/proc/self/stat"); statErr == nil {
			return ""
		}
		return "0"
	}
	if err != nil {
		return "0"
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "0"
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); start time is field 22.
	if len(fields) < 20 {
		return "0"
	}
	return fields[19]
}

// tempName returns a name beside path that no other writer uses.
func (d *LocalDir) tempName(path string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return path + tempMarker + d.owner.String() + "." + hex.EncodeToString(b[:])
}

// parseTempOwner reads the owner from a temporary file's name; ok is false
// for a name that does not carry one (written by an older floe).
func parseTempOwner(name string) (tempOwner, bool) {
	i := strings.LastIndex(name, tempMarker)
	if i < 0 {
		return tempOwner{}, false
	}
	parts := strings.Split(name[i+len(tempMarker):], ".")
	if len(parts) != 4 {
		return tempOwner{}, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return tempOwner{}, false
	}
	return tempOwner{host: parts[0], pid: pid, start: parts[2]}, true
}

// leftover reports whether a temporary file was left by a writer that is
// gone: one of this host whose process is not running (or whose pid now
// belongs to a later process), or, when that cannot be told, one older
// than staleTempAge.
func (d *LocalDir) leftover(name string, mod time.Time, now time.Time) bool {
	o, ok := parseTempOwner(name)
	if ok && o.host == d.owner.host && o.start != "0" && d.owner.start != "0" {
		running := processStart(o.pid)
		return running != o.start
	}
	return now.Sub(mod) > staleTempAge
}

// SweepTemps removes the temporary files that writers killed mid-write
// left in every table directory and its state directory (a segment
// tarball being copied in, a state version being published, a retired
// tarball set aside). Files of live writers stay. It returns how many
// files it removed; floe calls it when it opens the sink.
func (d *LocalDir) SweepTemps(ctx context.Context) (int, error) {
	tables, err := os.ReadDir(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweep temporary files of %s: %w", d.root, err)
	}
	now := time.Now()
	removed := 0
	for _, t := range tables {
		if !t.IsDir() {
			continue
		}
		for _, dir := range []string{d.tableDir(t.Name()), d.stateDir(t.Name())} {
			if err := ctx.Err(); err != nil {
				return removed, err
			}
			n, err := d.sweepDir(dir, now)
			removed += n
			if err != nil {
				return removed, err
			}
		}
	}
	return removed, nil
}

func (d *LocalDir) sweepDir(dir string, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweep temporary files of %s: %w", dir, err)
	}
	removed := 0
	for _, e := range entries {
		if e.IsDir() || !strings.Contains(e.Name(), tempMarker) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if !d.leftover(e.Name(), info.ModTime(), now) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
			removed++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove temporary file %s: %w", filepath.Join(dir, e.Name()), err)
		}
	}
	return removed, nil
}
