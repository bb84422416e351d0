// Package solvers holds the allocation algorithms: one sub-package per policy
// behind the Policy interface, and the registry through which the CLI,
// scenario files and the checker name them. Solvers never read files, print,
// or keep global state.
package solvers

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"fairbench/models"
)

// Policy decides which jobs run where, once per round and, if it implements
// Triggered, at arrivals and completions too.
//
// One instance serves one run. The registry builds a fresh instance for
// every run (Registry.New; the simulator's callers, the checker and the
// benchmarks all do), so a policy may keep state between the decisions of
// its run — compensation, queues, homes, counters — and never needs to
// tell one run from the next: nothing resets an instance. Snapshots reach
// it in time order; a stateful policy given one earlier than its previous
// decision returns an error wrapping ErrTimeWentBack rather than start
// over. Instances share nothing: two built from the same Config (the same
// options) keep independent state. A policy is not safe for concurrent use.
//
// The Allocation that Allocate returns is the caller's to read until the
// policy's next Allocate: a policy may reuse its storage (its Run slice,
// GPU lists, maps) at the next decision, as the simulator's snapshots reuse
// theirs, so a caller that keeps an allocation across decisions copies it
// first. The simulator, the checker and runs use each allocation before
// the next decision; tiresias, fifo and sjf reuse their Run.
type Policy interface {
	Name() string
	Allocate(s *models.Snapshot) (models.Allocation, error)
}

// ErrTimeWentBack is the error (wrapped, naming the policy and both times)
// of a stateful policy given a snapshot earlier than its previous decision:
// an instance serves one run, and a second run needs a new instance.
var ErrTimeWentBack = errors.New("snapshot earlier than the previous decision: a policy instance serves one run (build a new one per run)")

// TimeWentBack is ErrTimeWentBack for policy name, given a snapshot at now
// after a decision at last.
func TimeWentBack(name string, now, last time.Duration) error {
	return fmt.Errorf("%s: snapshot at %v after a decision at %v: %w", name, now, last, ErrTimeWentBack)
}

// Incremental is implemented by policies that can answer a decision with
// what changes alone. AllocateChanges decides as Allocate does; with keep
// false its allocation is Allocate's, with keep true the allocation's Run
// lists only assignments of jobs that change, and every job running now that
// it leaves out keeps its GPUs, type and setting as they are. Such an
// allocation stands for the whole one that lists, in the snapshot's order,
// each active job's assignment in Run if it has one, else the job's own if
// it runs, followed by the assignments of Run for jobs not in the snapshot
// (Changes builds it). A simulator that knows what runs uses it to skip
// what stays; anyone else can call Allocate.
type Incremental interface {
	Policy
	AllocateChanges(s *models.Snapshot) (a models.Allocation, keep bool, err error)
}

// Changes is the whole allocation that changes, an Incremental policy's
// answer with keep true on s, stands for (see Incremental).
func Changes(s *models.Snapshot, changes models.Allocation) models.Allocation {
	at := map[models.JobID][]int{}
	for i, a := range changes.Run {
		at[a.Job] = append(at[a.Job], i)
	}
	whole := changes
	whole.Run = make([]models.Assignment, 0, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if is, ok := at[j.ID]; ok {
			for _, k := range is {
				whole.Run = append(whole.Run, changes.Run[k])
			}
			delete(at, j.ID)
		} else if j.Running() {
			whole.Run = append(whole.Run, models.Assignment{Job: j.ID, Type: j.LastType, GPUs: j.LastGPUs, Accum: j.LastAccum})
		}
	}
	for _, a := range changes.Run {
		if _, ok := at[a.Job]; ok {
			whole.Run = append(whole.Run, a)
		}
	}
	return whole
}

// Triggered is implemented by policies that want decisions at events as well
// as at round starts. Triggers returns a mask of models.AtRound,
// models.AtArrival and models.AtCompletion.
type Triggered interface {
	Triggers() models.Trigger
}

// TriggersOf is p's trigger mask: AtRound unless p says otherwise.
func TriggersOf(p Policy) models.Trigger {
	if t, ok := p.(Triggered); ok {
		return t.Triggers()
	}
	return models.AtRound
}

// Reporter is implemented by policies that record something of their own
// over a run (Gandiva_fair's trades, FFT's compensation trajectories). The
// simulator calls Report once, after the last job finishes, and stores the
// value in the run's result; it must be deterministic and encode to JSON.
//
// The value is a pointer to a report type the policy's package exports
// (gandivafair.Report, fft.Report, sjfbsbf.Report), and the policy's
// registry entry names that type (Entry.Report, with ReportAs): a report
// read back from a run record decodes into it (Registry.DecodeReport), so
// that readers use its fields, never its JSON keys.
type Reporter interface {
	Report() any
}

// ReportAs is an Entry.Report for a policy whose Report returns a *T: it
// returns a new, zero *T.
func ReportAs[T any]() any { return new(T) }

// Config is what a policy is built from: its options from the scenario file
// and a random source seeded from the run's seed (one stream per purpose).
type Config struct {
	Options map[string]any
	Rand    *rand.Rand
	// Restore, when set, is the checkpoint-restore time the simulator
	// charges a job of the given type when it resumes or moves (the
	// scenario's preemption settings), so a policy that prices switching
	// (FFT) estimates exactly what the simulator will charge.
	Restore func(models.JobType) time.Duration
}

// Decode copies c.Options into out (a pointer to an options struct with
// mapstructure tags), refusing unknown keys so that typos are reported.
func (c Config) Decode(out any) error {
	if len(c.Options) == 0 {
		return nil
	}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           out,
		ErrorUnused:      true,
		WeaklyTypedInput: true,
		DecodeHook:       mapstructure.StringToTimeDurationHookFunc(),
	})
	if err != nil {
		return err
	}
	return dec.Decode(c.Options)
}

// Factory builds a policy from its configuration.
type Factory func(Config) (Policy, error)

// Entry is one registered policy.
type Entry struct {
	Name    string
	Summary string
	New     Factory
	// Claims are the fairness properties the policy claims to keep, each
	// with the conditions its paper states and the citation. They are
	// declared in one place, solvers/registry/claims.go, which fills this
	// field; the checker verifies them under their conditions and reports
	// the other properties as information.
	Claims []models.Claim
	// Report, for a policy that is a Reporter, returns a new zero value of
	// the type its Report returns (ReportAs[T] for a *T): a report stored
	// in a run record decodes into it. Nil for a policy that reports
	// nothing. The registry's tests check that the two types agree.
	Report func() any
}

// Registry maps policy names to factories. The zero value is empty and ready.
type Registry struct {
	entries map[string]Entry
}

// Register adds e, refusing an empty or duplicate name.
func (r *Registry) Register(e Entry) error {
	if e.Name == "" || e.New == nil {
		return fmt.Errorf("solvers: register: entry needs a name and a factory")
	}
	if r.entries == nil {
		r.entries = map[string]Entry{}
	}
	if _, dup := r.entries[e.Name]; dup {
		return fmt.Errorf("solvers: register: duplicate policy %q", e.Name)
	}
	r.entries[e.Name] = e
	return nil
}

// Names lists the registered policies, sorted.
func (r *Registry) Names() []string {
	return slices.Sorted(maps.Keys(r.entries))
}

// Lookup returns the entry for name.
func (r *Registry) Lookup(name string) (Entry, bool) {
	e, ok := r.entries[name]
	return e, ok
}

// DecodeReport decodes a policy report stored in a run record (its JSON,
// as the simulator's result holds it) into a new value of the type the
// policy's entry declares (Entry.Report): the type the policy's Report
// returned when the run was made. ok is false, and nothing is decoded,
// when the policy is not registered or declares no report type.
func (r *Registry) DecodeReport(policy string, data []byte) (rep any, ok bool, err error) {
	e, known := r.entries[policy]
	if !known || e.Report == nil {
		return nil, false, nil
	}
	rep = e.Report()
	if err := json.Unmarshal(data, rep); err != nil {
		return nil, false, fmt.Errorf("%s report: %w", policy, err)
	}
	return rep, true, nil
}

// New builds the named policy; an unknown name is an error listing the known ones.
func (r *Registry) New(name string, c Config) (Policy, error) {
	e, ok := r.entries[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %v)", name, r.Names())
	}
	p, err := e.New(c)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return p, nil
}
