package plan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// keyIndexMagic opens a key index file (P12). Layout, little-endian:
//
//	"FLKI" | version u8 (1) | uvarint len(name) | name |
//	uvarint count | count × u32 fingerprint, ascending | CRC-32 (IEEE) u32
//	of every byte before it
//
// name is keyIndexName (the data file's path, its compared field ids and
// their classes), so a file found under another name's hash, a truncated
// file or a file of another version reads as missing and is rebuilt.
const (
	keyIndexMagic   = "FLKI"
	keyIndexVersion = 1
)

// errKeyIndexMissing: no usable key index file (none, another name, or
// damaged); the index is then built from the data file.
var errKeyIndexMissing = errors.New("key index file missing or unusable")

// encodeKeyIndex is the file form of k under name.
func encodeKeyIndex(name string, k *fileKeys) []byte {
	buf := make([]byte, 0, len(keyIndexMagic)+1+2*binary.MaxVarintLen64+len(name)+4*len(k.fps)+4)
	buf = append(buf, keyIndexMagic...)
	buf = append(buf, keyIndexVersion)
	buf = binary.AppendUvarint(buf, uint64(len(name)))
	buf = append(buf, name...)
	buf = binary.AppendUvarint(buf, uint64(len(k.fps)))
	for _, fp := range k.fps {
		buf = binary.LittleEndian.AppendUint32(buf, fp)
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
}

// decodeKeyIndex reads a key index file's bytes, checking that it is
// whole and holds the index called name.
func decodeKeyIndex(b []byte, name string) (*fileKeys, error) {
	if len(b) < len(keyIndexMagic)+1+4 || string(b[:4]) != keyIndexMagic || b[4] != keyIndexVersion {
		return nil, errKeyIndexMissing
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errKeyIndexMissing
	}
	r := bytes.NewReader(body[5:])
	n, err := binary.ReadUvarint(r)
	if err != nil || n != uint64(len(name)) {
		return nil, errKeyIndexMissing
	}
	got := make([]byte, n)
	if _, err := r.Read(got); err != nil || string(got) != name {
		return nil, errKeyIndexMissing
	}
	count, err := binary.ReadUvarint(r)
	if err != nil || count != uint64(r.Len())/4 || r.Len()%4 != 0 {
		return nil, errKeyIndexMissing
	}
	rest := body[len(body)-r.Len():]
	k := &fileKeys{fps: make([]uint32, count)}
	for i := range k.fps {
		k.fps[i] = binary.LittleEndian.Uint32(rest[4*i:])
	}
	return k, nil
}

// readKeyIndex reads the key index file at path ("" : none).
func readKeyIndex(path, name string) (*fileKeys, error) {
	if path == "" {
		return nil, errKeyIndexMissing
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errKeyIndexMissing
	}
	return decodeKeyIndex(b, name)
}

// writeKeyIndex writes k to path through a temporary file renamed into
// place, so a reader never sees part of it.
func writeKeyIndex(path, name string, k *fileKeys) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create key index directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write key index: %w", err)
	}
	if _, err := tmp.Write(encodeKeyIndex(name, k)); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write key index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write key index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write key index: %w", err)
	}
	return nil
}

// SweepKeyIndex removes from dir the temporary files of writers that were
// killed and the key index files last written before olderThan (those of
// data files that compactions and expiry removed go this way; a live
// file's index swept with them is rebuilt when next needed). It returns
// how many files it removed.
func SweepKeyIndex(dir string, olderThan time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweep key index directory: %w", err)
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".fki") && !strings.Contains(name, ".fki.tmp-") {
			continue
		}
		if !strings.Contains(name, ".tmp-") {
			info, err := e.Info()
			if err != nil || !info.ModTime().Before(olderThan) {
				continue
			}
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil {
			removed++
		}
	}
	return removed, nil
}
