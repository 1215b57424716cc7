//go:build windows

package harness

import "strings"

// defaultPATH is used when the harness's environment has no PATH.
const defaultPATH = `C:\Windows\System32;C:\Windows`

// platformEnvAllow are the variables Windows programs need to start.
var platformEnvAllow = []string{"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "PATHEXT", "COMSPEC", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE"}

// envKey is the name variables are compared by: Windows names are
// case-insensitive (the environment often holds Path, not PATH).
func envKey(name string) string { return strings.ToUpper(name) }
