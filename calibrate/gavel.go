package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"fairbench/models"
)

// gavelUnconsolidated is the suffix of a Gavel GPU key for spread gangs
// (models.ReadGavelThroughputs reads it).
const gavelUnconsolidated = "_unconsolidated"

// EncodeGavel writes m in the format of Gavel's
// scheduler/simulation_throughputs.json, the format scenarios read with
// `throughputs: FILE` (see models.ReadGavelThroughputs): GPU keys are the
// catalogue names in lower case, as Gavel writes "v100", with
// "_unconsolidated" for spread gangs; job keys are "('<job type>', <gang>)";
// "null" holds the isolated steps/s, other members the co-located pairs.
// Keys are sorted, so the same matrix always gives the same bytes. The
// result is read back with models.ReadGavelThroughputs before it is
// returned, so a file EncodeGavel writes is one scenarios accept.
func EncodeGavel(m *models.Matrix) ([]byte, error) { return EncodeGavelFor(m, nil) }

// EncodeGavelFor is EncodeGavel for a matrix that may name the declared
// GPU types (a scenario reads the file with them declared).
func EncodeGavelFor(m *models.Matrix, declared []GPUDecl) ([]byte, error) {
	ts := typeSet{declared: declared}
	if m.Len() == 0 {
		return nil, fmt.Errorf("calibrate: no throughput figures to write")
	}
	doc := map[string]map[string]map[string]any{}
	jobKey := func(job string, gang int) (string, error) {
		if strings.Contains(job, "'") {
			if strings.Contains(job, `"`) {
				return "", fmt.Errorf("calibrate: job type %q has both quote characters; Gavel's keys cannot hold it", job)
			}
			return fmt.Sprintf(`("%s", %d)`, job, gang), nil
		}
		return fmt.Sprintf("('%s', %d)", job, gang), nil
	}
	gpuKey := func(k models.Key) string {
		g := strings.ToLower(k.GPU)
		if k.Placement == models.Spread {
			g += gavelUnconsolidated
		}
		return g
	}
	for _, k := range m.Keys() {
		f, _ := m.Lookup(k)
		jk, err := jobKey(k.Job, k.Gang)
		if err != nil {
			return nil, err
		}
		g := gpuKey(k)
		if doc[g] == nil {
			doc[g] = map[string]map[string]any{}
		}
		doc[g][jk] = map[string]any{"null": f.Value}
	}
	for _, pk := range m.PairKeys() {
		p, _ := m.Pair(pk)
		jk, err := jobKey(pk.Job, pk.Gang)
		if err != nil {
			return nil, err
		}
		ok, err := jobKey(pk.Other, pk.Gang)
		if err != nil {
			return nil, err
		}
		entry := doc[gpuKey(pk.Key)][jk]
		if entry == nil {
			return nil, fmt.Errorf("calibrate: %v has a co-location pair with %s but no isolated figure; Gavel's format needs one", pk.Key, pk.Other)
		}
		entry[ok] = []float64{p[0], p[1]}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("calibrate: encode throughputs: %w", err)
	}
	if _, err := models.ReadGavelThroughputsFor(bytes.NewReader(buf.Bytes()), "(written)", ts.modelTypes()); err != nil {
		return nil, fmt.Errorf("calibrate: the throughput file written does not read back: %w", err)
	}
	return buf.Bytes(), nil
}
