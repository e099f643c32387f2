package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Unknown is what a field reads when neither the linker nor the Go build
// information set it.
const Unknown = "unknown"

// Info is what the running binary says about itself.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"` // RFC 3339, UTC
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"` // GOOS/GOARCH
}

// Read combines the values set by the linker (empty when not set, "dev"
// for a plain go build's version) with the binary's Go build information.
func Read(version, commit, date string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return fromBuild(bi, version, commit, date)
}

// fromBuild fills Info from the linker's values first, then bi.
func fromBuild(bi *debug.BuildInfo, version, commit, date string) Info {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if version == "" || version == "dev" {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
	}
	platform := Unknown
	if settings["GOOS"] != "" {
		platform = settings["GOOS"] + "/" + settings["GOARCH"]
	}
	return Info{
		Version:   orUnknown(version),
		Commit:    orUnknown(firstSet(commit, settings["vcs.revision"])),
		Date:      orUnknown(firstSet(date, settings["vcs.time"])),
		GoVersion: orUnknown(bi.GoVersion),
		Platform:  platform,
	}
}

// String is the one line `floe version` prints.
func (i Info) String() string {
	return fmt.Sprintf("floe %s (commit %s, built %s, %s, %s)", i.Version, i.Commit, i.Date, i.GoVersion, i.Platform)
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}
