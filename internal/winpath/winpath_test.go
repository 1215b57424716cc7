package winpath

import "testing"

func TestDrive(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`C:\Users\x\proj\file.go`, "/c/Users/x/proj/file.go", true},
		{`C:/Users/x/proj`, "/c/Users/x/proj", true},
		{`d:\`, "/d/", true},
		{`C:`, "", false},
		{`C:x`, "", false},
		{`/c/Users/x`, "", false},
		{`src\main.go`, "", false},
		{`\\server\share\x`, "", false},
	} {
		got, ok := Drive(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Drive(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestToSlash(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{`C:\Users\x\proj\file.go`, "/c/Users/x/proj/file.go", false},
		{`C:/Users/x/proj/file.go`, "/c/Users/x/proj/file.go", false},
		{`/c/Users/x/proj/file.go`, "/c/Users/x/proj/file.go", false},
		{`src\main.go`, "src/main.go", false},
		{`..\..\outside`, "../../outside", false},
		{`C:\proj\.git.\hooks\pre-commit`, "/c/proj/.git/hooks/pre-commit", false},
		{`C:\proj\.git \config`, "/c/proj/.git/config", false},
		{`C:\proj\a...`, "/c/proj/a", false},
		{`C:\proj\PROGRA~1\x`, "", true},
		{`C:\proj\GIT~1\config`, "", true},
		{`C:\proj\GIT~1.CFG`, "", true},
		{`C:\proj\a~b\x`, "/c/proj/a~b/x", false},
		{`C:\proj\.git::$INDEX_ALLOCATION\hooks\x`, "", true},
		{`C:\proj\f.txt:stream`, "", true},
		{`\\server\share\x`, "", true},
		{`//server/share/x`, "", true},
		{`\\?\C:\x`, "", true},
		{`\\.\pipe\x`, "", true},
		{`C:x`, "", true},
		{`C:`, "", true},
		{`C:\proj\...\x`, "", true},
		{``, "", true},
	} {
		got, err := ToSlash(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ToSlash(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestNative(t *testing.T) {
	for in, want := range map[string]string{
		"/c/Users/x/proj": `C:\Users\x\proj`,
		"/c":              `C:\`,
		"/c/":             `C:\`,
		"/d/x":            `D:\x`,
		"rel/x":           `rel\x`,
	} {
		if got := Native(in); got != want {
			t.Errorf("Native(%q) = %q, want %q", in, got, want)
		}
	}
}
