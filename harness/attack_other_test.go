//go:build unix && !linux

package harness_test

import "errors"

func attack(string, []string) error { return errors.New("the contract attacks are Linux only") }
