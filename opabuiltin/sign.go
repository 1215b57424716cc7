package opabuiltin

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Signing is how [Sign] signs a bundle, as `opa build --signing-key` does.
type Signing struct {
	// Key is a PEM private key (RS*, PS*, ES*) or an HMAC secret (HS*),
	// or the name of a file holding one.
	Key string
	// Algorithm is the JWT algorithm (default RS256, OPA's).
	Algorithm string
	// KeyID, when set, is the token's "keyid" claim: the key a verifier
	// picks (`--verification-key-id`, OPA's default "default").
	KeyID string
	// ClaimsFile, when set, is a JSON file of extra claims (e.g. scope).
	ClaimsFile string
}

// Sign adds .signatures.json to b: a JWT over the SHA-256 of every file
// (the manifest, data.json, each module by its bundle path), which OPA
// checks before activating the bundle when it is given a verification key
// (`rivumi-opa run --verification-key`, or `keys` + `bundles.*.signing` in
// its configuration). Call it after the bundle is complete.
func Sign(b *bundle.Bundle, s Signing) error {
	if s.Key == "" {
		return errors.New("signing: no key")
	}
	// A key that is neither a file nor PEM text is an HMAC secret, for HS*
	// only: a mistyped key file name must not become an RSA "key".
	if _, err := os.Stat(s.Key); err != nil && !looksLikeKey(s.Key) && !strings.HasPrefix(s.Algorithm, "HS") {
		return fmt.Errorf("signing key: %v", err)
	}
	sc := bundle.NewSigningConfig(s.Key, s.Algorithm, s.ClaimsFile)
	if _, err := sc.GetPrivateKey(); err != nil {
		return fmt.Errorf("signing key: %v", err)
	}
	if err := b.GenerateSignature(sc, s.KeyID, true); err != nil {
		return fmt.Errorf("signing: %v", err)
	}
	return nil
}

func looksLikeKey(s string) bool {
	return len(s) > 10 && s[:10] == "-----BEGIN"
}
