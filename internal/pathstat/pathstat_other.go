//go:build !linux

package pathstat

import (
	"io/fs"
	"os"
	"path/filepath"
)

func in(dir, name string, nofollow bool) (fs.FileMode, error) {
	stat := os.Stat
	if nofollow {
		stat = os.Lstat
	}
	fi, err := stat(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return fi.Mode(), nil
}
