//go:build !linux

package cli

import "io/fs"

// sysSig gives no signature here: without Linux's stat fields, the
// configuration is read for every request.
func sysSig(string, fs.FileInfo) (fileSig, bool) { return fileSig{}, false }
