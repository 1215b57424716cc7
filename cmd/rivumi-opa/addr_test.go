package main

import (
	"testing"

	"github.com/open-policy-agent/opa/cmd"
)

// TestDefaultAddr: `rivumi-opa run` defaults to DefaultAddr, not OPA's
// 8181, and an explicit --addr still replaces it (it is not appended).
func TestDefaultAddr(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "[" + DefaultAddr + "]"},
		{[]string{"--addr", "127.0.0.1:9999"}, "[127.0.0.1:9999]"},
	} {
		root := cmd.Command(nil, "rivumi-opa")
		if err := setDefaultAddr(root, DefaultAddr); err != nil {
			t.Fatal(err)
		}
		run, _, err := root.Find([]string{"run"})
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		f := run.Flags().Lookup("addr")
		if got := f.Value.String(); got != tc.want {
			t.Errorf("%q: --addr %s, want %s", tc.args, got, tc.want)
		}
		if changed := run.Flags().Changed("addr"); changed != (tc.args != nil) {
			t.Errorf("%q: Changed(addr) = %v", tc.args, changed)
		}
	}
	if DefaultAddr == "localhost:8181" {
		t.Error("the default is OPA's port")
	}
}
