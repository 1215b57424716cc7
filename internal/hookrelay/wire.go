package hookrelay

import (
	"encoding/binary"
	"fmt"
)

// ContentType is the media type of a relayed call and of its answer: the
// binary form below, which both sides read and write without reflection
// (a call carries the client's whole environment, and decoding it as JSON
// cost the server more than grading a cached command).
//
// A call is the magic "RVHC1", then the agent, cwd and executable as
// strings, the parent's pid as a uvarint, the arguments and the
// environment as counted lists of strings, and the payload as a string.
// An answer is "RVHR1", a uvarint of flags (1: local), the exit code as
// a uvarint, and stdout and stderr as strings. A string is its length as
// a uvarint followed by its bytes; numbers are in their shortest form.
// Nothing may follow the last field.
const ContentType = "application/x-rivumi-hook"

const (
	callMagic   = "RVHC1"
	resultMagic = "RVHR1"
	flagLocal   = 1
	// maxCode bounds an exit code: a process's exit status is a byte.
	maxCode = 255
)

// AppendCall appends the wire form of c to b.
func AppendCall(b []byte, c Call) []byte {
	b = append(b, callMagic...)
	b = appendString(b, c.Agent)
	b = appendString(b, c.Cwd)
	b = appendString(b, c.Exe)
	b = binary.AppendUvarint(b, uint64(max(c.PPID, 0)))
	b = appendList(b, c.Args)
	b = appendList(b, c.Env)
	return appendBytes(b, c.Stdin)
}

// DecodeCall decodes the wire form of a call. Anything but exactly one
// well-formed call (a length past the end, data after it, a negative or
// huge pid) is an error.
func DecodeCall(b []byte) (Call, error) {
	d := decoder{b: b}
	d.magic(callMagic)
	c := Call{Agent: d.string(), Cwd: d.string(), Exe: d.string()}
	ppid := d.uvarint()
	if ppid > 1<<31-1 {
		d.fail("pid %d out of range", ppid)
	}
	c.PPID = int(ppid)
	c.Args = d.list()
	c.Env = d.list()
	c.Stdin = d.bytes()
	if err := d.end(); err != nil {
		return Call{}, fmt.Errorf("hookrelay: call: %w", err)
	}
	return c, nil
}

// AppendResult appends the wire form of r to b. An exit code outside
// 0–255 (no process exits with one) is sent as 255.
func AppendResult(b []byte, r Result) []byte {
	b = append(b, resultMagic...)
	var flags uint64
	if r.Local {
		flags |= flagLocal
	}
	b = binary.AppendUvarint(b, flags)
	code := r.Code
	if code < 0 || code > maxCode {
		code = maxCode
	}
	b = binary.AppendUvarint(b, uint64(code))
	b = appendBytes(b, r.Stdout)
	return appendBytes(b, r.Stderr)
}

// DecodeResult decodes the wire form of an answer, refusing anything but
// exactly one well-formed answer (unknown flags included).
func DecodeResult(b []byte) (Result, error) {
	d := decoder{b: b}
	d.magic(resultMagic)
	flags := d.uvarint()
	if flags&^flagLocal != 0 {
		d.fail("unknown flags %#x", flags)
	}
	code := d.uvarint()
	if code > maxCode {
		d.fail("exit code %d out of range", code)
	}
	r := Result{Local: flags&flagLocal != 0, Code: int(code), Stdout: d.bytes(), Stderr: d.bytes()}
	if err := d.end(); err != nil {
		return Result{}, fmt.Errorf("hookrelay: answer: %w", err)
	}
	return r, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendList(b []byte, l []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

// decoder reads fields off b; the first error sticks and every later
// read returns zero values.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: "+format, append([]any{d.off}, a...)...)
	}
}

func (d *decoder) magic(m string) {
	if len(d.b) < len(m) || string(d.b[:len(m)]) != m {
		d.fail("not a %s frame", m)
		return
	}
	d.off = len(m)
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad or truncated number")
		return 0
	}
	if n != uvarintSize(v) {
		// One form per value: 0x80 0x00 is not another zero.
		d.fail("number %d not in its shortest form", v)
		return 0
	}
	d.off += n
	return v
}

// bytes reads a length and that many bytes (a copy: the caller may keep
// them after the frame's buffer is reused).
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail("length %d past the end", n)
		return nil
	}
	s := append([]byte(nil), d.b[d.off:d.off+int(n)]...)
	d.off += int(n)
	return s
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail("length %d past the end", n)
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *decoder) list() []string {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	// Every string takes at least its length byte: a count beyond what
	// is left cannot be right (and must not size an allocation).
	if n > uint64(len(d.b)-d.off) {
		d.fail("count %d past the end", n)
		return nil
	}
	l := make([]string, 0, n)
	for range n {
		l = append(l, d.string())
		if d.err != nil {
			return nil
		}
	}
	return l
}

func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d bytes after the frame", len(d.b)-d.off)
	}
	if d.err != nil {
		return d.err
	}
	return nil
}

// callSize is len(AppendCall(nil, c)).
func callSize(c Call) int {
	n := len(callMagic) + stringSize(len(c.Agent)) + stringSize(len(c.Cwd)) + stringSize(len(c.Exe)) +
		uvarintSize(uint64(max(c.PPID, 0))) + stringSize(len(c.Stdin)) + uvarintSize(uint64(len(c.Args))) + uvarintSize(uint64(len(c.Env)))
	for _, l := range [][]string{c.Args, c.Env} {
		for _, s := range l {
			n += stringSize(len(s))
		}
	}
	return n
}

func stringSize(n int) int { return uvarintSize(uint64(n)) + n }

func uvarintSize(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
