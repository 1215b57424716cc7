//go:build !unix

package tools

import (
	"errors"
	"io/fs"
)

var (
	errLoop   = errors.New("too many levels of symbolic links")
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// accessAllowed: the workspace refuses to open on this platform.
func accessAllowed(fs.FileInfo, uint32) bool { return false }
