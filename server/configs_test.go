package server_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
)

// One server, several configurations: each request gets the engine of its
// own directory's configuration, compiled once per identity, at most size
// of them kept, and a configuration that fails to load denies and is
// tried again.
func TestWithConfigs(t *testing.T) {
	ctx := context.Background()
	base := sharedEngine(t)
	team, err := engine.New(ctx, engine.UserModule("team.rego",
		"package rivumi.user\n\n# METADATA\n# title: No cows\n# custom:\n#   id: team.no-cowsay\n#   justification: No cows.\n"+
			"deny contains {\"id\": \"team.no-cowsay\"} if input.segment.program == \"cowsay\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var loads sync.Map // id → *atomic.Int32
	count := func(id string) int32 {
		n, _ := loads.LoadOrStore(id, new(atomic.Int32))
		return n.(*atomic.Int32).Load()
	}
	find := func(_ context.Context, dir string) (string, server.LoadFunc, error) {
		id := "id:" + dir
		return id, func(context.Context) (*engine.Engine, error) {
			n, _ := loads.LoadOrStore(id, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
			switch dir {
			case "/a":
				return team, nil
			case "/broken":
				return nil, errors.New("broken.yaml:3: bad rule")
			}
			return base, nil
		}, nil
	}
	s, err := server.New(ctx, staticLoad(base), server.WithConfigs(find, 2))
	if err != nil {
		t.Fatal(err)
	}
	grade := func(dir string) server.Response {
		r := server.Text("cowsay hi")
		r.Cwd = dir
		return s.Grade(ctx, &r, "test")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := grade("/a"); v.Decision != engine.Deny {
				t.Errorf("/a: %v", v.Verdict)
			}
		}()
	}
	wg.Wait()
	if n := count("id:/a"); n != 1 {
		t.Errorf("/a compiled %d times by 8 concurrent requests, want 1", n)
	}
	if v := grade("/b"); v.Decision != engine.Ask {
		t.Errorf("/b: %v", v.Verdict)
	}
	grade("/c") // evicts /a (size 2)
	if v := grade("/a"); v.Decision != engine.Deny || count("id:/a") != 2 {
		t.Errorf("/a after eviction: %v, %d loads", v.Verdict, count("id:/a"))
	}
	for i := range 2 {
		v := grade("/broken")
		if v.Decision != engine.Deny || v.Reasons[0].Rule != server.RulePolicyError {
			t.Errorf("/broken: %v", v.Verdict)
		}
		if n := count("id:/broken"); n != int32(i+1) {
			t.Errorf("/broken loaded %d times after %d requests: a failure must not be kept", n, i+1)
		}
	}
}
