package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fairbench/models"
)

// TestCenturiesStopAtTheHorizon: a job that would need 1e21 s at its only
// rate (1e15 steps at 1e-6 steps/s; ceilSeconds saturates instead of
// wrapping to a negative finish time) stops with an error once the run
// passes models.MaxSimulated (10 years = 3,650 one-day rounds), instead of
// looping forever.
func TestCenturiesStopAtTheHorizon(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: models.MinThroughput},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: models.MaxSteps}})
	cfg.Round = models.MaxRound
	_, err := Run(cfg, inOrder{trig: everyEvent})
	if err == nil || !strings.Contains(err.Error(), "a run may simulate at most 10 years and 1000000 rounds") {
		t.Fatalf("got %v, want the horizon error", err)
	}
}

// TestSaturatingArithmetic: 1e10 s and a gang of 1024 for 200 years do not
// wrap around.
func TestSaturatingArithmetic(t *testing.T) {
	if got := ceilSeconds(1e10); got != never {
		t.Errorf("ceilSeconds(1e10) = %v, want never", got)
	}
	if got := ceilSeconds(1.5e-9); got != 2 {
		t.Errorf("ceilSeconds(1.5 ns) = %v, want 2ns (rounded up)", got)
	}
	if got := addSat(never-1, 5); got != never {
		t.Errorf("addSat past the end = %v", got)
	}
	if got := mulSat(200*365*24*time.Hour, 1024); got != never {
		t.Errorf("mulSat = %v, want never", got)
	}
	if got := mulSat(3*time.Second, 4); got != 12*time.Second {
		t.Errorf("mulSat(3s, 4) = %v", got)
	}
}

// TestCancelledRunStops: a cancelled context stops the run at its next
// event with the context's cause.
func TestCancelledRunStops(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 1e6}})
	stop := errors.New("interrupt")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := RunContext(ctx, cfg, inOrder{trig: everyEvent}); !errors.Is(err, stop) {
		t.Fatalf("got %v, want the cancellation cause", err)
	}
}
