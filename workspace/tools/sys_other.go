//go:build !unix

package tools

import (
	"errors"
	"io/fs"
)

// This platform has no O_NOFOLLOW; the workspace refuses to open
// (see workspace.Open), so these are never relied on.
const (
	oNoFollow = 0
	oNonblock = 0
)

var (
	errLoop   = errors.New("too many levels of symbolic links")
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// accessAllowed: the workspace refuses to open on this platform.
func accessAllowed(fs.FileInfo, uint32) bool { return false }
