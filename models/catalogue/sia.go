package catalogue

import (
	"fairbench/models"
	"fmt"
	"strconv"
)

// The Sia figures: rows of the Sia artifact's placement traces
// (Jayaram Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized
// ML-cluster scheduling", SOSP 2023; github.com/siasosp23/artifacts), columns
// placement,local_bsz,step_time,sync_time. The step_time values below are
// copied verbatim from the files named in each trace.
//
// Placement encoding (sia-simulator/applications.py): a placement id is a
// string of digits, one per node, each the number of GPUs (replicas) used on
// that node: num_nodes = len(str(placement)), num_replicas = sum of digits.
// "1" is 1 GPU, "4" is 4 GPUs on one node (Consolidated), "11" is 2 nodes × 1
// GPU, "22" is 2 nodes × 2 GPUs (Spread).
//
// step_time includes sync_time: the simulator's get_throughput_with_accum
// computes samples/s = batch / (step_time + (step_time − sync_time) ×
// accum_steps), i.e. step_time is one full iteration including the gradient
// synchronisation and step_time − sync_time its compute part. With no
// gradient accumulation one training step therefore takes step_time, and the
// catalogue stores steps/s = 1 / step_time.
//
// Which rows: consolidated placements "1", "2", "4", "8" (gang 1, 2, 4, 8)
// and spread placements over two nodes with equal halves, "11", "22", "44"
// (gang 2, 4, 8). Each app uses ONE local batch size (local_bsz, the per-GPU
// batch, the same meaning as the batch size in Gavel's job names): the largest
// local_bsz that the traces measured for every one of those placements on
// both GPU types read (azure and dgx-ext). That gives cifar10 1025,
// imagenet 462, bert 33, deepspeech2 81, yolov3 23, ncf 32768. (yolov3's rows
// at local_bsz 23 are slower than its rows at 24 or 32 on both clusters; they
// are kept as measured.)
//
// Clusters: azure = V100, dgx-ext = A100-40GB. The aws (T4) placement files
// are not in the stored copy of the artifact that fairbench could read, so
// there are no Sia figures for the T4. gpt_pmp is left out: its rows are
// per-stage times of pipeline model parallelism that the simulator rescales
// (PMPApplication), not data-parallel step times, and it has no azure or aws
// trace. The stored copy of the artifact keeps one copy of files that are
// identical across its folders; where the sia-simulator/traces copy was not
// stored, the identical-path copy under adaptdl/sched/traces was read and is
// the one cited.
var catalogueSiaTraces = []siaTrace{
	{app: "cifar10", cluster: "azure", path: "adaptdl/sched/traces/cifar10/placements-azure.csv", localBsz: 1025, steps: []siaStep{
		{"1", 0.23204296827316284}, {"2", 0.23474378883838654}, {"4", 0.24330953189304896}, {"8", 0.25486278533935547},
		{"11", 0.23067225515842438}, {"22", 0.2434603146144322}, {"44", 0.24310731887817383},
	}},
	{app: "cifar10", cluster: "dgx-ext", path: "sia-simulator/traces/cifar10/placements-dgx-ext.csv", localBsz: 1025, steps: []siaStep{
		{"1", 0.11900351941585541}, {"2", 0.11664305627346039}, {"4", 0.11716141019548688}, {"8", 0.1175684928894043},
		{"11", 0.1164974719285965}, {"22", 0.11758484159197126}, {"44", 0.1163179874420166},
	}},
	{app: "imagenet", cluster: "azure", path: "sia-simulator/traces/imagenet/placements-azure.csv", localBsz: 462, steps: []siaStep{
		{"1", 0.71505007147789}, {"2", 0.777699813246727}, {"4", 0.825036033987999}, {"8", 1.3349078744649887},
		{"11", 0.6975210607051849}, {"22", 0.7801295518875122}, {"44", 0.7462003827095032},
	}},
	{app: "imagenet", cluster: "dgx-ext", path: "adaptdl/sched/traces/imagenet/placements-dgx-ext.csv", localBsz: 462, steps: []siaStep{
		{"1", 0.4897648096084595}, {"2", 0.48904891312122345}, {"4", 0.5555788725614548}, {"8", 0.5511474609375},
		{"11", 0.48561176657676697}, {"22", 0.5073680877685547}, {"44", 0.5565076470375061},
	}},
	{app: "bert", cluster: "azure", path: "sia-simulator/traces/bert/placements-azure.csv", localBsz: 33, steps: []siaStep{
		{"1", 0.7813377231359482}, {"2", 0.8054172843694687}, {"4", 0.8869296461343765}, {"8", 1.226847380399704},
		{"11", 0.7826557457447052}, {"22", 0.8745958358049393}, {"44", 0.9087059497833252},
	}},
	{app: "bert", cluster: "dgx-ext", path: "sia-simulator/traces/bert/placements-dgx-ext.csv", localBsz: 33, steps: []siaStep{
		{"1", 0.2689879238605499}, {"2", 0.257258802652359}, {"4", 0.26928791403770447}, {"8", 0.27133242785930634},
		{"11", 0.25651511549949646}, {"22", 0.26277534663677216}, {"44", 0.2722688466310501},
	}},
	{app: "deepspeech2", cluster: "azure", path: "adaptdl/sched/traces/deepspeech2/placements-azure.csv", localBsz: 81, steps: []siaStep{
		{"1", 1.0034739077091217}, {"2", 1.1103820204734802}, {"4", 1.2636221136365617}, {"8", 1.7038850784301758},
		{"11", 1.04767507314682}, {"22", 1.177138328552246}, {"44", 1.3538355827331543},
	}},
	{app: "deepspeech2", cluster: "dgx-ext", path: "sia-simulator/traces/deepspeech2/placements-dgx-ext.csv", localBsz: 81, steps: []siaStep{
		{"1", 1.5202616155147552}, {"2", 1.5885523557662964}, {"4", 1.5670431682041712}, {"8", 1.6889030933380127},
		{"11", 1.5400092750787735}, {"22", 1.6495002337864466}, {"44", 1.4740080833435059},
	}},
	{app: "yolov3", cluster: "azure", path: "sia-simulator/traces/yolov3/placements-azure.csv", localBsz: 23, steps: []siaStep{
		{"1", 0.5647607892751694}, {"2", 0.6106886714696884}, {"4", 0.8358322829008102}, {"8", 1.789369836449623},
		{"11", 0.5558333992958069}, {"22", 0.6409595161676407}, {"44", 0.8449905067682266},
	}},
	{app: "yolov3", cluster: "dgx-ext", path: "sia-simulator/traces/yolov3/placements-dgx-ext.csv", localBsz: 23, steps: []siaStep{
		{"1", 0.5643210709095001}, {"2", 0.915396511554718}, {"4", 1.268212541937828}, {"8", 1.333826094865799},
		{"11", 0.5819942951202393}, {"22", 0.9640289396047592}, {"44", 1.2808496356010437},
	}},
	{app: "ncf", cluster: "azure", path: "sia-simulator/traces/ncf/placements-azure.csv", localBsz: 32768, steps: []siaStep{
		{"1", 0.1919250637292862}, {"2", 0.1920919418334961}, {"4", 0.19588758051395416}, {"8", 0.2549195106212909},
		{"11", 0.151458740234375}, {"22", 0.1200605034828186}, {"44", 0.16033770487858698},
	}},
	{app: "ncf", cluster: "dgx-ext", path: "adaptdl/sched/traces/ncf/placements-dgx-ext.csv", localBsz: 32768, steps: []siaStep{
		{"1", 0.010716557502746582}, {"2", 0.010819658637046814}, {"4", 0.021060079336166382}, {"8", 0.015385022530188927},
		{"11", 0.016481131315231323}, {"22", 0.015526369214057922}, {"44", 0.013962653967050405},
	}},
}

// siaTrace is the rows taken from one placements-<cluster>.csv file.
type siaTrace struct {
	app      string // trace directory
	cluster  string // aws, azure or dgx-ext
	path     string // the file read, within github.com/siasosp23/artifacts
	localBsz int    // local_bsz of every row taken
	steps    []siaStep
}

// siaStep is one row: its placement id and step_time in seconds.
type siaStep struct {
	placement string
	stepTime  float64
}

// siaClusterGPU maps a Sia cluster to the catalogue GPU type.
var siaClusterGPU = map[string]string{"aws": "T4", "azure": "V100", "dgx-ext": "A100-40GB"}

// siaApp describes one Sia application as a fairbench job type.
type siaApp struct {
	model    string
	stateGB  float64
	jobNotes string
}

const catalogueSiaArtifact = "Sia artifact (Jayaram Subramanya et al., SOSP 2023)"

var siaApps = map[string]siaApp{
	"cifar10": {model: "ResNet-18", stateGB: catalogueStateGB(catalogueParamsResNet18, 1),
		jobNotes: "ResNet18 on CIFAR-10, SGD momentum 0.9 (adaptdl/benchmark/models/cifar10/main.py);" +
			" StateGB = 11,689,512 params (torchvision docs, ImageNet ResNet-18; the CIFAR variant is ~4% smaller) × 4 B × 2"},
	"imagenet": {model: "ResNet-50", stateGB: catalogueStateGB(catalogueParamsResNet50, 1),
		jobNotes: "torchvision resnet50 (--arch=resnet50) on ImageNet, SGD momentum (adaptdl/benchmark/models/imagenet);" +
			" StateGB = 25,557,032 params (torchvision docs) × 4 B × 2"},
	"bert":        {model: "BERT", jobNotes: "BERT fine-tuning on SQuAD (adaptdl/benchmark/models/bert/run_squad.py); StateGB unknown: model size not checked"},
	"deepspeech2": {model: "DeepSpeech2", jobNotes: "DeepSpeech2 (adaptdl/benchmark/models/deepspeech2); StateGB unknown: model size not checked"},
	"yolov3":      {model: "YOLOv3", jobNotes: "YOLOv3 on PASCAL VOC (adaptdl/benchmark/models/yolov3); StateGB unknown: model size not checked"},
	"ncf":         {model: "NCF", jobNotes: "neural collaborative filtering (adaptdl/benchmark/models/ncf); StateGB unknown: model size not checked"},
}

// siaJobName names the job type of an app at a local batch size, e.g.
// "cifar10 ResNet-18 (Sia, batch size 1025)".
func siaJobName(app string, localBsz int) string {
	return app + " " + siaApps[app].model + " (Sia, batch size " + strconv.Itoa(localBsz) + ")"
}

// siaPlacement decodes a placement id (see catalogueSiaTraces): the gang is
// the sum of the digits, one digit is a single node (Consolidated), more are
// several nodes (Spread).
func siaPlacement(id string) (int, models.Placement, error) {
	if id == "" {
		return 0, 0, fmt.Errorf("sia placement: empty")
	}
	gang := 0
	for _, c := range id {
		if c < '1' || c > '9' {
			return 0, 0, fmt.Errorf("sia placement %q: want one digit 1-9 per node", id)
		}
		gang += int(c - '0')
	}
	if len(id) == 1 {
		return gang, models.Consolidated, nil
	}
	return gang, models.Spread, nil
}

// catalogueSiaJobTypes lists one job type per app, in the order of
// catalogueSiaTraces.
func catalogueSiaJobTypes() []models.JobType {
	var out []models.JobType
	seen := map[string]bool{}
	for _, t := range catalogueSiaTraces {
		name := siaJobName(t.app, t.localBsz)
		if seen[name] {
			continue
		}
		seen[name] = true
		a := siaApps[t.app]
		out = append(out, models.JobType{
			Name: name, Model: a.model, BatchSize: t.localBsz, StateGB: a.stateGB,
			Source: catalogueSiaArtifact + ", github.com/siasosp23/artifacts; app " + t.app +
				"; BatchSize is the trace's local_bsz (per GPU); " + a.jobNotes,
		})
	}
	return out
}

// addSiaFigures stores steps/s = 1/step_time for every row.
func addSiaFigures(m *models.Matrix) error {
	for _, t := range catalogueSiaTraces {
		gpu, ok := siaClusterGPU[t.cluster]
		if !ok {
			return fmt.Errorf("sia trace %s: unknown cluster %q", t.path, t.cluster)
		}
		for _, s := range t.steps {
			gang, pl, err := siaPlacement(s.placement)
			if err != nil {
				return fmt.Errorf("sia trace %s: %w", t.path, err)
			}
			if !(s.stepTime > 0) {
				return fmt.Errorf("sia trace %s: placement %s: step_time %v is not positive", t.path, s.placement, s.stepTime)
			}
			k := models.Key{Job: siaJobName(t.app, t.localBsz), GPU: gpu, Gang: gang, Placement: pl}
			src := fmt.Sprintf("%s %s, placement %q, local_bsz %d: steps/s = 1/step_time (step_time %v s)",
				catalogueSiaArtifact, t.path, s.placement, t.localBsz, s.stepTime)
			if _, dup := m.Lookup(k); dup {
				return fmt.Errorf("sia trace %s: placement %s: %v already set", t.path, s.placement, k)
			}
			if err := m.Set(k, 1/s.stepTime, src); err != nil {
				return err
			}
		}
	}
	return nil
}
