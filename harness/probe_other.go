//go:build !linux

package harness

import "errors"

const (
	probeArg      = "__rivumi_contract_probe__"
	probeEnvValue = "probe-v1"
)

type probeSpec struct {
	AllowNet bool     `json:"allow_net"`
	Hidden   []string `json:"hidden"`
	Visible  []string `json:"visible"`
}

func runProbeChild(string) {}

func probeContract(probeSpec) error { return errors.New("the contract probe is Linux only") }
