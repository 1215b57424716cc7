package pathstat

import "io/fs"

// Exists reports whether dir/name exists, without following a symbolic
// link at name (what os.Lstat(filepath.Join(dir, name)) == nil says).
// dir must be clean; name a single path element.
func Exists(dir, name string) bool {
	_, err := In(dir, name, true)
	return err == nil
}

// IsRegular reports whether dir/name, followed through symbolic links, is
// a regular file (os.Stat's answer).
func IsRegular(dir, name string) bool {
	m, err := In(dir, name, false)
	return err == nil && m.IsRegular()
}

// In returns the type and permission bits of dir/name (dir clean, name a
// single element, as filepath.Join would join them), or the error stat(2)
// gave (errors.Is(err, fs.ErrNotExist) for a missing file).
func In(dir, name string, nofollow bool) (fs.FileMode, error) {
	return in(dir, name, nofollow)
}
