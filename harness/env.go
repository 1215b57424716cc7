package harness

import (
	"path/filepath"
	"slices"
	"strings"
)

// DefaultEnvAllow lists the variables passed from the harness's own
// environment to the child. A trailing '*' matches a prefix. HOME passes
// only when [Config.KeepHome] is set; TMPDIR and the cache variables are
// always replaced by directories of the run.
// On Windows the variables programs need to start (SYSTEMROOT, WINDIR,
// PATHEXT, …) are added, and names compare case-insensitively.
var DefaultEnvAllow = append([]string{
	"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY",
	"LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION", "TERM", "COLORTERM", "NO_COLOR", "TZ", "USER", "LOGNAME",
}, platformEnvAllow...)

// secretWords make a variable never pass, whatever the configuration says
// (compared case-insensitively, anywhere in the name).
var secretWords = []string{"API", "AUTH", "CREDENTIAL", "GITHUB", "PASSWORD", "PASSWD", "SECRET", "TOKEN", "PRIVATE", "COOKIE"}

// Variables that carry code or change how programs load: never passed.
var neverPass = []string{
	"LD_*", "DYLD_*", "BASH_FUNC_*", "BASH_ENV", "ENV", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS",
	"IFS", "CDPATH", "GLOBIGNORE", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "RUBYOPT",
	"NODE_OPTIONS", "GIT_*", "SSH_*", "GNUPGHOME", "*_PROXY", "*_proxy",
}

// SecretEnvName reports whether name can never pass to a child: it
// contains (case-insensitively) API, AUTH, CREDENTIAL, GITHUB, PASSWORD,
// PASSWD, SECRET, TOKEN, PRIVATE or COOKIE, or it is a variable that
// carries code (LD_*, BASH_FUNC_*, BASH_ENV, NODE_OPTIONS, GIT_*, …).
func SecretEnvName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return matchAny(neverPass, name)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "*"):
			if strings.HasSuffix(name, p[1:]) {
				return true
			}
		case strings.HasSuffix(p, "*"):
			if strings.HasPrefix(name, p[:len(p)-1]) {
				return true
			}
		case p == name:
			return true
		}
	}
	return false
}

// runDirs are the per-run directories the environment points into.
type runDirs struct {
	root, tmp, home, cache, config, data, state string
}

func newRunDirs(root string) runDirs {
	return runDirs{
		root:   root,
		tmp:    filepath.Join(root, "tmp"),
		home:   filepath.Join(root, "home"),
		cache:  filepath.Join(root, "cache"),
		config: filepath.Join(root, "config"),
		data:   filepath.Join(root, "data"),
		state:  filepath.Join(root, "state"),
	}
}

func (d runDirs) all() []string {
	return []string{d.root, d.tmp, d.home, d.cache, d.config, d.data, d.state}
}

// buildEnv returns the child's environment: the allowed variables of base
// (never a secret one), then extra as given (checked by New), the hardening
// variables, and the run's directories, which win over both. It is sorted
// by name and has no duplicates.
func buildEnv(base []string, allow []string, keepHome bool, d runDirs, extra ...string) []string {
	vars := map[string]string{}
	for _, kv := range base {
		name, val, ok := strings.Cut(kv, "=")
		name = envKey(name)
		if !ok || name == "" || SecretEnvName(name) {
			continue
		}
		if matchAny(allow, name) || (keepHome && name == "HOME") {
			vars[name] = val
		}
	}
	for _, kv := range extra { // checked by New
		name, val, _ := strings.Cut(kv, "=")
		vars[envKey(name)] = val
	}
	vars["PATH"] = cleanPATH(vars["PATH"])
	if !keepHome || vars["HOME"] == "" {
		vars["HOME"] = d.home
	}
	set := map[string]string{
		// Git: no prompts, no user or system config (which can run code).
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_ASKPASS":         "/bin/false",
		"SSH_ASKPASS":         "/bin/false",
		"GIT_CONFIG_GLOBAL":   "/dev/null",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GCM_INTERACTIVE":     "never",
		// No .pyc files written into the workspace.
		"PYTHONDONTWRITEBYTECODE": "1",
		// Temp and caches under the run directory.
		"TMPDIR":           d.tmp,
		"TMP":              d.tmp,
		"TEMP":             d.tmp,
		"XDG_CACHE_HOME":   d.cache,
		"XDG_CONFIG_HOME":  d.config,
		"XDG_DATA_HOME":    d.data,
		"XDG_STATE_HOME":   d.state,
		"PIP_CACHE_DIR":    filepath.Join(d.cache, "pip"),
		"npm_config_cache": filepath.Join(d.cache, "npm"),
		"GOCACHE":          filepath.Join(d.cache, "go-build"),
	}
	for k, v := range set {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// cleanPATH drops empty and relative entries (which resolve against the
// workspace the agent controls) and duplicates; an empty result is
// [defaultPATH].
func cleanPATH(p string) string {
	var keep []string
	for _, dir := range filepath.SplitList(p) {
		if dir == "" || !filepath.IsAbs(dir) || slices.Contains(keep, dir) {
			continue
		}
		keep = append(keep, filepath.Clean(dir))
	}
	if len(keep) == 0 {
		return defaultPATH
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && envKey(k) == name {
			return v
		}
	}
	return ""
}
