package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// VersionInfo is what `agent-hooks version` reports.
type VersionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`   // full revision; "" when unknown
	Date     string `json:"date"`     // time of the commit, RFC 3339; "" when unknown
	Modified bool   `json:"modified"` // built from a tree with uncommitted changes
	// Source says where the version came from: "ldflags" (a release build), "vcs" (go build in a
	// git checkout), "module" (go install module@version) or "none".
	Source   string `json:"source"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Stamp is what the release build's linker set in the program's main package:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<full sha> -X main.date=<RFC 3339 commit time>"
//
// A binary built without them (go install, go build) reports what the Go toolchain recorded.
type Stamp struct{ Version, Commit, Date string }

// ReadVersion is the version of this binary: the linker's stamp, else the build info's VCS stamp
// (vcs.revision, vcs.time, vcs.modified) and main module version. bi may be nil (no build info).
func ReadVersion(ld Stamp, bi *debug.BuildInfo) VersionInfo {
	v := VersionInfo{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Source: "none", Version: "(devel)"}
	vcs := map[string]string{}
	mainVersion := ""
	if bi != nil {
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
		if bi.Main.Version != "(devel)" {
			mainVersion = bi.Main.Version
		}
		if bi.GoVersion != "" {
			v.Go = bi.GoVersion
		}
	}
	switch {
	case ld.Version != "":
		v.Version, v.Source = ld.Version, "ldflags"
		if c := ld.Version[0]; c >= '0' && c <= '9' {
			v.Version = "v" + ld.Version // goreleaser's .Version has no "v"; go install's has
		}
	case vcs["vcs.revision"] != "":
		v.Source = "vcs"
		if mainVersion != "" {
			v.Version = mainVersion
		}
	case mainVersion != "":
		v.Version, v.Source = mainVersion, "module"
	}
	v.Commit, v.Date = ld.Commit, ld.Date
	if v.Commit == "" {
		v.Commit = vcs["vcs.revision"]
		v.Modified = vcs["vcs.modified"] == "true"
	}
	if v.Date == "" {
		v.Date = vcs["vcs.time"]
	}
	return v
}

// CurrentVersion is ReadVersion for this process.
func CurrentVersion(stamp Stamp) VersionInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return ReadVersion(stamp, bi)
}

// String is the text of `agent-hooks version` and `--version`; its first line is
// "agent-hooks <version>".
func (v VersionInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent-hooks %s\n", v.Version)
	c := v.Commit
	switch {
	case c == "":
		c = "unknown"
	case v.Modified:
		c += " (modified)"
	}
	d := v.Date
	if d == "" {
		d = "unknown"
	}
	fmt.Fprintf(&b, "commit:   %s\ndate:     %s\ngo:       %s %s\n", c, d, v.Go, v.Platform)
	return b.String()
}
