package parser

import "strings"

// GrantWord is the program word of a grant for a program written as
// written, run from the absolute directory cwd ("" when unknown) in the
// absolute workspace ws ("" when unknown): the one form a grant's first
// word is recorded in and compared in, so that a grant matches the program
// that will run and no other.
//
//   - a bare name (npm), or that name in a system bin directory
//     (/usr/bin/npm): the bare name, which matches only what PATH finds for
//     it (the harness checks again at exec time);
//   - a relative path to a file inside the workspace (./tool, ../tool from
//     a subdirectory): "./" and its path relative to the workspace: only
//     that file of that workspace (grant.Check refuses to record
//     such grants: the agent can rewrite the file);
//   - any other path (an absolute one, a relative one leaving the
//     workspace): its absolute, cleaned form: only that file.
//
// It returns "" when the program cannot be pinned down (a relative path
// with an unknown cwd, a dynamic word): no grant matches it.
func GrantWord(written, cwd, ws string) string {
	switch {
	case written == "" || hasNUL(written):
		return ""
	case !strings.Contains(written, "/"):
		return written
	}
	abs, relative := written, !strings.HasPrefix(written, "/")
	if relative {
		if cwd == "" || !strings.HasPrefix(cwd, "/") || hasNUL(cwd) {
			return ""
		}
		abs = cwd + "/" + written
	}
	abs = cleanPath(abs)
	if i := strings.LastIndexByte(abs, '/'); systemBinDirs[abs[:max(i, 1)]] && abs[i+1:] != "" {
		return abs[i+1:]
	}
	if relative && ws != "" && strings.HasPrefix(ws, "/") && !hasNUL(ws) {
		ws = cleanPath(ws)
		if rel, ok := strings.CutPrefix(abs, ws+"/"); ok {
			return "./" + rel
		}
	}
	return abs
}

// GrantWord is [GrantWord] for the segment's program, as it runs: from the
// segment's cwd in the workspace it was parsed with. A bare name is the
// segment's Program (unwrapped, as the rules see it).
func (s *Segment) GrantWord() string {
	if !strings.Contains(s.Path, "/") {
		return s.Program
	}
	return GrantWord(s.Path, s.cwdAbs, s.ws)
}

// NormalGrantWord is a grant's first word in [GrantWord]'s form: a bare
// name as it is, an absolute path cleaned, any other path relative to the
// workspace, as "./" and its cleaned form.
func NormalGrantWord(w string) string {
	switch {
	case !strings.Contains(w, "/"):
		return w
	case strings.HasPrefix(w, "/"):
		return cleanPath(w)
	}
	return "./" + cleanPath(w)
}
