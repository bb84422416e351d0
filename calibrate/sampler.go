package calibrate

import (
	"math"
	"sync"
	"time"
)

// Sampler reads the telemetry of a set of GPUs at a fixed rate in its own
// goroutine, from Start until Stop. It allocates only when its sample
// buffer grows (the buffer starts with room for a minute).
type Sampler struct {
	probe   Probe
	indices []int
	period  time.Duration
	start   time.Time

	mu       sync.Mutex
	samples  []Sample
	failures int
	firstErr error

	stop chan struct{}
	done chan struct{}
}

// StartSampler starts sampling the GPUs at NVML indices idx, hz times a
// second. Sample times are measured from start.
func StartSampler(p Probe, idx []int, hz float64, start time.Time) *Sampler {
	period := time.Duration(float64(time.Second) / hz)
	s := &Sampler{
		probe: p, indices: append([]int(nil), idx...), period: period, start: start,
		samples: make([]Sample, 0, int(math.Ceil(60*hz))*len(idx)),
		stop:    make(chan struct{}), done: make(chan struct{}),
	}
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(s.period)
	defer t.Stop()
	buf := make([]Sample, len(s.indices))
	s.tick(buf)
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.tick(buf)
		}
	}
}

// tick reads every GPU once and appends the readings.
func (s *Sampler) tick(buf []Sample) {
	n := 0
	var err error
	for _, idx := range s.indices {
		buf[n] = Sample{}
		if e := s.probe.Sample(idx, &buf[n]); e != nil {
			err = e
			continue
		}
		buf[n].AtNanos = int64(time.Since(s.start))
		buf[n].Index = idx
		n++
	}
	s.mu.Lock()
	s.samples = append(s.samples, buf[:n]...)
	if err != nil {
		s.failures++
		if s.firstErr == nil {
			s.firstErr = err
		}
	}
	s.mu.Unlock()
}

// Stop ends sampling and returns the samples, the number of ticks at which
// some GPU could not be read, and the first such error.
func (s *Sampler) Stop() ([]Sample, int, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples, s.failures, s.firstErr
}

// Telemetry summarises the samples of one entry. Averages and the
// throttling seen cover the measured interval; peaks cover the whole entry.
type Telemetry struct {
	GPUs    []int   `json:"gpus"`
	Samples int     `json:"samples"`
	Hz      float64 `json:"sample_hz"`
	// Failures counts ticks at which a GPU could not be read; Error is the
	// first reason.
	Failures int    `json:"failures,omitempty"`
	Error    string `json:"error,omitempty"`

	MeanPowerW       float64 `json:"mean_power_w"` // the gang's GPUs together
	EnergyJ          float64 `json:"energy_j"`     // over the measured interval
	EnergyPerSampleJ float64 `json:"energy_per_sample_j"`
	// EnergyFrom is "counter" (NVML's total energy counter, Volta and
	// newer) or "power" (mean power × time); "" when neither was read.
	EnergyFrom      string  `json:"energy_from,omitempty"`
	MeanUtilGPUPct  float64 `json:"mean_util_gpu_pct"`
	MeanUtilMemPct  float64 `json:"mean_util_mem_pct"`
	MeanSMClockMHz  float64 `json:"mean_sm_clock_mhz"`
	MinSMClockMHz   uint32  `json:"min_sm_clock_mhz"`
	MaxTempC        uint32  `json:"max_temp_c"`
	PeakMemUsedByte uint64  `json:"peak_mem_used_bytes"` // the most any one GPU of the gang used
	// Throttle names the clock-lowering reasons seen in the measured
	// interval (power cap, thermal, ...); ThrottledSamples counts the
	// samples that had one.
	Throttle         []string `json:"throttle,omitempty"`
	ThrottledSamples int      `json:"throttled_samples,omitempty"`
}

// Summarize reduces the samples of GPUs gpus: averages over the measured
// interval [from, to] (nanoseconds since the sampler's start), in which
// samplesDone training samples were processed.
func Summarize(all []Sample, gpus []int, hz float64, from, to int64, samplesDone float64) Telemetry {
	t := Telemetry{GPUs: gpus, Samples: len(all), Hz: hz}
	per := map[int]*gpuAcc{}
	for _, g := range gpus {
		per[g] = &gpuAcc{energyOK: true}
	}
	var mask uint64
	for i := range all {
		s := &all[i]
		a := per[s.Index]
		if a == nil {
			continue
		}
		if s.Supported&FieldMemUsed != 0 && s.MemUsedBytes > t.PeakMemUsedByte {
			t.PeakMemUsedByte = s.MemUsedBytes
		}
		if s.AtNanos < from || s.AtNanos > to {
			continue
		}
		mask |= a.add(s, &t)
	}
	t.Throttle = ThrottleReasons(mask)
	t.reduce(per, gpus, float64(to-from)/1e9, samplesDone)
	return t
}

// gpuAcc accumulates one GPU's readings over the measured interval.
type gpuAcc struct {
	n                      int
	power, util, mem, clk  float64
	first, last            *Sample
	energyOK               bool
	powerOK, utilOK, clkOK bool
}

// loadThrottle are the throttle reasons that lower clocks under load.
const loadThrottle = ThrottleSwPowerCap | ThrottleHwSlowdown | ThrottleSyncBoost | ThrottleSwThermalSlowdown |
	ThrottleHwThermalSlowdown | ThrottleHwPowerBrakeSlowdown

// add takes one reading in the interval, updating the extremes in t, and
// returns its throttle reasons under load.
func (a *gpuAcc) add(s *Sample, t *Telemetry) uint64 {
	a.n++
	if a.first == nil {
		a.first = s
	}
	a.last = s
	if s.Supported&FieldEnergy == 0 {
		a.energyOK = false
	}
	if s.Supported&FieldPower != 0 {
		a.power += s.PowerW
		a.powerOK = true
	}
	if s.Supported&FieldUtil != 0 {
		a.util += float64(s.UtilGPU)
		a.mem += float64(s.UtilMem)
		a.utilOK = true
	}
	if s.Supported&FieldSMClock != 0 {
		a.clk += float64(s.SMClockMHz)
		a.clkOK = true
		if t.MinSMClockMHz == 0 || s.SMClockMHz < t.MinSMClockMHz {
			t.MinSMClockMHz = s.SMClockMHz
		}
	}
	if s.Supported&FieldTemp != 0 && s.TempC > t.MaxTempC {
		t.MaxTempC = s.TempC
	}
	if s.Supported&FieldThrottle != 0 && s.Throttle&loadThrottle != 0 {
		t.ThrottledSamples++
		return s.Throttle
	}
	return 0
}

// reduce turns the per-GPU sums into the averages and the energy over an
// interval of dur seconds in which samplesDone samples were processed.
func (t *Telemetry) reduce(per map[int]*gpuAcc, gpus []int, dur, samplesDone float64) {
	counter, power := true, true
	var energy, meanPower, util, memUtil, clk float64
	var nUtil, nClk int
	for _, g := range gpus {
		a := per[g]
		if a.n == 0 {
			return // no reading of this GPU in the interval: no averages
		}
		if a.powerOK {
			meanPower += a.power / float64(a.n)
		} else {
			power = false
		}
		if a.utilOK {
			util += a.util / float64(a.n)
			memUtil += a.mem / float64(a.n)
			nUtil++
		}
		if a.clkOK {
			clk += a.clk / float64(a.n)
			nClk++
		}
		span := float64(a.last.AtNanos-a.first.AtNanos) / 1e9
		if !a.energyOK || a.n < 2 || span <= 0 || a.last.EnergyMJ <= a.first.EnergyMJ {
			// No counter, too few readings, or a counter that did not move
			// (it updates more slowly than some intervals last): use power.
			counter = false
		} else {
			// The counter's rate over the samples, applied to the interval.
			energy += float64(a.last.EnergyMJ-a.first.EnergyMJ) / 1000 / span * dur
		}
	}
	if power {
		t.MeanPowerW = meanPower
	}
	if nUtil > 0 {
		t.MeanUtilGPUPct, t.MeanUtilMemPct = util/float64(nUtil), memUtil/float64(nUtil)
	}
	if nClk > 0 {
		t.MeanSMClockMHz = clk / float64(nClk)
	}
	switch {
	case counter:
		t.EnergyJ, t.EnergyFrom = energy, "counter"
	case power:
		t.EnergyJ, t.EnergyFrom = meanPower*dur, "power"
	}
	if t.EnergyFrom != "" && samplesDone > 0 {
		t.EnergyPerSampleJ = t.EnergyJ / samplesDone
	}
}

// SamplingCost is what sampling cost this process, measured.
type SamplingCost struct {
	GPUs       int           `json:"gpus"`
	Hz         float64       `json:"hz"`
	Wall       time.Duration `json:"wall_ns"`
	CPU        time.Duration `json:"cpu_ns"` // user + system time of the whole process
	Readings   int           `json:"readings"`
	CoreFrac   float64       `json:"core_fraction"` // CPU / wall: the share of one core
	PerReading time.Duration `json:"cpu_per_reading_ns"`
}

// MeasureSampling samples GPUs idx at hz for d with nothing else running
// and reports the process's CPU time over that time: the telemetry's own
// cost, NVML's driver calls included.
func MeasureSampling(p Probe, idx []int, hz float64, d time.Duration) (SamplingCost, error) {
	c := SamplingCost{GPUs: len(idx), Hz: hz}
	cpu0, err := processCPU()
	if err != nil {
		return c, err
	}
	start := time.Now()
	s := StartSampler(p, idx, hz, start)
	time.Sleep(d)
	samples, _, serr := s.Stop()
	c.Wall = time.Since(start)
	cpu1, err := processCPU()
	if err != nil {
		return c, err
	}
	c.CPU, c.Readings = cpu1-cpu0, len(samples)
	c.CoreFrac = c.CPU.Seconds() / c.Wall.Seconds()
	if c.Readings > 0 {
		c.PerReading = c.CPU / time.Duration(c.Readings)
	}
	return c, serr
}
