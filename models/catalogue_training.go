package models

// Training state and epoch size of the catalogue's Gavel job types: the
// parameter counts behind StateGB (the checkpoint a preemption or migration
// moves) and the training-set sizes behind EpochSamples (FFT counts work in
// epochs). Each figure is cited where it is stated; where the artifact only
// gives an architecture, the count is computed from it layer by layer
// (PyTorch's parameter layout: a convolution has in·out·k² weights + out
// biases, a linear layer in·out + out, an LSTM layer 4·h·(in + h) + 8·h,
// InstanceNorm2d no affine parameters by default) and the arithmetic is
// given.

// catalogueBytesPerParam is the size of one fp32 value.
const catalogueBytesPerParam = 4

// catalogueStateGB is the training state a checkpoint moves, in GB (10⁹
// bytes): params × 4 bytes × (1 copy of the weights + optimizer slots). SGD
// with momentum keeps 1 slot per parameter, Adam 2 (3 with AMSGrad's
// running maximum), plain SGD 0.
func catalogueStateGB(params, optimizerSlots int) float64 {
	return float64(params) * catalogueBytesPerParam * float64(1+optimizerSlots) / 1e9
}

// Parameter counts.
const (
	// torchvision documentation, resnet18, ResNet18_Weights.IMAGENET1K_V1:
	// num_params 11689512 (the ImageNet model: 7×7 stem, 1000-class head).
	catalogueParamsResNet18 = 11_689_512
	// torchvision documentation, resnet50, ResNet50_Weights.IMAGENET1K_V1:
	// num_params 25557032.
	catalogueParamsResNet50 = 25_557_032
	// Gavel's translation Transformer (workloads/pytorch/translation:
	// d_model 512, d_inner_hid 2048, 6 encoder and 6 decoder layers, 8
	// heads of d_k = d_v = 64, -proj_share_weight), without the word
	// embeddings, whose size depends on the Multi30k vocabulary that the
	// artifact's preprocessing (min_word_count 5) builds and does not state:
	// attention block 4·(512·512 + 512) + LayerNorm 2·512 = 1,051,648;
	// feed-forward 512·2048 + 2048 + 2048·512 + 512 + 2·512 = 2,100,736;
	// encoder layer 3,152,384, decoder layer (two attention blocks)
	// 4,204,032; 6 of each = 44,138,496. The sinusoidal position tables are
	// frozen buffers, not trained. A lower bound of the real count.
	catalogueParamsTransformerNoEmbeddings = 44_138_496
	// Gavel's language model (workloads/pytorch/language_modeling: LSTM,
	// emsize 200, nhid 200, 2 layers, untied) on WikiText-2, whose
	// vocabulary is 33,278 tokens (Merity et al., "Pointer Sentinel Mixture
	// Models", ICLR 2017, Table 1): embedding 33,278·200 = 6,655,600; LSTM
	// 2·(4·200·(200+200) + 8·200) = 643,200; decoder 200·33,278 + 33,278 =
	// 6,688,878; total 13,987,678.
	catalogueParamsLM = 13_987_678
	// Gavel's recommendation model (workloads/pytorch/recommendation/train.py:
	// Recoder DynamicAutoencoder, hidden_layers [200], not constrained) over
	// the 20,108 items that the ML-20M preprocessing it reads (pro_sg, the
	// split of Liang et al., "Variational Autoencoders for Collaborative
	// Filtering", WWW 2018, Table 1: 20,108 items) keeps: encoder embedding
	// 20,108·200 + 200 biases, decoder 200·20,108 + 20,108 biases = 8,063,508.
	catalogueParamsRecoder = 8_063_508
	// Gavel's A3C (workloads/pytorch/rl/model.py, A3Clstm on Pong, one input
	// channel, 6 actions): convolutions 1→32 5×5 (832), 32→32 5×5 (25,632),
	// 32→64 4×4 (32,832), 64→64 3×3 (36,928); LSTMCell(1024, 512)
	// 4·512·(1024+512) + 8·512 = 3,149,824; critic 513; actor 3,078; total
	// 3,249,639.
	catalogueParamsA3C = 3_249_639
	// Gavel's CycleGAN (workloads/pytorch/cyclegan, 256×256 RGB, 9 residual
	// blocks): each ResNet generator 11,378,179 (7×7 3→64, 3×3 64→128,
	// 128→256, 18 convolutions 256→256, 256→128, 128→64, 7×7 64→3, each
	// with biases) and each PatchGAN discriminator 2,764,737 (4×4 3→64,
	// 64→128, 128→256, 256→512, 512→1); two of each = 28,285,832.
	catalogueParamsCycleGAN = 28_285_832
)

// Epoch sizes in samples.
const (
	// CIFAR-10: 50,000 training images (Krizhevsky, "Learning Multiple
	// Layers of Features from Tiny Images", 2009).
	catalogueEpochCIFAR10 = 50_000
	// ImageNet ILSVRC-2012: 1,281,167 training images (Russakovsky et al.,
	// "ImageNet Large Scale Visual Recognition Challenge", IJCV 2015).
	catalogueEpochImageNet = 1_281_167
	// Multi30k: 29,000 training sentence pairs (Elliott et al., "Multi30K:
	// Multilingual English-German Image Descriptions", 2016); the
	// Transformer's batch counts sentence pairs.
	catalogueEpochMulti30k = 29_000
	// ML-20M under the VAE-CF split (Liang et al., WWW 2018): 136,677 users,
	// 10,000 held out for validation and 10,000 for test, so 116,677
	// training users; the autoencoder's batch counts users.
	catalogueEpochML20M = 116_677
)

// catalogueEpochWikiText2 is one epoch of WikiText-2 in sequences of 35
// tokens (the language model's bptt; its batch counts such sequences, one
// per column of the batchified corpus): 2,088,628 training tokens (Merity et
// al., ICLR 2017, Table 1) / 35.
const catalogueEpochWikiText2 = 2_088_628.0 / 35

// catalogueTraining is a Gavel job family's state and epoch, with the text
// its JobType.Source carries.
type catalogueTraining struct {
	stateGB      float64
	epochSamples float64
	note         string
}

// catalogueGavelTraining is keyed by the family prefix of Gavel's job names.
var catalogueGavelTraining = map[string]catalogueTraining{
	"ResNet-18": {catalogueStateGB(catalogueParamsResNet18, 1), catalogueEpochCIFAR10,
		"ResNet-18 on CIFAR-10, SGD momentum 0.9 (workloads/pytorch/image_classification/cifar10/main.py);" +
			" StateGB = 11,689,512 params (torchvision docs, ImageNet ResNet-18; the CIFAR variant is ~4% smaller) × 4 B × 2;" +
			" EpochSamples = 50,000 CIFAR-10 training images"},
	"ResNet-50": {catalogueStateGB(catalogueParamsResNet50, 1), catalogueEpochImageNet,
		"torchvision resnet50 on ImageNet, SGD momentum (workloads/pytorch/image_classification/imagenet/main.py);" +
			" StateGB = 25,557,032 params (torchvision docs) × 4 B × 2; EpochSamples = 1,281,167 ImageNet training images"},
	"Transformer": {catalogueStateGB(catalogueParamsTransformerNoEmbeddings, 2), catalogueEpochMulti30k,
		"Transformer on Multi30k, Adam (workloads/pytorch/translation);" +
			" StateGB = 44,138,496 non-embedding params (computed from the architecture) × 4 B × 3, a lower bound: the word embeddings depend on a vocabulary the artifact does not state;" +
			" EpochSamples = 29,000 Multi30k training sentence pairs"},
	"LM": {catalogueStateGB(catalogueParamsLM, 0), catalogueEpochWikiText2,
		"2-layer LSTM (emsize 200, nhid 200) on WikiText-2, plain SGD (workloads/pytorch/language_modeling/main.py);" +
			" StateGB = 13,987,678 params (computed, vocabulary 33,278) × 4 B; EpochSamples = 2,088,628 WikiText-2 training tokens / bptt 35"},
	"Recommendation": {catalogueStateGB(catalogueParamsRecoder, 2), catalogueEpochML20M,
		"Recoder autoencoder on ML-20M, Adam (workloads/pytorch/recommendation/train.py);" +
			" StateGB = 8,063,508 params (computed, 20,108 items) × 4 B × 3; EpochSamples = 116,677 ML-20M training users"},
	"A3C": {catalogueStateGB(catalogueParamsA3C, 3), 0,
		"A3C on PongDeterministic-v4 with 4 workers, shared Adam with AMSGrad (workloads/pytorch/rl);" +
			" StateGB = 3,249,639 params (computed) × 4 B × 4; no epoch (reinforcement learning has no training set)"},
	"CycleGAN": {catalogueStateGB(catalogueParamsCycleGAN, 2), 0,
		"CycleGAN on monet2photo, Adam (workloads/pytorch/cyclegan);" +
			" StateGB = 28,285,832 params (computed: two generators, two discriminators) × 4 B × 3;" +
			" EpochSamples unknown: no cited image count for the artifact's copy of monet2photo"},
}
