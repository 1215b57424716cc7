//go:build !unix

package workspace

import "os/exec"

// ownGroup: no process groups here; the context kills git itself.
func ownGroup(*exec.Cmd) {}
