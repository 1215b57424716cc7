//go:build !linux

package harness

import "errors"

var errLandlockLinuxOnly = errors.New("the Landlock backend is Linux only")
