//go:build !linux

package harness

import "errors"

func dropCapabilities() error { return errors.New("capabilities are Linux only") }
