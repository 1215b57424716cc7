package rules

import (
	"sort"
	"strings"
)

// projectLoaders lists the programs that load and run project files even
// when asked only for --version or --help, with those files (paths relative
// to the project root). policies/tables/tables.json's project_loaders must
// equal it (TestProjectLoadersMatchTables).
var projectLoaders = map[string][]string{
	"pytest": {"conftest.py", "pytest.ini"}, "py.test": {"conftest.py", "pytest.ini"},
	"mvn":   {".mvn/jvm.config", ".mvn/maven.config", ".mvn/extensions.xml"},
	"mvnw":  {".mvn/wrapper/maven-wrapper.properties"},
	"cargo": {"rust-toolchain.toml", "rust-toolchain", ".cargo/config.toml", ".cargo/config"},
	"rustc": {"rust-toolchain.toml", "rust-toolchain"}, "rustup": {"rust-toolchain.toml", "rust-toolchain"},
	"rustdoc": {"rust-toolchain.toml", "rust-toolchain"}, "rustfmt": {"rust-toolchain.toml", "rust-toolchain"},
	"cargo-clippy": {"rust-toolchain.toml", "rust-toolchain"}, "clippy-driver": {"rust-toolchain.toml", "rust-toolchain"},
	"yarn": {".yarnrc.yml", ".yarnrc", "package.json"}, "pnpm": {"package.json"}, "corepack": {"package.json"},
	"gradlew": {"gradle/wrapper/gradle-wrapper.properties"}, "gradle": {"gradle.properties"},
	"bazel": {".bazelversion", ".bazeliskrc", ".bazelrc"}, "bazelisk": {".bazelversion", ".bazeliskrc", ".bazelrc"},
	"volta": {"package.json"}, "mise": {".mise.toml", "mise.toml", ".tool-versions"}, "asdf": {".tool-versions"},
	"sbt": {"build.sbt", "project/build.properties"}, "tox": {"tox.ini"},
}

// ProjectLoaders returns, for each program that loads and runs project
// files even for --version or --help, those files (relative to the project
// root), sorted by program. The caller must not modify the slices.
func ProjectLoaders() map[string][]string { return projectLoaders }

// loadedFiles and loadedPaths index the files of projectLoaders: by base
// name when the entry has no slash, by "/"-padded path suffix otherwise.
var loadedFiles, loadedPaths = func() (map[string]bool, []string) {
	names := map[string]bool{}
	var paths []string
	for _, fs := range projectLoaders {
		for _, f := range fs {
			if strings.Contains(f, "/") {
				paths = append(paths, "/"+strings.ToLower(f))
			} else {
				names[strings.ToLower(f)] = true
			}
		}
	}
	sort.Strings(paths)
	return names, paths
}()

// IsProjectCode reports whether a file at path (slash-separated, any case)
// is one that a known program loads and runs from the project: writing it
// is writing code.
func IsProjectCode(path string) bool {
	lp := strings.ToLower(strings.TrimRight(path, "/"))
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	if loadedFiles[base] {
		return true
	}
	for _, p := range loadedPaths {
		if strings.HasSuffix("/"+lp, p) {
			return true
		}
	}
	return false
}
