package hookrelay

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// The wire form of a call and of its answer: a frame that both sides
// read and write without reflection (a call carries the client's whole
// environment; decoding it as JSON cost the server more than grading a
// cached command). The client opens the connection, writes one call and
// reads one answer; the server closes the connection without an answer
// when it cannot run the call.
//
// A frame is a magic ("RVHC1" for a call, "RVHR1" for an answer), the
// length of the rest as a uvarint, and the rest. In a call the rest is
// the agent, cwd and executable as strings, the parent's pid as a
// uvarint, the arguments and the environment as counted lists of
// strings, and the payload as a string; in an answer, a uvarint of flags
// (1: local), the exit code as a uvarint, and stdout and stderr as
// strings. A string is its length as a uvarint followed by its bytes;
// numbers are in their shortest form; nothing may follow the last field.
// The magic also tells a relayed call from an HTTP request on the same
// socket ("POST ", "GET /"...).
const (
	// CallMagic opens a call, and so a relayed connection.
	CallMagic   = "RVHC1"
	resultMagic = "RVHR1"
	flagLocal   = 1
	// maxCode bounds an exit code: a process's exit status is a byte.
	maxCode = 255
)

// AppendCall appends the frame of c to b.
func AppendCall(b []byte, c Call) []byte {
	b = append(b, CallMagic...)
	b = binary.AppendUvarint(b, uint64(callSize(c)))
	b = appendString(b, c.Agent)
	b = appendString(b, c.Cwd)
	b = appendString(b, c.Exe)
	b = binary.AppendUvarint(b, uint64(max(c.PPID, 0)))
	b = appendList(b, c.Args)
	b = appendList(b, c.Env)
	return appendBytes(b, c.Stdin)
}

// DecodeCall decodes the frame of a call. Anything but exactly one
// well-formed call (a length past the end, data after it, a negative or
// huge pid) is an error.
func DecodeCall(b []byte) (Call, error) {
	body, err := frameBody(b, CallMagic)
	if err != nil {
		return Call{}, fmt.Errorf("hookrelay: call: %w", err)
	}
	return decodeCall(body)
}

func decodeCall(body []byte) (Call, error) {
	d := decoder{b: body}
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

// ReadCall reads one call's frame from r (at most [MaxBody] bytes).
func ReadCall(r *bufio.Reader) (Call, error) {
	body, err := readFrame(r, CallMagic)
	if err != nil {
		return Call{}, fmt.Errorf("hookrelay: call: %w", err)
	}
	return decodeCall(body)
}

// AppendResult appends the frame of r to b. An exit code outside 0–255
// (no process exits with one) is sent as 255.
func AppendResult(b []byte, r Result) []byte {
	var flags uint64
	if r.Local {
		flags |= flagLocal
	}
	code := r.Code
	if code < 0 || code > maxCode {
		code = maxCode
	}
	n := uvarintSize(flags) + uvarintSize(uint64(code)) + stringSize(len(r.Stdout)) + stringSize(len(r.Stderr))
	b = append(b, resultMagic...)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(code))
	b = appendBytes(b, r.Stdout)
	return appendBytes(b, r.Stderr)
}

// DecodeResult decodes the frame of an answer, refusing anything but
// exactly one well-formed answer (unknown flags included).
func DecodeResult(b []byte) (Result, error) {
	body, err := frameBody(b, resultMagic)
	if err != nil {
		return Result{}, fmt.Errorf("hookrelay: answer: %w", err)
	}
	return decodeResult(body)
}

func decodeResult(body []byte) (Result, error) {
	d := decoder{b: body}
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

// ReadResult reads one answer's frame from r (at most [MaxBody] bytes).
func ReadResult(r *bufio.Reader) (Result, error) {
	body, err := readFrame(r, resultMagic)
	if err != nil {
		return Result{}, fmt.Errorf("hookrelay: answer: %w", err)
	}
	return decodeResult(body)
}

// frameBody checks a whole frame's magic and length and returns the rest.
func frameBody(b []byte, magic string) ([]byte, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a %s frame", magic)
	}
	d := decoder{b: b, off: len(magic)}
	n := d.uvarint()
	if d.err != nil {
		return nil, d.err
	}
	if n != uint64(len(b)-d.off) {
		return nil, fmt.Errorf("frame length %d, %d bytes follow", n, len(b)-d.off)
	}
	return b[d.off:], nil
}

// readFrame reads a frame's magic, its length (at most MaxBody) and the
// rest, which it returns.
func readFrame(r *bufio.Reader, magic string) ([]byte, error) {
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(r, m); err != nil {
		return nil, err
	}
	if string(m) != magic {
		return nil, fmt.Errorf("not a %s frame (%q)", magic, m)
	}
	n, err := readUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("frame length: %w", err)
	}
	if n > MaxBody {
		return nil, fmt.Errorf("frame of %d bytes, over %d", n, MaxBody)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
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

// readUvarint reads a uvarint in its shortest form.
func readUvarint(r io.ByteReader) (uint64, error) {
	var b []byte
	for len(b) < binary.MaxVarintLen64 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		b = append(b, c)
		if c < 0x80 {
			break
		}
	}
	v, n := binary.Uvarint(b)
	if n <= 0 || n != uvarintSize(v) {
		return 0, fmt.Errorf("bad number %x", b)
	}
	return v, nil
}

// callSize is the length of c's frame after its magic and length.
func callSize(c Call) int {
	n := stringSize(len(c.Agent)) + stringSize(len(c.Cwd)) + stringSize(len(c.Exe)) +
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
