//go:build !unix

package tools

import (
	"errors"
	"os"
)

// openBeneath: the workspace refuses to open on this platform.
func openBeneath(string, string, int, os.FileMode, bool) (*os.File, error) {
	return nil, errors.New("the workspace tools need a unix system")
}
