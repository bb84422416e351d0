package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"fairbench/models"
	"fairbench/models/catalogue"
)

// fmtFingerprint is catalogueFingerprint written with fmt, as it first was:
// the run IDs of every result written since depend on its bytes.
func fmtFingerprint(cat catalogue.Catalog) string {
	var b bytes.Buffer
	for _, t := range cat.GPUTypes {
		fmt.Fprintf(&b, "gpu\t%s\t%g\t%d\n", t.Name, t.MemoryGB, t.Rank)
	}
	for _, t := range cat.JobTypes {
		fmt.Fprintf(&b, "job\t%s\t%s\t%d\t%g\t%g\t%g\n", t.Name, t.Model, t.BatchSize, t.MemoryGB, t.StateGB, t.EpochSamples)
	}
	for _, k := range cat.Matrix.Keys() {
		fmt.Fprintf(&b, "iso\t%s\t%s\t%d\t%d\t%g\n", k.Job, k.GPU, k.Gang, k.Placement, cat.Matrix.Throughput(k))
	}
	for _, k := range cat.Matrix.PairKeys() {
		p, _ := cat.Matrix.Pair(k)
		fmt.Fprintf(&b, "pair\t%s\t%s\t%d\t%d\t%s\t%g\t%g\n", k.Job, k.GPU, k.Gang, k.Placement, k.Other, p[0], p[1])
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// TestCatalogueFingerprintAsFmtWroteIt: the built-in catalogue and
// catalogues of random figures (every magnitude a figure may take, whole
// numbers, gangs and placements) hash as the fmt version did.
func TestCatalogueFingerprintAsFmtWroteIt(t *testing.T) {
	if got, want := catalogueFingerprint(catalogue.Builtin()), fmtFingerprint(catalogue.Builtin()); got != want {
		t.Fatalf("built-in catalogue: %s, fmt wrote %s", got, want)
	}
	rng := rand.New(rand.NewSource(1))
	figure := func() float64 {
		switch rng.Intn(4) {
		case 0:
			return 0
		case 1:
			return float64(rng.Intn(1000))
		default: // between MinThroughput and MaxThroughput, log-uniform
			lo, hi := math.Log(models.MinThroughput), math.Log(models.MaxThroughput)
			return math.Exp(lo + rng.Float64()*(hi-lo))
		}
	}
	for i := 0; i < 200; i++ {
		cat := catalogue.Builtin()
		cat.Matrix = models.NewMatrix()
		for j := 0; j < 20; j++ {
			k := models.Key{Job: fmt.Sprintf("job-%d", rng.Intn(5)), GPU: fmt.Sprintf("gpu %d", rng.Intn(3)),
				Gang: 1 + rng.Intn(models.MaxGPUs), Placement: models.Placement(rng.Intn(2))}
			if err := cat.Matrix.Set(k, figure(), "test"); err != nil {
				t.Fatal(err)
			}
			if err := cat.Matrix.SetPair(models.PairKey{Key: k, Other: fmt.Sprintf("job-%d", rng.Intn(5))}, figure(), figure()); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := catalogueFingerprint(cat), fmtFingerprint(cat); got != want {
			t.Fatalf("catalogue %d: %s, fmt wrote %s", i, got, want)
		}
	}
}
