//go:build !linux

package harness

import (
	"errors"
	"os"
)

func runProbe(sandboxPlan, bool) error { return errors.New("the contract probe is Linux only") }

func seccompFilterFile(bool) (*os.File, error) { return nil, errNoContractFilter }

func trustedBinary(os.FileInfo) error { return errors.New("bubblewrap is Linux only") }

func landlockABI() int { return 0 }
