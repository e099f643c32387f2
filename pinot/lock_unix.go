//go:build unix

package pinot

import (
	"fmt"
	"os"
	"syscall"
)

// fileLock is an exclusive flock(2) on a file: it excludes other
// processes and other open descriptions in this process alike.
type fileLock struct{ f *os.File }

func lockFile(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &fileLock{f: f}, nil
}

// unlock releases the lock (closing the descriptor releases it).
func (l *fileLock) unlock() { _ = l.f.Close() }
