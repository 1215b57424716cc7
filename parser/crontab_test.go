package parser

import "testing"

func TestCronCommand(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"* * * * * rm -rf /", "rm -rf /"},
		{"*/5 0-6 * * 1,2\tcd /x && make", "cd /x && make"},
		{"@reboot /usr/bin/x --y", "/usr/bin/x --y"},
		{"0 * * * * rm -rf /tmp/a%line1%line2", "rm -rf /tmp/a"},
		{`0 * * * * date +\%s > /tmp/t`, "date +%s > /tmp/t"},
		{"  # 0 * * * * rm -rf /", ""},
		{"MAILTO=root", ""},
		{"SHELL=/bin/bash", ""},
		{"0 * * *", ""},
		{"", ""},
	} {
		got, ok := cronCommand(tc.line)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.line, got, ok, tc.want)
		}
	}
}
