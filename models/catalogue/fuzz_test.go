package catalogue

// Native fuzz target for the Gavel-format throughput reader
// (docs/limits.md gives the commands).

import (
	"bytes"
	"encoding/json"
	"fairbench/internal/fuzzseed"
	"fmt"
	"strings"
	"testing"

	"fairbench/models"
)

// encodeGavel writes m's isolated figures in Gavel's format.
func encodeGavel(m *models.Matrix) []byte {
	top := map[string]map[string]map[string]any{}
	for _, k := range m.Keys() {
		gpu := strings.ToLower(k.GPU)
		if k.Placement == models.Spread {
			gpu += gavelUnconsolidated
		}
		if top[gpu] == nil {
			top[gpu] = map[string]map[string]any{}
		}
		top[gpu][fmt.Sprintf("('%s', %d)", k.Job, k.Gang)] = map[string]any{gavelIsolated: m.Throughput(k)}
	}
	b, _ := json.Marshal(top)
	return b
}

// FuzzGavelThroughputs reads throughput files: every accepted figure is 0
// or within [MinThroughput, MaxThroughput] with a gang of 1..MaxGPUs, and
// the isolated figures written back in the format read back the same; the
// one-pass reader reads what it accepts as the thorough parser does.
func FuzzGavelThroughputs(f *testing.F) {
	fuzzseed.Files(f, "testdata/*.json", "../../scenarios/testdata/newgpu/*.json")
	f.Add([]byte(`{"v100": {"('A3C', 1)": {"null": 1e26}}}`))
	f.Add([]byte(`{"v100": {"('A3C', 1)": {"null": 1e-300, "('A3C', 1)": [1, 2]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameFast(t, data)
		m, err := ReadGavelThroughputs(bytes.NewReader(data), "f.json")
		if err != nil {
			if !strings.Contains(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, k := range m.Keys() {
			if err := models.CheckThroughput("figure", m.Throughput(k)); err != nil || k.Gang < 1 || k.Gang > models.MaxGPUs {
				t.Fatalf("%v accepted: %v", k, err)
			}
		}
		for _, k := range m.PairKeys() {
			p, _ := m.Pair(k)
			if models.CheckThroughput("pair", p[0]) != nil || models.CheckThroughput("pair", p[1]) != nil {
				t.Fatalf("pair %v = %v accepted", k, p)
			}
		}
		for _, k := range m.Keys() {
			if strings.ContainsAny(k.Job, "'\"") {
				return // not writable with single quotes
			}
		}
		back, err := ReadGavelThroughputs(bytes.NewReader(encodeGavel(m)), "back.json")
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		if back.Len() != m.Len() {
			t.Fatalf("%d figures back, %d read", back.Len(), m.Len())
		}
		for _, k := range m.Keys() {
			if back.Throughput(k) != m.Throughput(k) {
				t.Fatalf("%v: %v back, %v read", k, back.Throughput(k), m.Throughput(k))
			}
		}
	})
}
