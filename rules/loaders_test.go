package rules_test

import (
	"testing"

	"github.com/rivumi/rivumi/rules"
)

func TestIsProjectCode(t *testing.T) {
	for path, want := range map[string]bool{
		"conftest.py": true, "tests/conftest.py": true, "/work/p/.mvn/jvm.config": true, ".cargo/config.toml": true,
		"rust-toolchain.toml": true, "RUST-TOOLCHAIN": true, "jvm.config": false, "test_conftest.py": false,
		"src/main.rs": false, "cargo/config.toml": false, "Makefile": true, "sub/package.json": true,
		".MVN/jvm.config/": true, "x.mvn/jvm.config": false, "mvn/jvm.config": false, "/.mvn/jvm.config": true, "": false, "/": false,
	} {
		if got := rules.IsProjectCode(path); got != want {
			t.Errorf("IsProjectCode(%q) = %v, want %v", path, got, want)
		}
	}
}
