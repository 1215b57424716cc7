package codescan

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func checkSed(t *testing.T, script string) {
	got := Sed(script)
	if got.Safe != (got.Reason == "") {
		t.Fatalf("Sed(%q): Safe=%v Reason=%q", script, got.Safe, got.Reason)
	}
	if got.Safe && (got.Executes || len(got.Writes) > 0) {
		t.Fatalf("Sed(%q): safe but executes or writes: %+v", script, got)
	}
	if got.Executes && got.Safe {
		t.Fatalf("Sed(%q): executes but safe", script)
	}
	noDup(t, "Writes", got.Writes)
	noDup(t, "Reads", got.Reads)
	if got.Safe && !strings.HasSuffix(script, "\\") {
		if again := Sed(script + "\ne x"); again.Safe || !again.Executes {
			t.Fatalf("Sed(%q + e): %+v; a following e command was hidden", script, again)
		}
	}
}

func noDup(t *testing.T, what string, list []string) {
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s] {
			t.Fatalf("%s has duplicate %q: %q", what, s, list)
		}
		seen[s] = true
	}
}

func FuzzSed(f *testing.F) {
	for _, tc := range sedCases {
		f.Add(tc.script)
	}
	f.Fuzz(func(t *testing.T, script string) {
		checkSed(t, script)
	})
}

func FuzzAwk(f *testing.F) {
	for _, tc := range awkCases {
		f.Add(tc.prog)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		got := Awk(prog)
		if got.Safe != (got.Reason == "") {
			t.Fatalf("Awk(%q): Safe=%v Reason=%q", prog, got.Safe, got.Reason)
		}
		if got.Safe {
			if again := Awk(prog + "\nBEGIN { system(\"x\") }"); again.Safe {
				t.Fatalf("Awk(%q): a following system() call was hidden", prog)
			}
		}
	})
}

var fuzzLangs = []string{"python", "node", "perl", "ruby", "php", "lua", "pwsh", "osascript", "deno", "sh"}

func checkScan(t *testing.T, lang, code string) {
	got := Scan(lang, code)
	if len(got.Literals) > maxLiterals {
		t.Fatalf("Scan: %d literals", len(got.Literals))
	}
	seen := map[string]bool{}
	for _, l := range got.Literals {
		if l == "" || len(l) > maxLiteral || seen[l] {
			t.Fatalf("Scan(%q, %q): bad literal %q in %q", lang, code, l, got.Literals)
		}
		seen[l] = true
	}
	if again := Scan(lang, code); !reflect.DeepEqual(got, again) {
		t.Fatalf("Scan(%q, %q) is not deterministic", lang, code)
	}
	if more := Scan(lang, code+"\nos.system(1)"); !more.Spawns {
		t.Fatalf("Scan(%q, %q + os.system): Spawns hidden", lang, code)
	}
	if more := Scan(lang, code+"\neval(1)"); !more.Dynamic {
		t.Fatalf("Scan(%q, %q + eval): Dynamic hidden", lang, code)
	}
}

func FuzzScan(f *testing.F) {
	for _, tc := range scanCases {
		f.Add(tc.lang, tc.code)
	}
	f.Fuzz(func(t *testing.T, lang, code string) {
		checkScan(t, lang, code)
		// Also every known language on the same code.
		for _, l := range fuzzLangs {
			Scan(l, code)
		}
	})
}

var floorIDs = map[string]bool{
	floorRmRoot: true, floorForkBomb: true, floorDiskWrite: true, floorFetchRun: true,
	floorReverseShell: true, floorSystemCredentials: true, floorKillInit: true, floorChmodRoot: true,
}

func checkFloor(t *testing.T, text string) {
	got := Floor(text)
	if got != nil && len(got) == 0 {
		t.Fatalf("Floor(%q) returned an empty non-nil slice", text)
	}
	if !sort.StringsAreSorted(got) {
		t.Fatalf("Floor(%q) = %q: not sorted", text, got)
	}
	for i, id := range got {
		if !floorIDs[id] || (i > 0 && got[i-1] == id) {
			t.Fatalf("Floor(%q) = %q: bad or duplicate id", text, got)
		}
	}
	if more := Floor(text + "\n;rm -rf /"); !contains(more, floorRmRoot) {
		t.Fatalf("Floor(%q + rm -rf /) = %q: rm-root hidden", text, more)
	}
}

func FuzzFloor(f *testing.F) {
	for _, fc := range floorCases {
		for _, s := range fc.hits {
			f.Add(s)
		}
		for _, s := range fc.misses {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFloor(t, text)
	})
}

// The properties checked by the fuzz targets also hold on every table case.
func TestInvariantsOnTables(t *testing.T) {
	for _, tc := range sedCases {
		checkSed(t, tc.script)
	}
	for _, tc := range scanCases {
		checkScan(t, tc.lang, tc.code)
	}
	for _, fc := range floorCases {
		for _, s := range append(append([]string{}, fc.hits...), fc.misses...) {
			checkFloor(t, s)
		}
	}
}

// hostile builds inputs of about n bytes that stress the scanners:
// unterminated constructs, deep nesting, many tiny tokens, invalid UTF-8.
func hostile(n int) map[string]string {
	rep := func(s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	return map[string]string{
		"quote":      rep(`'`),
		"dquote":     rep(`"`),
		"backslash":  rep(`\`),
		"slash":      rep(`/`),
		"paren":      rep(`(`),
		"close":      rep(`)`),
		"brace":      rep(`{`),
		"regexes":    rep(`(/`),
		"bracket":    rep(`/[`),
		"classes":    rep(`[[:`),
		"subst":      rep(`s/a/b/;`),
		"text":       rep("a\\\n"),
		"labels":     rep("b x;"),
		"escapes":    `"` + rep(`\x41`) + `"`,
		"template":   "`" + rep("${`"),
		"heredoc":    rep("<<A "),
		"heredocs":   rep("<<A\nx\n"),
		"perlq":      rep("q("),
		"rubypct":    rep("%w("),
		"luaLong":    rep("[=["),
		"luaComment": rep("--[["),
		"pwshHere":   rep("@'\n"),
		"words":      rep("os.system "),
		"spaces":     "system" + rep(" ") + "(",
		"pipes":      rep("a|a&"),
		"rm":         rep("rm "),
		"rmflags":    rep("rm -rf "),
		"subs":       rep("$(curl "),
		"backticks":  rep("`"),
		"fnparen":    rep("f() "),
		"function":   rep("function "),
		"invalid":    rep("\xff\xfe\x00"),
		"fullwidth":  rep("ｅｘｅｃ"),
		"uescape":    rep(`\u0065`),
		"modes":      rep(`open(x, 'w'), `),
		"pipeopen":   rep(`"|", `),
		"dollar":     rep("$f("),
		"amp":        rep("& "),
		"newlines":   rep("\n"),
		"print":      rep("print > "),
	}
}

func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const size = 1 << 20
	const limit = 3 * time.Second
	for name, in := range hostile(size) {
		check := func(what string, fn func()) {
			start := time.Now()
			fn()
			if d := time.Since(start); d > limit {
				t.Errorf("%s on %s (%d bytes) took %v", what, name, len(in), d)
			}
		}
		check("Sed", func() { Sed(in) })
		check("Awk", func() { Awk(in) })
		check("Floor", func() { Floor(in) })
		for _, l := range fuzzLangs {
			check("Scan/"+l, func() { Scan(l, in) })
		}
	}
}

// All entry points may be called from many goroutines at once (run with
// -race to check).
func TestConcurrent(t *testing.T) {
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			for _, tc := range sedCases {
				Sed(tc.script)
			}
			for _, tc := range awkCases {
				Awk(tc.prog)
			}
			for _, tc := range scanCases {
				Scan(tc.lang, tc.code)
			}
			for _, fc := range floorCases {
				for _, s := range fc.hits {
					Floor(s)
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
}

// Literals are valid UTF-8 whenever the source is, except where an escape
// sequence produces a raw byte.
func TestScanLiteralsUTF8(t *testing.T) {
	for _, tc := range scanCases {
		if !utf8.ValidString(tc.code) || strings.Contains(tc.code, `\`) {
			continue
		}
		for _, l := range Scan(tc.lang, tc.code).Literals {
			if !utf8.ValidString(l) {
				t.Errorf("Scan(%q, %q): invalid UTF-8 literal %q", tc.lang, tc.code, l)
			}
		}
	}
}
