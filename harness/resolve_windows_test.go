package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Compiled by CI's cross-check; run on Windows only.

func TestWindowsRefusesBatchFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"x.bat", "x.cmd", "x.ps1"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("@echo off\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := resolveProgram(p, dir, ""); err == nil {
			t.Errorf("%s resolved: the harness must not hand scripts to cmd.exe", name)
		}
	}
	if got := pathCandidates("git"); !slices.Equal(got, []string{"git.exe", "git.com"}) {
		t.Errorf("pathCandidates(git) = %q", got)
	}
	if !hasDirPart(`C:git.exe`) || !hasDirPart(`.\git.exe`) || hasDirPart("git") {
		t.Error("hasDirPart")
	}
}

func TestWindowsEnvNamesIgnoreCase(t *testing.T) {
	env := buildEnv([]string{`Path=C:\Windows`, "SystemRoot=C:\\Windows", "GitHub_Token=x"}, DefaultEnvAllow, false, newRunDirs(t.TempDir()))
	if envValue(env, "PATH") != `C:\Windows` || envValue(env, "SYSTEMROOT") != `C:\Windows` || envValue(env, "GITHUB_TOKEN") != "" {
		t.Errorf("env %q", env)
	}
}
