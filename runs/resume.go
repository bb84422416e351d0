package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"fairbench/internal/input"
)

// Complete reads the result of run id from dir and reports whether it is
// complete: the record parses, names the run, carries one result per job its
// summary counts, and its per-job CSV is there with a row per job. Write
// writes the record last, so a record that passes was written after
// everything else of its run.
func Complete(dir, id string) (*Record, bool) {
	rec, err := ReadRecord(filepath.Join(dir, id+".json"))
	if err != nil || rec.ID != id || len(rec.Result.Jobs) != rec.Result.Summary.Jobs {
		return nil, false
	}
	csv, err := input.ReadFile(filepath.Join(dir, id+".jobs.csv"), input.MaxRecordBytes)
	if err != nil || bytes.Count(csv, []byte("\n")) != rec.Result.Summary.Jobs+1 {
		return nil, false
	}
	return rec, true
}

// removeTemps deletes temporary files a killed process left for run id (the
// files WriteFileAtomic writes before renaming). Only the process running id
// writes them, so no one else's are touched.
func removeTemps(dir, id string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "."+id+".") && strings.Contains(n, ".tmp-") {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
