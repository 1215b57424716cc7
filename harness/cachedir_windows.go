package harness

import "os"

// ownedByMe: Windows directories under the user's profile carry the
// user's ACL; ownership is not checked here.
func ownedByMe(os.FileInfo) bool { return true }
