package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"fairbench/internal/atomicfile"
	"fairbench/internal/input"

	"fairbench/scenarios"
)

// Manifest lists every run of a grid, so that a merge of shard outputs can
// say which runs are missing. Every shard of a grid writes the same manifest,
// named by a hash of the grid's run IDs.
type Manifest struct {
	Grid      string          `json:"grid"`
	Fairbench string          `json:"fairbench"`
	Runs      []ManifestEntry `json:"runs"`
}

// ManifestEntry is one run of the grid.
type ManifestEntry struct {
	ID     string `json:"id"`
	Policy string `json:"policy"`
	Seed   int64  `json:"seed"`
}

// GridID is the first 12 hex digits of the SHA-256 of the grid's sorted run
// IDs.
func GridID(runs []scenarios.Run) string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	return hex.EncodeToString(sum[:6])
}

// ManifestName is the file name of a grid's manifest.
func ManifestName(gridID string) string { return "manifest-" + gridID + ".json" }

// WriteManifest writes the manifest of runs (the whole grid, also when only
// a shard of it runs here) into dir.
func WriteManifest(dir string, runs []scenarios.Run, version string) error {
	m := Manifest{Grid: GridID(runs), Fairbench: version}
	for _, r := range runs {
		m.Runs = append(m.Runs, ManifestEntry{ID: r.ID, Policy: r.Policy, Seed: r.Seed})
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ManifestName(m.Grid)), append(b, '\n'))
}

// readManifest reads one manifest file.
func readManifest(path string) (*Manifest, error) {
	b, err := input.ReadFile(path, input.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := jsonUnmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
