package models

import "strconv"

const catalogueGavelJobSource = "Gavel (Narayanan et al., OSDI 2020) artifact scheduler/job_table.py (MIT)"

// catalogueGavelJobTypes are the 26 job types of Gavel's
// scheduler/simulation_throughputs.json, named exactly as Gavel names them so
// that Gavel .trace files match. BatchSize is the per-worker batch in the
// name (0 for A3C and CycleGAN, whose names state none). Memory figures are
// added by Catalogue where cited (catalogue_memory.go). StateGB and
// EpochSamples come from catalogueGavelTraining (catalogue_training.go), by
// family.
var catalogueGavelJobTypes = func() []JobType {
	var out []JobType
	add := func(name, model string, batch int, family string) {
		tr := catalogueGavelTraining[family]
		out = append(out, JobType{Name: name, Model: model, BatchSize: batch, StateGB: tr.stateGB,
			EpochSamples: tr.epochSamples, Source: catalogueGavelJobSource + "; " + tr.note})
	}
	for _, b := range []int{16, 32, 64, 128, 256} {
		add(gavelName("ResNet-18", b), "ResNet-18", b, "ResNet-18")
	}
	for _, b := range []int{16, 32, 64, 128} {
		add(gavelName("ResNet-50", b), "ResNet-50", b, "ResNet-50")
	}
	for _, b := range []int{16, 32, 64, 128, 256} {
		add(gavelName("Transformer", b), "Transformer", b, "Transformer")
	}
	for _, b := range []int{5, 10, 20, 40, 80} {
		add(gavelName("LM", b), "LSTM", b, "LM")
	}
	for _, b := range []int{512, 1024, 2048, 4096, 8192} {
		add(gavelName("Recommendation", b), "Recoder", b, "Recommendation")
	}
	add("A3C", "A3C", 0, "A3C")
	add("CycleGAN", "CycleGAN", 0, "CycleGAN")
	return out
}()

// gavelName is Gavel's job type name, e.g. "ResNet-50 (batch size 64)".
func gavelName(family string, batch int) string {
	return family + " (batch size " + strconv.Itoa(batch) + ")"
}
