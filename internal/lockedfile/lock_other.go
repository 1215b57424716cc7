//go:build !unix && !windows

package lockedfile

import (
	"errors"
	"os"
)

func lockFile(*os.File) error   { return errors.ErrUnsupported }
func unlockFile(*os.File) error { return errors.ErrUnsupported }
func syncDir(string) error      { return nil }

func rename(from, to string) error { return os.Rename(from, to) }
