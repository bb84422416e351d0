// Package fuzzseed seeds native fuzz targets with the repository's own
// files, shared by the fuzz tests of models, models/catalogue and calibrate.
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"
)

// Files adds the contents of every file matching each pattern (relative to
// the test's package) to f's seed corpus; a file that cannot be read fails
// the target.
func Files(f *testing.F, patterns ...string) {
	f.Helper()
	for _, p := range patterns {
		files, err := filepath.Glob(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}
