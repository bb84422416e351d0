package scenarios

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
)

// Random stream purposes. Each purpose has its own stream, so that changing
// how one quantity is drawn (say, the arrival rate) leaves every other
// quantity of every job unchanged.
const (
	StreamArrivals  = "arrivals"  // inter-arrival times
	StreamDurations = "durations" // short/long choice and duration exponent
	StreamGangs     = "gangs"     // gang sizes
	StreamJobTypes  = "job_types" // job types
	StreamUsers     = "users"     // uniform user assignment
)

// Stream returns the random stream for purpose in a run with the given
// seed: a PCG generator (math/rand/v2, a specified algorithm) whose two
// 64-bit seeds are the first 16 bytes, read as two big-endian uint64s, of
// SHA-256("fairbench/scenarios/v1/" + purpose + "/" + decimal seed).
//
// The package draws from a stream only through Uint64 (see uniform, intn),
// so the values depend on PCG alone, not on math/rand's helper algorithms.
func Stream(seed int64, purpose string) *rand.Rand {
	sum := sha256.Sum256([]byte("fairbench/scenarios/v1/" + purpose + "/" + strconv.FormatInt(seed, 10)))
	return rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])))
}

// uniform is a float64 drawn uniformly from [0, 1) with 53 random bits.
func uniform(r *rand.Rand) float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// uniformIn is a float64 drawn uniformly from [a, b).
func uniformIn(r *rand.Rand, a, b float64) float64 { return a + (b-a)*uniform(r) }

// intn is an int drawn from [0, n) by the multiply-high method (bias below
// n/2⁶⁴, negligible for the small n used here).
func intn(r *rand.Rand, n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// exponential is an exponential variate with the given mean, by inversion:
// −mean·ln(1 − U), U uniform on [0, 1), so the logarithm's argument is in
// (0, 1] and the result finite.
func exponential(r *rand.Rand, mean float64) float64 { return -mean * math.Log(1-uniform(r)) }
