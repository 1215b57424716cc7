// Package winpath maps Windows paths onto the slash form rivumi grades:
// the drive as the first component, as Git Bash (MSYS2) writes it, so
// C:\Users\x\proj becomes /c/Users/x/proj. The policy's path classes
// (workspace, home, .git, secrets …) then apply unchanged, and a shell
// command that names C:/Users/x/.ssh/id_rsa is classed as the same file
// as /c/Users/x/.ssh/id_rsa.
//
// The functions are pure and behave the same on every GOOS, so they are
// tested everywhere; callers decide where Windows paths can occur.
package winpath

import (
	"errors"
	"fmt"
	"strings"
)

// Drive converts an absolute drive path (C:\x, C:/x, or the bare C:\)
// to the slash form /c/x, with every backslash a separator. ok is false
// for anything else (relative paths, /c/x already, UNC paths, C:x).
func Drive(p string) (slash string, ok bool) {
	if len(p) < 3 || !isLetter(p[0]) || p[1] != ':' || (p[2] != '\\' && p[2] != '/') {
		return "", false
	}
	rest := strings.ReplaceAll(p[3:], `\`, "/")
	return "/" + strings.ToLower(p[:1]) + "/" + rest, true
}

// ToSlash converts a path an agent's file tool sent on Windows to the
// slash form: absolute drive paths as [Drive], /c/… and relative paths
// with backslashes turned into slashes. It refuses the spellings whose
// target the text cannot tell, and strips what Windows strips:
//
//   - UNC and device paths (\\server\share, \\?\C:\, \\.\pipe) and
//     drive-relative paths (C:x, relative to that drive's own cwd): errors;
//   - a ':' in a component (NTFS alternate data streams: .git::$INDEX_ALLOCATION
//     names the .git directory itself): an error;
//   - a component with a '~' followed by digits (an 8.3 short name, such as
//     GIT~1 for .git): an error;
//   - trailing dots and spaces of a component, which Windows drops (".git."
//     and ".git " are .git): removed.
func ToSlash(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case strings.HasPrefix(s, "//"):
		return "", fmt.Errorf("%q: UNC and device paths are not supported", p)
	case len(s) >= 2 && isLetter(s[0]) && s[1] == ':':
		if len(s) == 2 || s[2] != '/' {
			return "", fmt.Errorf("%q: a drive-relative path (relative to that drive's current directory)", p)
		}
		s = "/" + strings.ToLower(s[:1]) + s[2:]
	}
	parts := strings.Split(s, "/")
	for i, c := range parts {
		if c == "." || c == ".." {
			continue
		}
		t := strings.TrimRight(c, ". ")
		if t == "" && c != "" {
			return "", fmt.Errorf("%q: the component %q names nothing on Windows", p, c)
		}
		if strings.ContainsRune(t, ':') {
			return "", fmt.Errorf("%q: a ':' in %q (an alternate data stream) is not supported", p, c)
		}
		if shortName(t) {
			return "", fmt.Errorf("%q: %q looks like an 8.3 short name, which may stand for any file; use the long name", p, c)
		}
		parts[i] = t
	}
	return strings.Join(parts, "/"), nil
}

// Native converts the slash form back to a Windows path for file system
// calls: /c/x becomes C:\x. Paths without a drive component are returned
// with backslashes.
func Native(slash string) string {
	if len(slash) >= 2 && slash[0] == '/' && isLetter(slash[1]) && (len(slash) == 2 || slash[2] == '/') {
		rest := ""
		if len(slash) > 3 {
			rest = slash[3:]
		}
		return strings.ToUpper(slash[1:2]) + `:\` + strings.ReplaceAll(rest, "/", `\`)
	}
	return strings.ReplaceAll(slash, "/", `\`)
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// shortName reports whether c has the ~N of a generated 8.3 name.
func shortName(c string) bool {
	i := strings.LastIndexByte(c, '~')
	if i < 0 || i+1 >= len(c) {
		return false
	}
	j := i + 1
	for j < len(c) && '0' <= c[j] && c[j] <= '9' {
		j++
	}
	return j > i+1 && (j == len(c) || c[j] == '.')
}
