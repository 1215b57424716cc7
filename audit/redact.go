package audit

import (
	"regexp"
	"strings"
)

// Redacted replaces every secret that [Redact] finds.
const Redacted = "[REDACTED]"

var (
	pemKey = regexp.MustCompile(`-----BEGIN[ A-Z0-9]*PRIVATE KEY-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY-----|$)`)

	// Tokens recognisable by their prefix, wherever they appear.
	knownTokens = regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}`,                         // GitHub
		`github_pat_[A-Za-z0-9_]{16,}`,                                     // GitHub fine-grained
		`sk-ant-[A-Za-z0-9_\-]{8,}`,                                        // Anthropic
		`sk-[A-Za-z0-9_\-]{16,}`,                                           // OpenAI and others
		`(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}`,          // AWS key ids
		`xox[abposr]-[A-Za-z0-9\-]{8,}`,                                    // Slack
		`glpat-[A-Za-z0-9_\-]{16,}`,                                        // GitLab
		`AIza[0-9A-Za-z_\-]{30,}`,                                          // Google
		`npm_[A-Za-z0-9]{30,}`,                                             // npm
		`hf_[A-Za-z0-9]{30,}`,                                              // Hugging Face
		`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, // JWT
	}, "|") + `)`)

	// Header lines whose whole value is a credential.
	headers = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|private-token|cookie|set-cookie)(\s*:\s*)[^\r\n'"]+`)
	// Bearer/Basic credentials outside a header line.
	schemes = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{8,}`)
	// name=value where the name looks secret (decided by secretName).
	assignment = regexp.MustCompile(`([A-Za-z0-9_.\-]+)(=)("[^"]*"|'[^']*'|[^\s&;'"]+)`)
	// scheme://user:password@host
	urlPassword = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*):[^@\s/]+@`)
)

// Redact returns s with the secrets it recognises replaced by [Redacted].
func Redact(s string) string {
	if s == "" {
		return s
	}
	s = pemKey.ReplaceAllString(s, Redacted)
	s = knownTokens.ReplaceAllString(s, Redacted)
	s = headers.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = schemes.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = urlPassword.ReplaceAllString(s, "${1}:"+Redacted+"@")
	s = assignment.ReplaceAllStringFunc(s, func(m string) string {
		sub := assignment.FindStringSubmatch(m)
		if !secretName(sub[1]) || sub[3] == Redacted {
			return m
		}
		return sub[1] + sub[2] + Redacted
	})
	return s
}

// RedactArgv redacts each argument with [Redact] and, after an option that
// takes a secret as its next argument (--password VALUE, --token VALUE,
// curl's -u USER:PASS), that argument too. It returns a new slice.
func RedactArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Redact(a)
		if i == 0 {
			continue
		}
		prev := argv[i-1]
		switch {
		case strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && secretName(strings.TrimLeft(prev, "-")):
			out[i] = Redacted
		case (prev == "-u" || prev == "--user" || prev == "--proxy-user") && strings.Contains(a, ":"):
			user, _, _ := strings.Cut(a, ":")
			out[i] = user + ":" + Redacted
		}
	}
	return out
}

// Words that make a name secret wherever they appear in it (PGPASSWORD,
// GITHUB_TOKEN, client_secret), and words that do only as a whole
// component (MYSQL_PWD, NPM_AUTH, but not "author").
var (
	secretSubstrings = []string{"token", "secret", "password", "passwd", "passphrase", "credential", "apikey", "privatekey", "accesskey"}
	secretComponents = map[string]bool{"pwd": true, "pass": true, "auth": true, "pat": true, "cookie": true, "key": false}
	secretPairs      = [][2]string{{"api", "key"}, {"access", "key"}, {"private", "key"}, {"secret", "key"}, {"signing", "key"}, {"session", "key"}, {"client", "secret"}}
)

// secretName reports whether an option or variable name looks like it
// holds a secret.
func secretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	if n == "" {
		return false
	}
	for _, w := range secretSubstrings {
		if strings.Contains(n, w) {
			return true
		}
	}
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, p := range parts {
		if secretComponents[p] {
			return true
		}
		if i > 0 {
			for _, pair := range secretPairs {
				if parts[i-1] == pair[0] && p == pair[1] {
					return true
				}
			}
		}
	}
	return false
}
