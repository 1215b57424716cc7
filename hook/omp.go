package hook

import (
	"sort"
	"strings"

	"github.com/rivumi/rivumi/internal/shquote"
)

// OhMyPi is oh-my-pi (`@oh-my-pi/pi-coding-agent`, a fork of pi run by
// Bun; its command is omp).
//
// Measured against oh-my-pi 18.2.3 (its installed source and end-to-end
// runs, docs/agents.md; 18.3.4, the newest, cannot be installed: it
// depends on @oh-my-pi/omp-stats@18.3.4, which is not published):
//
//   - The extension API is pi's (see [Pi]): rivumi's extension goes in the
//     extensions directory of ~/.omp/agent ($PI_CODING_AGENT_DIR when set)
//     or of .omp/ in the directory omp starts in. oh-my-pi runs each
//     tool_call handler under a deadline (extensionHandlers.toolCallTimeoutMs,
//     30 s by default) and blocks the tool when a handler times out or
//     throws.
//   - Tools that run, write or read: bash (`command`, `cwd`, `env`: extra
//     variables for the shell), eval (`language` py or js, `code`: run by
//     Python or JavaScript), write (`path`), edit (`path`, or the paths of
//     its hashline patch, which oh-my-pi gives extensions as `path` and
//     `paths`), ast_edit (`paths`), read (`path`), grep (`path`).
//   - Not judged: ssh, github (gh), browser, computer and the subagent
//     tools (task, vibe_*): their own actions are not tool calls of this
//     session.
const OhMyPi Agent = "omp"

// OhMyPiMatcher selects the tools the oh-my-pi extension sends to rivumi.
const OhMyPiMatcher = "bash|eval|read|write|edit|ast_edit|grep"

func init() {
	registerPiLike(OhMyPi, "PI_CODING_AGENT_DIR", ".omp", "an oh-my-pi session without a UI (print or JSON mode) cannot ask")
	shellTools[OhMyPi]["eval"] = true
	fileTools[OhMyPi]["edit"] = fileTool{op: OpWrite, list: []string{"paths", "path"}}
	fileTools[OhMyPi]["ast_edit"] = fileTool{op: OpWrite, list: []string{"paths"}}
	Matchers[OhMyPi] = OhMyPiMatcher
	p := profiles[OhMyPi]
	p.fixInput = ompInput
	profiles[OhMyPi] = p
}

// ompInput rewrites oh-my-pi's tool inputs as what runs: eval's code as the
// interpreter's command line (python3 -c CODE, node -e CODE), bash's extra
// variables as exports before the command, pi's path spellings.
func ompInput(tool string, in map[string]any) {
	switch tool {
	case "eval":
		code, _ := in["code"].(string)
		interp := "python3 -c "
		if lang, _ := in["language"].(string); lang == "js" {
			interp = "node -e "
		}
		in["command"] = interp + shquote.Word(code)
	case "bash":
		env, _ := in["env"].(map[string]any)
		if len(env) == 0 {
			if in["env"] != nil {
				if _, ok := in["env"].(map[string]any); !ok {
					in["command"] = nil // not an object: refused
				}
			}
			return
		}
		cmd, ok := in["command"].(string)
		if !ok {
			return
		}
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			v, _ := env[k].(string)
			b.WriteString("export " + shquote.Word(k+"="+v) + "; ")
		}
		in["command"] = b.String() + cmd
	default:
		piPaths(tool, in)
	}
}
