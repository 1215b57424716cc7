package cli

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	info := func(main string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: main}, Settings: settings}, true
		}
	}
	vcs := debug.BuildSetting{Key: "vcs.revision", Value: rev}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tc := range []struct {
		name    string
		stamped string
		read    func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"work tree", "", info("(devel)", vcs), "(devel) (0123456789ab)"},
		{"work tree dirty", "", info("", vcs, dirty), "(devel) (0123456789ab+dirty)"},
		{"go install at a tag", "", info("v1.2.3"), "v1.2.3"},
		{"pseudo-version names the revision", "", info("v1.2.4-0.20261205103000-0123456789ab", vcs), "v1.2.4-0.20261205103000-0123456789ab"},
		{"stamped tag wins", "v1.2.3", info("(devel)", vcs), "v1.2.3 (0123456789ab)"},
		{"stamped describe names the revision", "v1.2.3-4-g0123456", info("(devel)", vcs), "v1.2.3-4-g0123456"},
		{"stamped describe dirty", "v1.2.3-4-g0123456-dirty", info("(devel)", vcs, dirty), "v1.2.3-4-g0123456-dirty"},
		{"stamped without build info", "v1.2.3", none, "v1.2.3"},
		{"nothing known", "", none, "(unknown)"},
		{"short revision", "", info("(devel)", debug.BuildSetting{Key: "vcs.revision", Value: "abc"}), "(devel) (abc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatVersion(tc.stamped, tc.read); got != tc.want {
				t.Errorf("formatVersion(%q) = %q, want %q", tc.stamped, got, tc.want)
			}
		})
	}
}
