package segments

import (
	"encoding/binary"
	"os"
	"time"
)

// creationMeta is the 24-byte creation.meta: BE long crc, BE long creation
// time (epoch ms), BE long dataCrc (format: never change).
func creationMeta(crc, dataCrc uint32, created time.Time) []byte {
	b := make([]byte, 0, 24)
	b = binary.BigEndian.AppendUint64(b, uint64(crc))
	b = binary.BigEndian.AppendUint64(b, uint64(created.UnixMilli()))
	b = binary.BigEndian.AppendUint64(b, uint64(dataCrc))
	return b
}

func writeCreationMeta(path string, crc, dataCrc uint32, created time.Time) error {
	return os.WriteFile(path, creationMeta(crc, dataCrc, created), 0o644)
}
