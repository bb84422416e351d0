package calibrate

// Limits on what profiles and records may hold, enforced where they are
// read (ParseSpec, DecodeRecord) with an error naming the file, line and
// field. They are far above any real calibration and keep hostile input
// from exhausting memory or time.
const (
	maxProfileBytes  = 1 << 20  // a profile file
	maxRecordBytes   = 32 << 20 // a calibration record
	maxDevices       = 64
	maxModels        = 256
	maxSizesPerModel = 64 // batch sizes or gang sizes of one model
	maxEntries       = 10_000
	maxPairs         = 1_000
	maxRecordEntries = 20_000 // entries (or pairs) of a record, merged ones included
	maxBatchSize     = 1 << 20
	maxGang          = 1024
	maxSteps         = 10_000_000
	maxSeconds       = 7 * 24 * 3600 // one week, any *_seconds key
	maxSampleHz      = 100
	maxThreads       = 4096
	maxTextLen       = 4096 // a name, path, job type or citation
	maxJobTypeLen    = 200
	maxMemoryBytes   = 1 << 50 // 1 PiB
	maxStepsPerSec   = 1e9
	maxJSONDepth     = 32
)

// maxArg bounds each workload argument.
var maxArg = map[string]int{
	"image_size": 8192, "num_classes": 1 << 24, "seq_len": 1 << 20, "vocab": 1 << 24,
	"d_model": 1 << 16, "layers": 1024, "heads": 1024,
}
