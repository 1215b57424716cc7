package parser

// ClassifyPath classes one static path the way Parse classes operands and
// write targets: "~" and "~/…" resolve against [Home], relative paths
// against [Cwd] (default: the workspace), and the first class that applies
// wins (see the Class* constants). abs is the cleaned absolute path, or ""
// when path is relative and no cwd or workspace is known. Only the Cwd,
// Workspace and Home options matter. Nothing on disk is read: symlinks are
// the caller's business (resolve them first).
func ClassifyPath(path string, opts ...Option) (abs, class string) {
	w := newWalker(opts, "")
	defer w.release()
	if path == "" {
		return "", ClassUnknown
	}
	abs, class = w.env.classify(path, false)
	if abs == "" || hasNUL(abs) {
		// Relative to an unknown workspace: no real absolute path.
		return "", class
	}
	return abs, class
}

func hasNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
