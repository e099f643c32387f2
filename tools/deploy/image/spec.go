package image

import (
	"errors"
	"time"
)

// The image's fixed shape. The Dockerfile repeats these; dockerfile_test.go
// checks that it does.
const (
	User       = "65532:65532"
	UID        = 65532
	DataDir    = "/var/lib/floe"
	BinaryPath = "/usr/local/bin/floe"
	CACertPath = "/etc/ssl/certs/ca-certificates.crt"
	ZoneInfo   = "/usr/share/zoneinfo"
	Port       = "8080/tcp"
)

// Entrypoint and Cmd: `floe serve`.
var (
	Entrypoint = []string{BinaryPath}
	Cmd        = []string{"serve"}
)

// Env is the image's environment, in order.
func Env() []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"FLOE_SERVER_ADDR=0.0.0.0:8080",
		"FLOE_LOG_FORMAT=json",
		"SSL_CERT_FILE=" + CACertPath,
		"ZONEINFO=" + ZoneInfo,
	}
}

// Spec is what one build takes.
type Spec struct {
	Binary   string // the static floe binary (make build)
	Passwd   string // deploy/image/passwd
	Group    string // deploy/image/group
	CACerts  string // a CA bundle, e.g. /etc/ssl/certs/ca-certificates.crt
	ZoneInfo string // a zoneinfo tree, e.g. /usr/share/zoneinfo

	Version  string // org.opencontainers.image.version
	Revision string // org.opencontainers.image.revision (git commit)
	Source   string // org.opencontainers.image.source (repository URL)
	Created  time.Time
	Arch     string // GOARCH of the binary (default amd64)
}

// validate names the first missing field.
func (s Spec) validate() error {
	for _, f := range []struct{ name, v string }{{"binary", s.Binary}, {"passwd", s.Passwd}, {"group", s.Group},
		{"ca-certs", s.CACerts}, {"zoneinfo", s.ZoneInfo}, {"version", s.Version}} {
		if f.v == "" {
			return errors.New("image spec: " + f.name + " is not set")
		}
	}
	return nil
}

// Labels are the image's OCI labels.
func (s Spec) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":    "floe",
		"org.opencontainers.image.version":  s.Version,
		"org.opencontainers.image.revision": s.Revision,
		"org.opencontainers.image.source":   s.Source,
		"org.opencontainers.image.created":  s.Created.UTC().Format(time.RFC3339),
	}
}
