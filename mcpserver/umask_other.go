//go:build !unix

package mcpserver

func umask(int) int { return 0 }
