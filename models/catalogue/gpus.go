package catalogue

import "fairbench/models"

// catalogueGPUTypes are the built-in GPU types, oldest generation first. Rank
// orders them by generation: K80 (Kepler, 2014) < P100 (Pascal, 2016) < V100
// (Volta, 2017) < T4 (Turing, 2018) < A10 (Ampere GA102; placed before the
// A100 by the project's convention) < A100-40GB < A100-80GB (same generation,
// the larger-memory SKU ranked above) < H100 (Hopper) < H200 (Hopper, HBM3e).
//
// MemoryGB is the device memory of one GPU as the vendor's datasheet states it
// ("GB"). Gavel treats one die of a dual-GPU K80 board as one GPU, so the K80
// has 12 GB. The V100 ships with 16 GB or 32 GB; fairbench uses the 16 GB
// model, which the project brief takes to be the one in Gavel's testbed (not
// checked against the paper here). The Sia traces do not state the memory of
// their V100 (azure) GPUs; their figures are filed under this V100 type.
//
// ReadGavelThroughputs matches GPU keys against these names up to case, so
// the names must stay distinct ignoring case.
var catalogueGPUTypes = []models.GPUType{
	{Name: "K80", MemoryGB: 12, Rank: 1,
		Source: "NVIDIA Tesla K80 datasheet: 24 GB GDDR5 per board of two GK210 GPUs, 12 GB per GPU (Gavel counts one GPU die as one GPU)"},
	{Name: "P100", MemoryGB: 16, Rank: 2,
		Source: "NVIDIA Tesla P100 datasheet: 16 GB CoWoS HBM2 (SXM2 and 16 GB PCIe models; a 12 GB PCIe model also exists)"},
	{Name: "V100", MemoryGB: 16, Rank: 3,
		Source: "NVIDIA Tesla V100 datasheet: 16 GB or 32 GB HBM2; the 16 GB model, as in Gavel's testbed per the fairbench brief"},
	{Name: "T4", MemoryGB: 16, Rank: 4,
		Source: "NVIDIA T4 datasheet: 16 GB GDDR6"},
	{Name: "A10", MemoryGB: 24, Rank: 5,
		Source: "NVIDIA A10 datasheet: 24 GB GDDR6"},
	{Name: "A100-40GB", MemoryGB: 40, Rank: 6,
		Source: "NVIDIA A100 datasheet: 40 GB HBM2 model"},
	{Name: "A100-80GB", MemoryGB: 80, Rank: 7,
		Source: "NVIDIA A100 datasheet: 80 GB HBM2e model"},
	{Name: "H100", MemoryGB: 80, Rank: 8,
		Source: "NVIDIA H100 datasheet: H100 SXM, 80 GB HBM3"},
	{Name: "H200", MemoryGB: 141, Rank: 9,
		Source: "NVIDIA H200 datasheet: 141 GB HBM3e"},
}
