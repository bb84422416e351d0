package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadRecord reads arbitrary bytes as a result file (what resume, merge
// and report read back): reading either fails with an error naming the file,
// or gives a record whose canonical encoding reads back to the same bytes.
func FuzzReadRecord(f *testing.F) {
	f.Add([]byte(`{"id":"a1","policy":"fifo","seed":0,"result":{"policy":"fifo","summary":{"jobs":1,"mean_jct_s":3.5},"users":[],"jobs":[{"id":0,"user":"u","jct_s":3.5}],"series":{}}}`))
	f.Add([]byte(`{"id":"a1","result":{"policy_report":{"trades":[1,2]},"summary":{"window":{"from_job":1,"to_job":2}}}}`))
	f.Add([]byte(`{"id":"","result":null}`))
	f.Add([]byte(`{"id":"x","result":{"jobs":[{"id":1e300}]}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := ReadRecord(path)
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		once, err := rec.Encode()
		if err != nil {
			return // e.g. a report that is valid JSON but not re-encodable is refused at write time
		}
		if err := os.WriteFile(path, once, 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ReadRecord(path)
		if err != nil {
			t.Fatalf("a record's own encoding does not read back: %v\n%s", err, once)
		}
		twice, err := again.Encode()
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable (%v):\n%s\n%s", err, once, twice)
		}
	})
}
