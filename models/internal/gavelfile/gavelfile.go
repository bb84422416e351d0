// Package gavelfile is what the catalogue generators (gencatalogue and
// genpairs) share: the layout of the Gavel artifact's
// scheduler/simulation_throughputs.json (Narayanan et al., OSDI 2020, MIT)
// and the generators' command line. Like the generators, it does not import
// the models package, so they run even when a generated file is missing or
// broken.
package gavelfile

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"fairbench/internal/atomicfile"
)

// File is Gavel's layout: GPU key → job key → member ("null" for the
// isolated figure, or another job key for a co-location pair) → value.
type File map[string]map[string]map[string]json.RawMessage

// Parse decodes a simulation_throughputs.json.
func Parse(data []byte) (File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return f, nil
}

// gpuNames are the consolidated GPU keys of Gavel's file and their
// catalogue names.
var gpuNames = map[string]string{"k80": "K80", "p100": "P100", "v100": "V100"}

// GPU is a GPU key's catalogue name (k80 → K80) and whether the key is the
// spread variant (k80_unconsolidated).
func GPU(key string) (name string, spread bool, err error) {
	base, spread := strings.CutSuffix(key, "_unconsolidated")
	name, ok := gpuNames[base]
	if !ok {
		return "", false, fmt.Errorf("unexpected GPU key %q", key)
	}
	return name, spread, nil
}

// jobKey matches Gavel's "('<job type>', <scale factor>)".
var jobKey = regexp.MustCompile(`^\('([^']+)', ([1-9][0-9]*)\)$`)

// JobKey splits a job key "('<job type>', <scale factor>)" into the job
// type and the scale factor (the gang).
func JobKey(k string) (string, int, error) {
	m := jobKey.FindStringSubmatch(k)
	if m == nil {
		return "", 0, fmt.Errorf("malformed job key %q", k)
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, fmt.Errorf("malformed job key %q: %w", k, err)
	}
	return m[1], n, nil
}

// Main is a generator's command line: -in names Gavel's file, -out the Go
// file to write, whole or not at all, with what generate makes of the
// file's content. Errors go to stderr, prefixed with the command's name,
// and end the process (status 2 for bad usage, 1 otherwise).
func Main(name, out string, generate func(data []byte) ([]byte, error)) {
	in := flag.String("in", "", "Gavel simulation_throughputs.json to read")
	dst := flag.String("out", "", "Go file to write")
	flag.Parse()
	if *in == "" || *dst == "" {
		fmt.Fprintf(os.Stderr, "usage: %s -in simulation_throughputs.json -out %s\n", name, out)
		os.Exit(2)
	}
	if err := Run(*in, *dst, generate); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// Run reads in, generates and writes out; errors in reading or generating
// name in.
func Run(in, out string, generate func(data []byte) ([]byte, error)) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	src, err := generate(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return atomicfile.Write(out, src)
}
