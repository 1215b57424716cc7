//go:build unix

package harness

// defaultPATH is used when the harness's environment has no PATH.
const defaultPATH = "/usr/local/bin:/usr/bin:/bin"

var platformEnvAllow []string

// envKey is the name variables are compared by: as written on unix.
func envKey(name string) string { return name }
