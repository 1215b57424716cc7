//go:build windows

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// hasDirPart reports whether a program name is a path: it has a slash or
// a backslash, or a drive (C:prog).
func hasDirPart(name string) bool {
	return strings.ContainsAny(name, `/\`) || filepath.VolumeName(name) != ""
}

// pathCandidates are the file names a PATH entry is searched for: the
// name as given when it ends in .exe or .com, else with each of them.
func pathCandidates(name string) []string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".exe", ".com":
		return []string{name}
	}
	return []string{name + ".exe", name + ".com"}
}

// executable accepts .exe and .com files only. Windows runs .bat and .cmd
// files through cmd.exe, a shell, with its own quoting rules: the harness
// never starts a shell, so it refuses them.
func executable(path string, _ os.FileInfo) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".exe", ".com":
		return nil
	}
	return fmt.Errorf("not an .exe or .com file (the harness runs no .bat or .cmd: cmd.exe is a shell)")
}

// fileID is the volume serial number and the file index of the file.
func fileID(path string, _ os.FileInfo) (dev, ino uint64, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0, err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0, err
	}
	defer windows.CloseHandle(h) //nolint:errcheck
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, 0, err
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), nil
}
