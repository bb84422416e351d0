package check

// Native fuzz targets for the files and answers the checker reads: replay
// (instance) files and the exec: policy's answer lines (docs/limits.md
// gives the commands).

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/models/catalogue"
	"fairbench/solvers/registry"
)

// replayPolicies are the policies FuzzReplayFile replays on, picked by the
// input's length: the cheap ones, and those an out-of-range last_gpus used
// to crash.
var replayPolicies = []string{"fifo", "gandiva-fair", "sjf-bsbf", "tiresias", "static-partition", "sjf-ffs"}

// replayTimeout bounds one replay of a tiny instance (at most 16 jobs on
// 64 GPUs); the seeds take milliseconds.
const replayTimeout = 10 * time.Second

// FuzzReplayFile replays instance files the way `check --replay` does:
// whatever the file, decoding either fails or the replay returns a report
// or an error — never a panic or a hang — and a report has one result per
// property.
func FuzzReplayFile(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"servers":[{"type":"V100","count":1,"gpus_per_server":2}],"users":[{"name":"a","weight":1}],"jobs":[{"id":1,"user":"a","gang":1,"steps":10,"last_type":"V100","last_gpus":[9],"throughputs":{"V100":1}}]}`))
	reg := registry.Default()
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := models.DecodeInstance(data, false, catalogue.Builtin().GPUTypes)
		if err != nil {
			return
		}
		gpus := 0
		for _, s := range in.Servers {
			gpus += s.Count * s.GPUs
		}
		if len(in.Jobs) > 16 || len(in.Users) > 8 || gpus > 64 {
			return // keep each replay fast; decoding was the edge under test
		}
		subj, err := SubjectOf(reg, replayPolicies[len(data)%len(replayPolicies)], nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Props: []string{Feasible, EnvyFree}, Bound: -1, Cases: 1}
		type outcome struct {
			rep *Report
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			rep, err := Replay(subj, in, cfg)
			done <- outcome{rep, err}
		}()
		select {
		case o := <-done:
			if o.err == nil && len(o.rep.Results) != 2 {
				t.Fatalf("%d results for 2 properties", len(o.rep.Results))
			}
		case <-time.After(replayTimeout):
			t.Fatalf("replay of %s on this instance did not end within %v", subj.Name, replayTimeout)
		}
	})
}

// FuzzExecAnswer parses answer lines of an external policy: a line is
// either refused as malformed (or an error answer), or gives an allocation
// that encodes to JSON again.
func FuzzExecAnswer(f *testing.F) {
	f.Add([]byte(`{"id": 1, "allocation": {"run": [{"job": 1, "type": "V100"}]}}` + "\n"))
	f.Add([]byte(`{"id": 1, "allocation": {"fractions": {"1": {"V100": 0.5}}}}`))
	f.Add([]byte(`{"id": 1, "error": "no"}`))
	f.Add([]byte(`{"id": 1, "allocation": {}} {"id": 2}`))
	f.Add([]byte(`{"id": 2, "allocation": {"run": [{"job": 1, "type": "V100", "gpus": [-1, 99999999999]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		x := &External{cmd: "fuzz", id: 1}
		a, err := x.parse(line)
		if err != nil {
			var ee *ExternalError
			if !errors.As(err, &ee) || (ee.Kind != "malformed" && ee.Kind != "error") {
				t.Fatalf("error %v is not a malformed or error answer", err)
			}
			return
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("accepted allocation does not encode: %v", err)
		}
	})
}

// FuzzBaseline reads arbitrary bytes as a baseline file (the CI gate's
// input): reading either fails with an error, or gives a baseline whose own
// encoding reads back to the same bytes and that compares against an empty
// matrix without panicking.
func FuzzBaseline(f *testing.F) {
	if b, err := os.ReadFile("baseline.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"format":"fairbench-baseline/1","budget":{},"claims":[]}`))
	f.Add([]byte(`{"format":"fairbench-baseline/1","claims":[{"policy":"p","property":"envy-free","status":"holds","unconditional":"violated"}]}`))
	f.Add([]byte(`{"format":"x"}{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBaseline(bytes.NewReader(data))
		if err != nil {
			return
		}
		once, err := b.JSON()
		if err != nil {
			t.Fatalf("a baseline that was read does not encode: %v", err)
		}
		again, err := ReadBaseline(bytes.NewReader(once))
		if err != nil {
			t.Fatalf("a baseline's own encoding does not read back: %v\n%s", err, once)
		}
		twice, err := again.JSON()
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable (%v):\n%s\n%s", err, once, twice)
		}
		_ = again.Compare(&Matrix{})
	})
}
