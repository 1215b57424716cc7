//go:build windows

package usersock

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// ownedByUs refuses a file (the socket) whose owner SID is not this
// process's user. (An elevated process creates files owned by
// Administrators: its sockets are refused, and the hook compiles in
// process instead.)
func ownedByUs(path string, _ os.FileInfo) error { return ownerIsUs(path) }

// ownDir refuses a socket directory that this user does not own. Its
// DACL is not examined: the default directories (%TEMP%, under the
// user's profile) are private to the user.
func ownDir(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	return ownerIsUs(dir)
}

func ownerIsUs(path string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("cannot read the owner of %s: %w", path, err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return fmt.Errorf("cannot read the owner of %s: %v", path, err)
	}
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("cannot read our own user: %w", err)
	}
	if !owner.Equals(u.User.Sid) {
		return fmt.Errorf("%s belongs to %s, not to us (%s)", path, owner, u.User.Sid)
	}
	return nil
}
