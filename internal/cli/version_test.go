package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestReadVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev, when = "0123456789abcdef0123456789abcdef01234567", "2026-05-01T10:00:00Z"
	tests := []struct {
		name string
		ld   Stamp
		bi   *debug.BuildInfo
		want VersionInfo
	}{
		{"release build", Stamp{"1.2.3", rev, when},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			VersionInfo{Version: "v1.2.3", Commit: rev, Date: when, Source: "ldflags"}},
		{"stamp with v kept", Stamp{"v1.2.3-rc.1", "", ""},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", rev, "vcs.time", when, "vcs.modified", "true")},
			VersionInfo{Version: "v1.2.3-rc.1", Commit: rev, Date: when, Modified: true, Source: "ldflags"}},
		{"go build in a checkout", Stamp{},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260501100000-0123456789ab+dirty"}, Settings: vcs("vcs.revision", rev, "vcs.time", when, "vcs.modified", "true")},
			VersionInfo{Version: "v0.0.0-20260501100000-0123456789ab+dirty", Commit: rev, Date: when, Modified: true, Source: "vcs"}},
		{"go build without a version", Stamp{},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", rev, "vcs.modified", "false")},
			VersionInfo{Version: "(devel)", Commit: rev, Source: "vcs"}},
		{"go install module@version", Stamp{},
			&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			VersionInfo{Version: "v1.4.0", Source: "module"}},
		{"nothing known", Stamp{}, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			VersionInfo{Version: "(devel)", Source: "none"}},
		{"no build info", Stamp{}, nil, VersionInfo{Version: "(devel)", Source: "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReadVersion(tt.ld, tt.bi)
			tt.want.Go, tt.want.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
