package models

import "strconv"

// Parameter counts with a citation, used for StateGB.
const (
	// torchvision documentation, resnet18, ResNet18_Weights.IMAGENET1K_V1:
	// num_params 11689512 (the ImageNet model: 7×7 stem, 1000-class head).
	catalogueParamsResNet18 = 11_689_512
	// torchvision documentation, resnet50, ResNet50_Weights.IMAGENET1K_V1:
	// num_params 25557032.
	catalogueParamsResNet50 = 25_557_032
)

// catalogueBytesPerParam is the size of one fp32 value.
const catalogueBytesPerParam = 4

// catalogueStateGB is the training state a checkpoint moves, in GB (10⁹
// bytes): params × 4 bytes × (1 copy of the weights + optimizer slots). SGD
// with momentum keeps 1 slot per parameter, Adam 2, plain SGD 0.
func catalogueStateGB(params, optimizerSlots int) float64 {
	return float64(params) * catalogueBytesPerParam * float64(1+optimizerSlots) / 1e9
}

const (
	catalogueGavelJobSource = "Gavel (Narayanan et al., OSDI 2020) artifact scheduler/job_table.py (MIT)"

	// Gavel's workloads/pytorch/image_classification/cifar10/main.py trains
	// ResNet18() from a local models package on CIFAR-10 with SGD momentum
	// 0.9. That is the CIFAR variant (3×3 stem, 10 classes), a little smaller
	// (about 11.2M parameters) than torchvision's ImageNet ResNet-18 whose
	// documented count is used here, so StateGB is about 4% high.
	catalogueResNet18Source = catalogueGavelJobSource +
		"; ResNet-18 on CIFAR-10, SGD momentum 0.9 (workloads/pytorch/image_classification/cifar10/main.py);" +
		" StateGB = 11,689,512 params (torchvision docs, ImageNet ResNet-18; the CIFAR variant is ~4% smaller) × 4 B × 2"
	// workloads/pytorch/image_classification/imagenet/main.py builds
	// torchvision's resnet50 and trains it with SGD momentum.
	catalogueResNet50Source = catalogueGavelJobSource +
		"; torchvision resnet50 on ImageNet, SGD momentum (workloads/pytorch/image_classification/imagenet/main.py);" +
		" StateGB = 25,557,032 params (torchvision docs) × 4 B × 2"
	catalogueTransformerSource = catalogueGavelJobSource +
		"; Transformer on Multi30k (workloads/pytorch/translation); StateGB unknown: its size depends on the dataset vocabulary, not stated in the artifact"
	catalogueLMSource = catalogueGavelJobSource +
		"; 2-layer LSTM (emsize 200, nhid 200) on WikiText-2, plain SGD (workloads/pytorch/language_modeling/main.py);" +
		" StateGB unknown: the embedding size depends on the corpus vocabulary, not stated in the artifact"
	catalogueRecommendationSource = catalogueGavelJobSource +
		"; Recoder autoencoder on ML-20M (workloads/pytorch/recommendation); StateGB unknown: the model size depends on the item count, not stated in the artifact"
	catalogueA3CSource = catalogueGavelJobSource +
		"; A3C on PongDeterministic-v4 with 4 workers (workloads/pytorch/rl); StateGB unknown: no parameter count in the artifact files available"
	catalogueCycleGANSource = catalogueGavelJobSource +
		"; CycleGAN on monet2photo (workloads/pytorch/cyclegan); StateGB unknown: no parameter count in the artifact files available"
)

// catalogueGavelJobTypes are the 26 job types of Gavel's
// scheduler/simulation_throughputs.json, named exactly as Gavel names them so
// that Gavel .trace files match. BatchSize is the per-worker batch in the
// name (0 for A3C and CycleGAN, whose names state none). Memory figures are
// added by Catalogue where cited (catalogue_memory.go).
var catalogueGavelJobTypes = func() []JobType {
	var out []JobType
	add := func(name, model string, batch int, state float64, source string) {
		out = append(out, JobType{Name: name, Model: model, BatchSize: batch, StateGB: state, Source: source})
	}
	for _, b := range []int{16, 32, 64, 128, 256} {
		add(gavelName("ResNet-18", b), "ResNet-18", b, catalogueStateGB(catalogueParamsResNet18, 1), catalogueResNet18Source)
	}
	for _, b := range []int{16, 32, 64, 128} {
		add(gavelName("ResNet-50", b), "ResNet-50", b, catalogueStateGB(catalogueParamsResNet50, 1), catalogueResNet50Source)
	}
	for _, b := range []int{16, 32, 64, 128, 256} {
		add(gavelName("Transformer", b), "Transformer", b, 0, catalogueTransformerSource)
	}
	for _, b := range []int{5, 10, 20, 40, 80} {
		add(gavelName("LM", b), "LSTM", b, 0, catalogueLMSource)
	}
	for _, b := range []int{512, 1024, 2048, 4096, 8192} {
		add(gavelName("Recommendation", b), "Recoder", b, 0, catalogueRecommendationSource)
	}
	add("A3C", "A3C", 0, 0, catalogueA3CSource)
	add("CycleGAN", "CycleGAN", 0, 0, catalogueCycleGANSource)
	return out
}()

// gavelName is Gavel's job type name, e.g. "ResNet-50 (batch size 64)".
func gavelName(family string, batch int) string {
	return family + " (batch size " + strconv.Itoa(batch) + ")"
}
