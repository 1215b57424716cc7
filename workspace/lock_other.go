//go:build !unix

package workspace

import (
	"errors"
	"os"
)

// lockFile fails: the workspace needs flock(2), O_NOFOLLOW and the
// harness's process groups, which this platform lacks.
func lockFile(*os.File, bool) error {
	return errors.New("the agent workspace is not supported on this platform")
}
