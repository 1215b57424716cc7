package cli

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
)

// BenchmarkPolicyTest runs `rivumi policy test` over the project's
// testcases through the in-process CLI: loading and compiling the policy,
// the Rego unit tests and every YAML testcase, as a contributor's run does
// (the process start-up aside). One op is one whole run; cases/op is the
// number of testcases and tests it graded.
func BenchmarkPolicyTest(b *testing.B) {
	ctx := context.Background()
	args := []string{"policy", "test", "--no-config", "--format", "text", "../../testcases"}
	summary := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)
	var out bytes.Buffer
	cases := 0
	start := benchdata.CPUNanos()
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		code := Main(ctx, args, Stdio{In: bytes.NewReader(nil), Out: &out, Err: io.Discard})
		switch code {
		case ExitOK:
		case ExitTestFailed:
			// Still a full run; say so, the figure stays meaningful.
			b.Logf("policy test: some tests failed (exit %d)", code)
		default:
			b.Fatalf("policy test: exit %d\n%s", code, out.String())
		}
		if m := summary.FindStringSubmatch(out.String()); m != nil {
			p, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			cases = p + f
		}
	}
	b.ReportMetric(float64(cases), "cases/op")
	b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(b.N)/1e9, "cpu-sec/op")
}
