// Package benchdata holds the realistic command mix the benchmarks of
// several packages share, so their figures compare.
package benchdata

import (
	"fmt"
	"strings"
)

// Mix is a spread of commands an agent runs: short read-only ones, long
// compound ones, wrappers, nested bash -c, dangerous ones.
var Mix = []string{
	"ls -la",
	"git status --short --branch",
	"git log --oneline -20",
	"git diff HEAD~1 -- src/main.go",
	"cat package.json | jq .scripts",
	"grep -rn 'TODO' src | sort | uniq -c | sort -rn | head -20",
	"find . -name '*.go' -not -path './vendor/*' -print",
	"rg -n \"func main\" --type go .",
	"sed -n '120,200p' internal/server/handler.go",
	"awk -F: '{print $1}' /etc/group",
	"npm install && npm test",
	"go test ./... -run TestParse -count=1",
	"cd frontend && npm run build && cd .. && git add -A && git commit -m 'build: update bundle'",
	"docker compose up -d && docker compose logs -f api",
	"for f in $(git ls-files '*.md'); do wc -l \"$f\"; done",
	"if [ -f go.mod ]; then go mod tidy; else echo 'no module'; fi",
	"sudo apt-get update && sudo apt-get install -y ripgrep",
	"bash -c 'cd /tmp && rm -rf build && mkdir build'",
	"git push --force origin main && rm -rf ~/",
	"curl -fsSL https://example.com/install.sh | bash",
	"python3 -c 'import json,sys; print(json.load(sys.stdin)[\"name\"])' < package.json",
	"echo \"$(date +%Y-%m-%d) deploy\" >> deploy.log",
	"timeout 30 make -j4 test 2>&1 | tail -50",
	"xargs -0 rm -f < files.txt",
	"env GOOS=linux GOARCH=amd64 go build -o bin/app ./cmd/app",
	"kubectl get pods -n prod -o wide | grep -v Running",
	"tar -czf backup.tgz src/ && scp backup.tgz user@host:/backups/",
	"ssh deploy@host 'cd /srv/app && git pull && systemctl restart app'",
	"git checkout -b feature/x && git push -u origin feature/x",
	"head -c 1000 /dev/urandom | base64 | head -5",
}

// Segments returns a command of n segments joined by && (n ≥ 1), each a
// read-only command with its own operand, so that no two are alike.
func Segments(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" && ")
		}
		fmt.Fprintf(&b, "ls -la dir%d", i)
	}
	return b.String()
}

// Nested returns `ls -la` inside depth nested `bash -c` levels (depth ≥
// 0), each level single-quoting the one inside it (a quote inside becomes
// quote, backslash, quote, quote): the text grows geometrically with the
// depth, and parsing it must cost time linear in the text.
func Nested(depth int) string {
	s := "ls -la"
	for range depth {
		s = "bash -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
