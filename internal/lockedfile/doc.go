// Package lockedfile updates small files that several processes share (the
// trust store, grant stores, agent settings): a read-modify-write under an
// exclusive lock, written atomically and durably.
//
// [Update] takes an exclusive lock on a sibling lock file (path + ".lock",
// created and kept), reads the file, lets the caller change its contents,
// writes the result to a temporary file in the same directory, fsyncs it,
// renames it over the file and fsyncs the directory, and only then lets the
// lock go. Concurrent updaters, in this process or others, are serialised,
// so none loses another's change; readers never see a partial file, and a
// crash leaves the old or the new contents, never a mix.
//
// The lock is advisory: it binds only writers that use this package. It is
// flock(2) on unix and LockFileEx on Windows.
package lockedfile
