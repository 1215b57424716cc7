//go:build !linux && !darwin

package harness

// autoOrder is what [SandboxAuto] tries: nothing here.
var autoOrder []Sandbox

func landlockAvailable(bool) (string, error) { return "", errLandlockLinuxOnly }

func seatbeltAvailable() (string, error) { return "", errSeatbeltMacOnly }
