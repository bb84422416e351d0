package models

import (
	"errors"
	"fmt"
	"time"
)

// User is a tenant of the cluster. Weight is its number of tickets: a user with
// weight 2 is entitled to twice the GPU time of a user with weight 1.
type User struct {
	Name   string  `json:"name" yaml:"name"`
	Weight float64 `json:"weight" yaml:"weight"`
}

// Validate checks the name and that the weight is a finite number between
// MinWeight and MaxWeight.
func (u User) Validate() error {
	if u.Name == "" {
		return errors.New("user: name is empty")
	}
	if err := CheckWeight("weight", u.Weight); err != nil {
		return fmt.Errorf("user %q: %w", u.Name, err)
	}
	return nil
}

// JobType is a deep-learning training workload: a model at a batch size.
type JobType struct {
	// Name matches the keys of the throughput matrix, e.g.
	// "ResNet-50 (batch size 64)".
	Name string `json:"name" yaml:"name"`
	// Model and BatchSize describe the workload.
	Model     string `json:"model,omitempty" yaml:"model,omitempty"`
	BatchSize int    `json:"batch_size,omitempty" yaml:"batch_size,omitempty"`
	// MemoryGB is the device memory one worker needs at BatchSize (0 when
	// unknown; then any GPU type is taken to fit).
	MemoryGB float64 `json:"memory_gb,omitempty" yaml:"memory_gb,omitempty"`
	// FixedMemoryGB is the part of MemoryGB that does not shrink with a
	// smaller sub-batch (weights, gradients, optimizer state, workspace);
	// see AccumMemory.
	FixedMemoryGB float64 `json:"fixed_memory_gb,omitempty" yaml:"fixed_memory_gb,omitempty"`
	// StateGB is the size of the training state a checkpoint has to move
	// (weights plus optimizer state); it prices preemption and migration.
	StateGB float64 `json:"state_gb,omitempty" yaml:"state_gb,omitempty"`
	// EpochSamples is the size of one epoch (one pass over the training
	// set) in samples of the kind BatchSize counts: StepsPerEpoch =
	// EpochSamples / BatchSize, a step being one worker's batch (Gavel's
	// convention, where throughput grows with the gang). 0 when unknown.
	EpochSamples float64 `json:"epoch_samples,omitempty" yaml:"epoch_samples,omitempty"`
	// Source cites where the memory and state figures come from.
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
}

// Validate checks the name and that the sizes are finite and non-negative.
func (t JobType) Validate() error {
	if t.Name == "" {
		return errors.New("job type: name is empty")
	}
	if err := CheckMemory("memory_gb", t.MemoryGB); err != nil {
		return fmt.Errorf("job type %q: %w", t.Name, err)
	}
	if err := CheckMemory("state_gb", t.StateGB); err != nil {
		return fmt.Errorf("job type %q: %w", t.Name, err)
	}
	if err := CheckMemory("fixed_memory_gb", t.FixedMemoryGB); err != nil {
		return fmt.Errorf("job type %q: %w", t.Name, err)
	}
	if err := nonNegative("epoch_samples", t.EpochSamples); err != nil {
		return fmt.Errorf("job type %q: %w", t.Name, err)
	}
	if t.FixedMemoryGB > t.MemoryGB {
		return fmt.Errorf("job type %q: fixed_memory_gb %g exceeds memory_gb %g", t.Name, t.FixedMemoryGB, t.MemoryGB)
	}
	if t.BatchSize < 0 {
		return fmt.Errorf("job type %q: batch_size: must not be negative, got %d", t.Name, t.BatchSize)
	}
	return nil
}

// StepsPerEpoch is the number of training steps in one epoch,
// EpochSamples / BatchSize, or 0 when either is unknown.
func (t JobType) StepsPerEpoch() float64 {
	if t.EpochSamples <= 0 || t.BatchSize <= 0 {
		return 0
	}
	return t.EpochSamples / float64(t.BatchSize)
}

// JobID identifies a job within one run.
type JobID int

// Job is one training job as submitted.
type Job struct {
	ID   JobID  `json:"id" yaml:"id"`
	User string `json:"user" yaml:"user"`
	Type string `json:"type" yaml:"type"`
	// Gang is the number of GPUs the job needs at once (data-parallel workers).
	Gang int `json:"gang" yaml:"gang"`
	// Steps is the total work in training steps (iterations).
	Steps float64 `json:"steps" yaml:"steps"`
	// Arrival is the submission time, measured from the start of the run.
	Arrival time.Duration `json:"arrival" yaml:"arrival"`
	// MemoryGB overrides the job type's per-worker memory need (0: use the type's).
	MemoryGB float64 `json:"memory_gb,omitempty" yaml:"memory_gb,omitempty"`
	// Priority is a weight some policies use (Gavel's priority weight); 0 means 1.
	Priority float64 `json:"priority,omitempty" yaml:"priority,omitempty"`
}

// Validate checks the job's own fields (not whether its type or user exist).
func (j Job) Validate() error {
	if j.User == "" {
		return fmt.Errorf("job %d: user is empty", j.ID)
	}
	if j.Type == "" {
		return fmt.Errorf("job %d: type is empty", j.ID)
	}
	if j.Gang <= 0 || j.Gang > MaxGPUs {
		return fmt.Errorf("job %d: gang: must be between 1 and %d, got %d", j.ID, MaxGPUs, j.Gang)
	}
	if err := positive("steps", j.Steps); err != nil {
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if j.Steps > MaxSteps {
		return fmt.Errorf("job %d: steps: %v is more than %g, the limit fairbench accepts", j.ID, j.Steps, float64(MaxSteps))
	}
	if j.Arrival < 0 || j.Arrival > MaxHorizon {
		return fmt.Errorf("job %d: arrival: must be between 0 and %s, got %v", j.ID, Describe(MaxHorizon), j.Arrival)
	}
	if err := CheckMemory("memory_gb", j.MemoryGB); err != nil {
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if err := nonNegative("priority", j.Priority); err != nil {
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if j.Priority != 0 {
		if err := CheckWeight("priority", j.Priority); err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
	}
	return nil
}

// PriorityWeight is Priority, or 1 when unset.
func (j Job) PriorityWeight() float64 {
	if j.Priority == 0 {
		return 1
	}
	return j.Priority
}
