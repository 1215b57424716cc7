package audit

import "os"

// SetWrite replaces the logger's write, to inject failures.
func SetWrite(l *Logger, w func(f *os.File, b []byte) (int, error)) { l.write = w }
