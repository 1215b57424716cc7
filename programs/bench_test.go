package programs_test

import (
	"testing"

	"github.com/rivumi/rivumi/programs"
)

// BenchmarkParse is the start-up cost of the registry (paid once per
// process, on first use).
func BenchmarkParse(b *testing.B) {
	src := programs.Source()
	for i := 0; i < b.N; i++ {
		if _, err := programs.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
