// Package buildinfo describes the floe binary that is running: its version,
// the commit it was built from, when it was built and with which Go. The
// release build sets main.version, main.revision and main.buildDate with
// -ldflags -X (see the Makefile); what the linker did not set is taken from the
// Go build information embedded in the binary (module version, vcs.revision,
// vcs.time), and otherwise reads "unknown".
//
// `floe version`, `floe --version`, GET /version and the image's OCI labels
// all show the same Info.
package buildinfo
