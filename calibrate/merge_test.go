package calibrate

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"fairbench/models"
)

// TestMergeNewGPUTypeFile: the repository's own Gavel-format file for a
// type the catalogue lacks merges once the type is declared — here by the
// scenario that uses it — and the gpu_types block is written beside it.
func TestMergeNewGPUTypeFile(t *testing.T) {
	t.Parallel()
	const file = "../scenarios/testdata/newgpu/b200.throughputs.json"
	out := filepath.Join(t.TempDir(), "b200.json")
	if _, err := Merge(out, []string{file}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "--gpu-types") {
		t.Fatalf("undeclared B200: %v", err)
	}
	decl, err := ReadGPUTypes("../scenarios/testdata/newgpu/scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Merge(out, []string{file}, MergeOptions{Declared: decl})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(rep.Files); err != nil {
		t.Fatal(err)
	}
	if rep.Added != 2 || len(rep.Declared) != 1 || rep.Record != nil {
		t.Errorf("report %+v", rep)
	}
	block, err := os.ReadFile(GPUTypesPathFor(out))
	if err != nil || !strings.Contains(string(block), "{name: B200, memory_gb: 180, rank: 10") {
		t.Errorf("gpu_types block: %v\n%s", err, block)
	}
	m, err := LoadMatrix(out, decl)
	if err != nil || m.Throughput(models.Key{Job: "ResNet-50 (batch size 64)", GPU: "B200", Gang: 2}) != 55 {
		t.Errorf("merged: %v", err)
	}
	// The declaration read from its file by Merge itself (--gpu-types), and
	// a scenario that uses the output (--scenario) among the files.
	scenario := filepath.Join(filepath.Dir(out), "b200.yaml")
	again, err := Merge(out, []string{file}, MergeOptions{DeclaredFiles: []string{"../scenarios/testdata/newgpu/scenario.yaml"}, Scenario: scenario})
	if err != nil {
		t.Fatal(err)
	}
	if again.Same != 2 || len(again.Declared) != 1 || !reflect.DeepEqual(again.Declared[0], decl[0]) {
		t.Errorf("declared from its file: same %d, declared %+v", again.Same, again.Declared)
	}
	if sc := string(again.Files[scenario]); !strings.Contains(sc, `throughputs: "b200.json"`) || !strings.Contains(sc, "{type: B200, count: 1") {
		t.Errorf("scenario:\n%s", sc)
	}
	if _, err := Merge(out, []string{file}, MergeOptions{DeclaredFiles: []string{"no-such-file.yaml"}}); err == nil || !strings.Contains(err.Error(), "no-such-file.yaml") {
		t.Errorf("a missing declaration file: %v", err)
	}
}

// TestMergeRecords: a record's figures, pairs and memory reach the matrix
// and the merged record; merging the same record again into the output
// (whose own record is read) adds nothing twice.
func TestMergeRecords(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "cal.json")
	rep, err := Merge(out, []string{validRecord}, MergeOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(rep.Files); err != nil {
		t.Fatal(err)
	}
	if rep.Added != 4 || rep.Pairs != 2 || rep.Record == nil || len(rep.Record.Sources) != 1 || len(rep.Memory) != 2 {
		t.Fatalf("report: added %d, pairs %d, record %v, memory %d", rep.Added, rep.Pairs, rep.Record != nil, len(rep.Memory))
	}
	merged, err := ReadRecord(RecordPathFor(out))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Profile != nil || merged.Sources[0].Name != "b200-cpu" || merged.Entries[0].Source != "b200-cpu" || len(merged.Pairs) != 1 {
		t.Errorf("merged record: %+v", merged.Sources)
	}
	again, err := Merge(out, []string{validRecord}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Same != 4 || len(again.Record.Sources) != 1 || len(again.Record.Entries) != 4 {
		t.Errorf("second merge: same %d, %d sources, %d entries", again.Same, len(again.Record.Sources), len(again.Record.Entries))
	}
}

// TestWriteAllIsAllOrNothing: a file that cannot be written leaves no
// other file and no temporary behind; Ctrl-C in the middle is held until
// every file is in place. It signals the whole process, so it does not run
// in parallel with other tests.
func TestWriteAllIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	// b.json's folder is a file: its temporary cannot be written.
	if err := os.WriteFile(filepath.Join(dir, "z"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{filepath.Join(dir, "a.json"): []byte("a"), filepath.Join(dir, "z", "b.json"): []byte("b")}
	if err := WriteAll(files); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.json")); !os.IsNotExist(err) {
		t.Errorf("a.json written although b.json could not be: %v", err)
	}
	assertNoTemps(t, dir)
	ok := map[string][]byte{filepath.Join(dir, "c.json"): []byte("c"), filepath.Join(dir, "d.json"): []byte("d")}
	err := writeAll(ok, func() {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(50 * time.Millisecond) // let the signal arrive
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted: %v", err)
	}
	for p, want := range ok {
		if got, err := os.ReadFile(p); err != nil || string(got) != string(want) {
			t.Errorf("%s: %q %v", p, got, err)
		}
	}
	assertNoTemps(t, dir)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("temporary left: %s", p)
		}
		return nil
	})
}
