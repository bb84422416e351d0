#!/usr/bin/env bash
# A fairbench grid as a Slurm job array: one task per shard, the shard index
# from SLURM_ARRAY_TASK_ID and the number of shards from SLURM_ARRAY_TASK_COUNT.
# Submit with
#   sbatch --array=0-7 deploy/slurm/grid-array.sh sweep.yaml results/shards
# and merge when every task is done:
#   fairbench merge results/shards --out results/merged
# A "%a" in OUTDIR becomes the task's array index, as in sbatch's --output,
# so that each task writes a folder of its own:
#   sbatch --array=0-7 deploy/slurm/grid-array.sh sweep.yaml 'results/shard-%a'
#   fairbench merge results/shard-* --out results/merged
# A task that is requeued resumes its shard: finished runs are skipped.
# FAIRBENCH names the binary (default: fairbench on the PATH).
#SBATCH --job-name=fairbench-grid
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=fairbench-%A_%a.log
set -euo pipefail

scenario=${1:?usage: sbatch --array=0-(N-1) grid-array.sh SCENARIO.yaml OUTDIR}
out=${2:?usage: sbatch --array=0-(N-1) grid-array.sh SCENARIO.yaml OUTDIR}
: "${SLURM_ARRAY_TASK_ID:?run this through sbatch --array}"
shards=${SLURM_ARRAY_TASK_COUNT:-1}
fairbench=${FAIRBENCH:-fairbench}
out=${out//'%a'/$SLURM_ARRAY_TASK_ID}

exec "$fairbench" grid "$scenario" \
  --shard "${SLURM_ARRAY_TASK_ID}/${shards}" \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$out"
