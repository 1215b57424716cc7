package native

import "github.com/rivumi/rivumi/internal/ere"

// The ERE helpers mirror policies/lib/ere.rego through internal/ere.

// ereReadable is ere.readable(p).
func ereReadable(p string) bool { return ere.Readable(p) }

// ereMatchesAny is ere.matches_any(p, subjects).
func ereMatchesAny(p string, subjects []string) bool { return ere.Finds(p, false, subjects) }
