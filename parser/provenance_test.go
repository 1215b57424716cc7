package parser

import (
	"strings"
	"testing"
)

func TestProvenanceDownloads(t *testing.T) {
	tests := []struct {
		in, seg string // the segment (argv joined) that runs the file
		want    bool   // tagged runs-downloaded
	}{
		{"cd /tmp && wget x.sh && chmod +x x.sh && ./x.sh", "./x.sh", true},
		{"wget example.com/x.sh && bash x.sh", "bash x.sh", true},
		{"wget -P /tmp https://x/a.sh && sh /tmp/a.sh", "sh /tmp/a.sh", true},
		{"git clone https://x/y.git ~/.dotfiles && ~/.dotfiles/install.sh", "~/.dotfiles/install.sh", true},
		{"git clone https://x/y.git && cd y && ./install.sh", "./install.sh", true},
		{"git clone git@x:o/y.git && sh y/install.sh", "sh y/install.sh", true},
		{"git clone https://x/y.git d && cd d && ./run", "./run", true},
		{"curl -o x.sh https://x/a && cp x.sh y.sh && ./y.sh", "./y.sh", true},
		{"curl -o x.sh https://x/a && mv x.sh /tmp/y && /tmp/y", "/tmp/y", true},
		{"curl -o x.sh https://x/a && ln -s x.sh y && ./y", "./y", true},
		{"git clone https://x/y.git d && cp -r d /tmp/e && /tmp/e/install.sh", "/tmp/e/install.sh", true},
		{"git -C /tmp clone https://x/y.git && /tmp/y/install.sh", "/tmp/y/install.sh", true},
		{"git -C /tmp clone https://x/y.git && ./y/install.sh", "./y/install.sh", false},
		// Unknown or other provenance: as before.
		{"git clone https://x/y.git d && ./install.sh", "./install.sh", false},
		{"wget https://x/a.sh && cd /tmp && ./a.sh", "./a.sh", false}, // another directory
		{"cp /bin/ls l && ./l", "./l", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := mustParse(t, tc.in, Workspace("/w"), Cwd("/w"), Home("/home/u"))
			found := false
			for _, s := range c.Segments {
				if strings.Join(s.Argv, " ") == tc.seg {
					found = true
					if got := s.HasTag(TagRunsDownloaded); got != tc.want {
						t.Errorf("runs-downloaded = %v, want %v (tags %q)", got, tc.want, s.Tags)
					}
				}
			}
			if !found {
				t.Errorf("no segment %q in %q", tc.seg, argvs(c))
			}
		})
	}
}

func TestProvenanceCopiesAndLinks(t *testing.T) {
	tests := []struct {
		in, argv, class string
		want            bool
	}{
		// A copy or link of a program runs as that program.
		{"cp /bin/sh /tmp/x && /tmp/x -c 'rm -rf ~'", "rm -rf ~", ClassHome, true},
		{"cp /bin/sh /tmp/ && /tmp/sh -c 'rm -rf ~'", "rm -rf ~", ClassHome, true},
		{"ln -s /bin/sh x && ./x -c 'rm -rf /'", "rm -rf /", ClassRoot, true},
		{"install -m755 /bin/bash /tmp/b && /tmp/b -c 'rm -rf ~'", "rm -rf ~", ClassHome, true},
		{"cp /bin/rm /tmp/x && cp /tmp/x y && ./y -rf /", "/bin/rm -rf /", ClassRoot, true},
		// Writes and reads through a link made earlier reach its target.
		{"ln -sf /dev/sda out.img && dd if=/dev/zero of=out.img", "dd if=/dev/zero of=out.img", ClassDevice, true},
		{"cp -s /dev/sda x && dd if=/dev/zero of=x", "dd if=/dev/zero of=x", ClassDevice, true},
		{"ln -s ~ h && rm -rf h/", "rm -rf h/", ClassHome, true},
		{"ln -s ~ h && rm -rf h/.", "rm -rf h/.", ClassHome, true},
		{"ln -s / r && rm -rf r/etc", "rm -rf r/etc", ClassSystemTop, true},
		{"ln -s $HOME h && rm -rf h/", "rm -rf h/", ClassHome, true},
		{"cd /tmp && ln -s /etc e && cd /w && rm -rf /tmp/e/", "rm -rf /tmp/e/", ClassSystemTop, true},
		{"ln -s / r; rm -rf r/*", "rm -rf r/*", ClassRoot, true},
		{"ln -s / r && cd r/etc && rm -rf *", "rm -rf *", ClassSystemTop, true},
		{"ln -s / a && mv a b && rm -rf b/", "rm -rf b/", ClassRoot, true},
		{"ln -s ~ h && ln -sf /tmp h", "ln -sf /tmp h", ClassHomeSub, true}, // h is a directory to ln: ~/tmp
		// rm, mv and ln of the link itself leave the target alone.
		{"ln -s ~ h && rm -rf h", "rm -rf h", ClassWorkspace, true},
		{"ln -s / a && mv a b", "mv a b", ClassRoot, false},
		// A relative symlink target is read from the link's directory.
		{"ln -s ../../etc sub/e && rm -rf sub/e/", "rm -rf sub/e/", ClassSystemTop, true}, // /w/sub/../../etc
		{"ln -s ../w2/x e && rm -rf e/", "rm -rf e/", ClassOutside, true},                 // /w/../w2/x
		// A copy is not a link: writing it leaves the source alone.
		{"cp /etc/hosts h && echo x > h", "echo x", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := mustParse(t, tc.in, Workspace("/w"), Cwd("/w"), Home("/home/u"))
			got := false
			for _, s := range c.Segments {
				if strings.Join(s.Argv, " ") != tc.argv {
					continue
				}
				if tc.class == "" {
					got = true
					for _, w := range s.Writes {
						if w.Class != ClassWorkspace {
							t.Errorf("write %q classed %s, want workspace", w.Text, w.Class)
						}
					}
					continue
				}
				for _, w := range append(s.Writes, s.Operands...) {
					if w.Class == tc.class {
						got = true
					}
				}
			}
			if got != tc.want {
				t.Errorf("segment %q with a %s path present = %v, want %v; segments %q", tc.argv, tc.class, got, tc.want, argvs(c))
			}
		})
	}
}
