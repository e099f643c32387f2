// Package image builds floe's container image without a container engine:
// an OCI image made of two layers on nothing (no base image to pull), the
// static floe binary on top of a minimal root filesystem.
//
// What the image holds and how it runs (the Dockerfile at the repository's
// root describes the same image; a test holds the two together):
//
//	layer 1, base:   /etc/passwd, /etc/group (root and nonroot, uid/gid 65532;
//	                 from deploy/image), /etc/ssl/certs/ca-certificates.crt,
//	                 /usr/share/zoneinfo (both from the build machine),
//	                 /home/nonroot, /tmp (1777) and /var/lib/floe (owned by
//	                 65532, the only place floe writes)
//	layer 2, floe:   /usr/local/bin/floe
//	config:          user 65532:65532, working directory and volume
//	                 /var/lib/floe (floe's relative floe-data/ directory —
//	                 embedded store, segment sink, work directories — lands
//	                 there, so the root filesystem can be read-only),
//	                 entrypoint /usr/local/bin/floe, command serve, port
//	                 8080, FLOE_SERVER_ADDR=0.0.0.0:8080, FLOE_LOG_FORMAT=json,
//	                 SSL_CERT_FILE, ZONEINFO, and the OCI labels
//	                 org.opencontainers.image.{title,version,revision,source,
//
// Every file's time is the image's creation time and entries are sorted,
// so the same inputs give the same layers.
package image
