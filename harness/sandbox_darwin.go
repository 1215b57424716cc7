package harness

// sandboxExecPath is where macOS ships sandbox-exec.
const sandboxExecPath = "/usr/bin/sandbox-exec"

// autoOrder is what [SandboxAuto] tries, best first.
var autoOrder = []Sandbox{SandboxSeatbelt}

func landlockAvailable(bool) (string, error) { return "", errLandlockLinuxOnly }

// seatbeltAvailable checks the system's sandbox-exec (never one found on
// PATH, which the workspace could shadow).
func seatbeltAvailable() (string, error) { return sandboxExecAt(sandboxExecPath) }
