package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// MaxLine is the longest line a [Reader] accepts.
const MaxLine = 16 << 20

// LineError reports a complete line that is not a valid entry (a torn line
// that a later write ended, or one too long or malformed). The reader has
// moved past it: calling Next again continues with the following line.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("audit: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// TornError reports the lines [ReadAll] skipped. Every whole entry of the
// log is returned beside it.
type TornError struct {
	// Lines are the 1-based numbers of complete lines that are not
	// entries: torn lines (a write that failed or a writer that died
	// part-way, ended by a later writer) and malformed ones.
	Lines []int
	// Tail reports a last line without its newline: a writer that died
	// part-way, or a write still in progress while the log was read.
	Tail bool
}

func (e *TornError) Error() string {
	var parts []string
	if n := len(e.Lines); n > 0 {
		nums := make([]string, 0, min(n, 10))
		for _, l := range e.Lines[:min(n, 10)] {
			nums = append(nums, strconv.Itoa(l))
		}
		if n > 10 {
			nums = append(nums, "…")
		}
		what := "lines"
		if n == 1 {
			what = "line"
		}
		parts = append(parts, fmt.Sprintf("%d torn or malformed %s skipped (%s)", n, what, strings.Join(nums, ", ")))
	}
	if e.Tail {
		parts = append(parts, "a partial last line skipped")
	}
	return "audit: " + strings.Join(parts, "; ")
}

// Reader reads entries from an audit log, one per line.
type Reader struct {
	r    *bufio.Reader
	line int
	tail bool
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next entry. At the end it returns io.EOF; a last line
// without its newline (a torn write) is skipped, not returned, and
// reported by [Reader.TornTail]. A complete line that is not an entry is a
// [*LineError], after which Next goes on with the following line; other
// errors come from the underlying reader.
func (r *Reader) Next() (Entry, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Entry{}, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return Entry{}, &LineError{Line: r.line, Err: err}
		}
		return e, nil
	}
}

// TornTail reports whether the log ended in a line without its newline,
// once Next has returned io.EOF.
func (r *Reader) TornTail() bool { return r.tail }

// readLine returns one complete line without its newline, counting it. A
// line over MaxLine is read to its end and reported as a [*LineError]. A
// partial last line is dropped (io.EOF).
func (r *Reader) readLine() ([]byte, error) {
	var buf []byte
	long := false
	for {
		chunk, err := r.r.ReadSlice('\n')
		if !long {
			buf = append(buf, chunk...)
			if len(buf) > MaxLine+1 {
				long, buf = true, nil
			}
		}
		switch {
		case err == nil:
			r.line++
			if long {
				return nil, &LineError{Line: r.line, Err: errors.New("line too long")}
			}
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			r.tail = long || len(buf) > 0
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// ReadAll reads every entry from r, going on past lines that are not
// entries. When it skipped any (or a partial last line), the error is a
// [*TornError] that lists them, returned with every whole entry; other
// errors come from r, with the entries read so far.
func ReadAll(r io.Reader) ([]Entry, error) {
	rd := NewReader(r)
	var out []Entry
	var torn TornError
	for {
		e, err := rd.Next()
		var le *LineError
		switch {
		case err == nil:
			out = append(out, e)
		case errors.As(err, &le):
			torn.Lines = append(torn.Lines, le.Line)
		case errors.Is(err, io.EOF):
			torn.Tail = rd.TornTail()
			if len(torn.Lines) > 0 || torn.Tail {
				return out, &torn
			}
			return out, nil
		default:
			return out, err
		}
	}
}

// ReadFile reads every entry of the log at path; see [ReadAll].
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}
