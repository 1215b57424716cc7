//go:build !unix

package workspace

// readFlags: no O_NOFOLLOW or O_NONBLOCK here (the workspace tools refuse
// to run on this platform; the type of each path is checked before).
const readFlags = 0
