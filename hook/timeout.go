package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The agent kills a hook that outlives its timeout, and Claude Code and
// Codex then run the tool (Gemini CLI too when the hook dies by a signal).
// So the agent's timeout must exceed the longest rivumi can take:
//
//   - the full binary: its deadline (--timeout, DefaultTimeout), plus
//     StartSlack for starting the process and writing the answer;
//   - the thin client (rivumi-hook): it waits the deadline plus
//     ThinRelayMargin for the server, and when the server fails without
//     answering it runs the full binary, which has the deadline again.

// ThinRelayMargin is how much longer than the hook's deadline the thin
// client waits for the server (cmd/rivumi-hook).
const ThinRelayMargin = time.Second

// StartSlack is the time allowed for starting the hook process and
// writing its answer, beyond its deadline.
const StartSlack = time.Second

// MinAgentTimeout returns the shortest agent timeout that never cuts
// rivumi off: the agent's timeout must be at least this.
func MinAgentTimeout(deadline time.Duration, thin bool) time.Duration {
	m := deadline + StartSlack
	if thin {
		m += deadline + ThinRelayMargin
	}
	return m
}

// AgentTimeout returns the timeout the agent applies to the entry as it
// writes it: whole seconds for Claude Code and Codex, milliseconds for
// Gemini CLI.
func (e Entry) AgentTimeout() time.Duration {
	if e.Agent == Gemini || profiles[e.Agent].plugin != "" {
		return e.Timeout.Truncate(time.Millisecond)
	}
	return e.Timeout.Truncate(time.Second)
}

// agentDefaultTimeout is the agent's timeout for a hook that sets none.
var agentDefaultTimeout = map[Agent]time.Duration{
	ClaudeCode: 60 * time.Second,
	Gemini:     60 * time.Second,
	Codex:      600 * time.Second,
}

// TimeoutProblem returns why the installed entry e lets agent cut rivumi
// off ("" when it does not): its timeout (the agent's default when it
// sets none) against the deadline and the binary its command runs.
func TimeoutProblem(agent Agent, e Installed) string {
	agentTO := agentDefaultTimeout[agent]
	if p, ok := profiles[agent]; ok {
		agentTO = p.defaultTimeout
	}
	switch t := e.Hook["timeout"].(type) {
	case nil:
	case json.Number:
		n, err := t.Int64()
		if err != nil || n < 0 {
			return fmt.Sprintf("timeout %v is not a whole number", t)
		}
		if agent == Gemini || agent == Qwen && n >= 1000 || profiles[agent].plugin != "" {
			// Qwen Code reads 1000 and more as the old form, milliseconds.
			agentTO = time.Duration(n) * time.Millisecond
		} else {
			agentTO = time.Duration(n) * time.Second
		}
	default:
		return fmt.Sprintf("timeout %v is not a number", t)
	}
	deadline, thin, err := commandDeadline(e.Command, agent)
	if err != nil {
		return err.Error()
	}
	if min := MinAgentTimeout(deadline, thin); agentTO < min {
		return fmt.Sprintf("the agent's timeout %v does not exceed rivumi's %v (deadline %v%s): a slow grading is cut off and the agent runs the tool", agentTO, min, deadline, map[bool]string{true: ", thin client relay and fallback", false: ""}[thin])
	}
	return ""
}

// commandDeadline reads the hook's deadline (--timeout, else
// DefaultTimeout) from a `rivumi hook AGENT …` command line, and whether
// it runs the thin client.
func commandDeadline(command string, agent Agent) (time.Duration, bool, error) {
	f := strings.Fields(command)
	deadline, thin := DefaultTimeout, false
	for i := 0; i+2 < len(f); i++ {
		if f[i+1] != "hook" || f[i+2] != string(agent) {
			continue
		}
		thin = strings.HasPrefix(filepath.Base(strings.Trim(f[i], `'"`)), "rivumi-hook")
		rest := f[i+3:]
		for j := 0; j < len(rest); j++ {
			w := strings.Trim(rest[j], `'"`)
			var v string
			switch {
			case w == "--":
				j = len(rest)
				continue
			case w == "--timeout" || w == "-timeout":
				if j+1 >= len(rest) {
					return 0, thin, fmt.Errorf("--timeout without a value in %q", command)
				}
				j++
				v = strings.Trim(rest[j], `'"`)
			case strings.HasPrefix(w, "--timeout=") || strings.HasPrefix(w, "-timeout="):
				_, v, _ = strings.Cut(w, "=")
			default:
				continue
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return 0, thin, fmt.Errorf("hook --timeout %q is not a duration", v)
			}
			deadline = d
		}
		return deadline, thin, nil
	}
	return deadline, thin, nil
}

// CommandArgs returns the hook flags of an installed command line: the
// words after `PROGRAM hook AGENT`, unquoted. Only plain words are read
// (as [HookCommand] writes them: bare, '…', "…" or $'…'); a line with
// anything a shell would expand or treat as an operator, or without
// `hook AGENT`, is an error.
func CommandArgs(command string, agent Agent) ([]string, error) {
	words, err := splitWords(command)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", command, err)
	}
	for i := 0; i+2 < len(words); i++ {
		if words[i+1] == "hook" && words[i+2] == string(agent) {
			return words[i+3:], nil
		}
	}
	return nil, fmt.Errorf("%q does not run `hook %s`", command, agent)
}

// splitWords splits a command line of plain words as a POSIX shell reads
// it, refusing expansions and operators.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated '")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			i += 2
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] != '\\' {
					w.WriteByte(s[i])
					continue
				}
				if i+1 >= len(s) {
					return nil, errors.New("unterminated $'")
				}
				i++
				switch s[i] {
				case 'x':
					if i+2 >= len(s) {
						return nil, errors.New("short \\x escape")
					}
					var b byte
					if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &b); err != nil {
						return nil, errors.New("bad \\x escape")
					}
					w.WriteByte(b)
					i += 2
				case '\\', '\'', '"':
					w.WriteByte(s[i])
				default:
					return nil, fmt.Errorf("escape \\%c", s[i])
				}
			}
			if i >= len(s) {
				return nil, errors.New("unterminated $'")
			}
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '$', '`':
					return nil, errors.New("an expansion in \"…\"")
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
						i++
					}
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated \"")
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a trailing \\")
			}
			i++
			w.WriteByte(s[i])
		case strings.IndexByte("$`;&|<>(){}*?[]~#!", c) >= 0:
			return nil, fmt.Errorf("%q is not a plain word character", c)
		default:
			w.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
