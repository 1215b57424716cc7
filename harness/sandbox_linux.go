package harness

import (
	"fmt"
	"os"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// autoOrder is what [SandboxAuto] tries, best first.
var autoOrder = []Sandbox{SandboxBwrap, SandboxLandlock}

// landlockAvailable checks the kernel's Landlock ABI and finds our own
// executable, which re-execs as the sandbox helper.
func landlockAvailable(allowNet bool) (string, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return "", fmt.Errorf("the kernel does not support Landlock (%v)", err)
	}
	if !allowNet && abi < 4 {
		return "", fmt.Errorf("the kernel's Landlock ABI v%d cannot restrict TCP (needs v4, Linux 6.7)", abi)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find own executable to re-exec: %v", err)
	}
	return self, nil
}

func seatbeltAvailable() (string, error) { return "", errSeatbeltMacOnly }
