package rules_test

import (
	"testing"

	"github.com/rivumi/rivumi/rules"
)

func TestIsProjectCode(t *testing.T) {
	for path, want := range map[string]bool{
		// What shims load (asdf, mise) is project code.
		".tool-versions": true, "sub/.tool-versions": true, "mise.local.toml": true, "/work/p/.config/mise/config.toml": true,
		".CONFIG/MISE/config.toml/": true, "x.config/mise/config.toml": true, "src/config.toml": false,
		"/.mise/config.toml": true, "mise/config.toml": true, "": false, "/": false,
		// What other loaders load is a workspace file: they ask when they run.
		"conftest.py": false, "tests/conftest.py": false, "/work/p/.mvn/jvm.config": false, ".cargo/config.toml": false,
		"rust-toolchain.toml": false, "Makefile": false, "sub/package.json": false, "src/main.rs": false,
	} {
		if got := rules.IsProjectCode(path); got != want {
			t.Errorf("IsProjectCode(%q) = %v, want %v", path, got, want)
		}
	}
}
