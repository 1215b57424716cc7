package adversarial

import (
	"fmt"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

// SQ quotes s for bash as one word in single quotes, closing and reopening
// them around each single quote s holds.
func SQ(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// DQ quotes s for bash as one word inside double quotes, escaping the
// characters that stay special there (\ " $ `).
func DQ(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// ANSI quotes s as a bash $'…' word.
func ANSI(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("'")
	return b.String()
}

var plainWord = lazyre.New(`^[A-Za-z0-9_./:=+,@%-]+$`)

// Plain reports whether w means the same however it is quoted: no tilde,
// expansion, glob, brace or quote characters.
func Plain(w string) bool { return plainWord().MatchString(w) }

// quoteForm rewrites one plain word into another spelling bash reads as the
// same word.
type quoteForm struct {
	name string
	fn   func(w string) string
	// unknowable marks spellings whose value depends on the environment
	// ($"…" is translated through the locale's message catalog).
	unknowable bool
}

// split cuts w after its first byte (all words here are ASCII).
func split(w string) (string, string) {
	if len(w) < 2 {
		return "", w
	}
	return w[:1], w[1:]
}

var quoteForms = []quoteForm{
	{"single", func(w string) string { return "'" + w + "'" }, false},
	{"double", func(w string) string { return `"` + w + `"` }, false},
	{"backslash-first", func(w string) string { return `\` + w }, false},
	{"backslash-all", func(w string) string {
		var b strings.Builder
		for i := 0; i < len(w); i++ {
			b.WriteByte('\\')
			b.WriteByte(w[i])
		}
		return b.String()
	}, false},
	{"ansi", func(w string) string { return "$'" + w + "'" }, false},
	{"ansi-hex", func(w string) string { return fmt.Sprintf(`$'\x%02x'`, w[0]) + w[1:] }, false},
	{"ansi-octal", func(w string) string { return fmt.Sprintf(`$'\%03o'`, w[0]) + w[1:] }, false},
	{"ansi-unicode", func(w string) string { return fmt.Sprintf(`$'\u%04x'`, w[0]) + w[1:] }, false},
	{"locale", func(w string) string { return `$"` + w + `"` }, true},
	{"empty-single", func(w string) string { a, b := split(w); return a + "''" + b }, false},
	{"empty-double", func(w string) string { a, b := split(w); return a + `""` + b }, false},
	{"empty-ansi", func(w string) string { return "$''" + w }, false},
	{"concat-single", func(w string) string { a, b := split(w); return "'" + a + "'" + b }, false},
	{"concat-mixed", func(w string) string { a, b := split(w); return `"` + a + `"'` + b + "'" }, false},
	{"continuation", func(w string) string {
		if len(w) < 2 {
			return "\\\n" + w
		}
		return w[:1] + "\\\n" + w[1:]
	}, false},
}
