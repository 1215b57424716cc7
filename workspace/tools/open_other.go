//go:build !unix

package tools

import (
	"errors"
	"io/fs"
	"os"
)

// openBeneath: the workspace refuses to open on this platform.
func openBeneath(string, string, int, os.FileMode, bool) (*os.File, error) {
	return nil, errors.New("the workspace tools need a unix system")
}

func openDirNoFollow(string, string) (*os.File, error) {
	return nil, errors.New("the workspace tools need a unix system")
}

func writeViaTemp(*os.File, string, []byte, fs.FileMode) error {
	return errors.New("the workspace tools need a unix system")
}
