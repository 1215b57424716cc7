//go:build !unix

package testenv

// unixSockets: rivumi's sandboxes that refuse them are unix ones.
func unixSockets() bool { return true }
