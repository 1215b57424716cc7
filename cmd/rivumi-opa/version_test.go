package main

import (
	"bytes"
	"runtime/debug"
	"testing"

	"github.com/open-policy-agent/opa/cmd"
)

// TestVersion: `rivumi-opa version` names rivumi's version first, then
// OPA's lines follow (OPA prints them to os.Stdout itself).
func TestVersion(t *testing.T) {
	root := cmd.Command(nil, "rivumi-opa")
	if err := addVersion(root, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "rivumi-opa v1.2.3\n" {
		t.Errorf("version printed %q", got)
	}
}

func TestRivumiVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	info := func(v string, rev string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
			if rev != "" {
				bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}
			}
			return bi, true
		}
	}
	for _, tc := range []struct {
		stamped string
		read    func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"v1.2.3", info("(devel)", rev), "v1.2.3 (0123456789ab)"},
		{"v1.2.3-4-g0123456", info("(devel)", rev), "v1.2.3-4-g0123456"},
		{"", info("v1.2.3", ""), "v1.2.3"},
		{"", info("", rev), "(devel) (0123456789ab)"},
		{"", func() (*debug.BuildInfo, bool) { return nil, false }, "(unknown)"},
		{"v1.2.3", func() (*debug.BuildInfo, bool) { return nil, false }, "v1.2.3"},
	} {
		if got := rivumiVersion(tc.stamped, tc.read); got != tc.want {
			t.Errorf("rivumiVersion(%q) = %q, want %q", tc.stamped, got, tc.want)
		}
	}
}
