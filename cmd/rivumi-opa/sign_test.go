package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/opabuiltin"
)

// TestSignedBundleVerified: rivumi-opa, given the public key, serves a
// bundle signed by rivumi's signing code and refuses one without a
// signature or signed by another key.
func TestSignedBundleVerified(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the rivumi-opa server test (it builds OPA's command line)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := rivumiOPA(t)
	priv, pub := rsaPair(t, dir, "fleet")
	other, _ := rsaPair(t, dir, "other")
	src, err := engine.LoadSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, key string) string {
		b, err := opabuiltin.Bundle(src)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			if err := opabuiltin.Sign(b, opabuiltin.Signing{Key: key}); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		if err := opabuiltin.Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	signed, unsigned, wrong := write("signed.tar.gz", priv), write("unsigned.tar.gz", ""), write("wrong.tar.gz", other)

	addr := freeAddr(t)
	srv := exec.Command(bin, "run", "--server", "--addr", addr, "--bundle", signed, "--verification-key", pub, "--log-level", "error")
	var logs lockedBuffer
	srv.Stderr, srv.Stdout = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitHealthy(t, "http://"+addr+"/health?bundles")
	resp, err := http.Post("http://"+addr+"/v1/data/rivumi/entry/decision", "application/json", strings.NewReader(`{"input": {"command": "rm -rf /"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Result string }
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if got.Result != "deny" {
		t.Errorf("signed bundle: rm -rf / is %q\n%s", got.Result, logs.String())
	}

	for _, bad := range []string{unsigned, wrong} {
		cmd := exec.Command(bin, "run", "--server", "--addr", freeAddr(t), "--bundle", bad, "--verification-key", pub, "--log-level", "error")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: rivumi-opa exited 0", filepath.Base(bad))
			}
			if !strings.Contains(strings.ToLower(out.String()), "signature") && !strings.Contains(strings.ToLower(out.String()), "verif") {
				t.Errorf("%s: no word about the signature:\n%s", filepath.Base(bad), out.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%s: rivumi-opa kept running with a bundle that does not verify", filepath.Base(bad))
		}
	}
}

func rsaPair(t *testing.T, dir, name string) (priv, pub string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".pub.pem")
	os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600)
	os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	return priv, pub
}
