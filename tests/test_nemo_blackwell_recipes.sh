#!/usr/bin/env bash
# test_nemo_blackwell_recipes.sh PLANEVAL SOURCE_DIR WORKDIR — each NeMo
# DGX-B200 / DGX-GB200 pre-training file (scenarios/published/nemo-2502-*-b200-*,
# nemo-2504-*-gb200-*) runs the layout NeMo's own performance scripts ran
# for that row: GPUs, TP, PP, CP, EP, expert TP, VP, micro batch, global
# batch and sequence, as planeval reads the file (the report's columns, by
# name), against the rows of scripts/llm/performance/recommended_model_configs/
# model_configs_b200.csv at NVIDIA/NeMo tag v2.2.0 (NeMo 25.02) and
# scripts/performance/recommended_model_configs/model_configs_gb200.csv at
# tag v2.3.0 (NeMo 25.04), dtype fp8, transcribed below. An empty etp cell
# in the CSV is Megatron-Core's default, etp = tp.
. "$(dirname "$0")/testlib.sh"

# file | gpus tp pp cp ep etp vp mbs gbs seq | where the row is
rows=$(cat <<'ROWS'
nemo-2502-gpt3-175b-b200-512gpu|512 4 4 1 1 4 6 2 2048 2048|b200 v2.3.0 (the 512-GPU row is not in v2.2.0's CSV; its 128-GPU row is)
nemo-2502-llama3-8b-b200-8gpu|8 1 1 1 1 1 1 2 128 8192|b200 v2.2.0
nemo-2502-llama3-70b-b200-64gpu|64 2 4 2 1 2 5 1 128 8192|b200 v2.2.0
nemo-2502-mixtral-8x7b-b200-64gpu|64 1 1 1 8 1 1 2 256 4096|b200 v2.2.0
nemo-2502-mixtral-8x22b-b200-256gpu|256 2 4 8 8 1 14 1 64 65536|b200 v2.2.0: etp_size 1
nemo-2502-nemotron-15b-b200-64gpu|64 1 1 1 1 1 1 2 256 4096|b200 v2.2.0
nemo-2502-nemotron-340b-b200-128gpu|128 8 4 1 1 8 12 1 32 4096|b200 v2.2.0
nemo-2504-gpt3-175b-gb200-128gpu|128 4 4 1 1 4 12 2 256 2048|gb200 v2.3.0
nemo-2504-llama3-8b-gb200-8gpu|8 1 1 1 1 1 1 2 128 8192|gb200 v2.3.0 has mbs 4 since 2025-04-10; the published table's MBS 2 is kept
nemo-2504-llama3-70b-gb200-64gpu|64 1 1 1 1 1 1 1 128 8192|gb200 v2.3.0 (use_mcore_fsdp 1)
nemo-2504-mixtral-8x7b-gb200-64gpu|64 1 1 1 8 1 1 2 256 4096|gb200 v2.3.0
nemo-2504-mixtral-8x22b-gb200-256gpu|256 2 4 8 8 1 14 1 64 65536|b200 v2.3.0 (no gb200 row): etp_size 1
nemo-2504-nemotron-15b-gb200-64gpu|64 1 1 1 1 1 1 2 256 4096|gb200 v2.3.0
nemo-2504-nemotron-340b-gb200-128gpu|128 8 4 1 1 8 12 1 32 4096|gb200 v2.3.0
ROWS
)
columns="gpus tp pp cp ep etp virtual_stages micro_batch global_batch seq_len"

while IFS='|' read -r name want where; do
    file="$src/scenarios/published/$name.yaml"
    check "$name: the file exists" '[ -f "$file" ]' || continue
    "$planeval" run --quiet -o "$work/$name" "$file" >/dev/null 2>&1
    report="$work/$name/$name.csv"
    check "$name: a report" '[ -f "$report" ]' || continue
    got=""
    for c in $columns; do got="$got $(csv_column "$report" "$c" | head -1)"; done
    got=${got# }
    check "$name ($where): $columns = $want, read $got" '[ "$got" = "$want" ]'
done <<<"$rows"

# The FP8 recipe each row ran, read from the same tags, is in its file's
# comments: NeMo 25.02's bf16_with_fp8_mixed (delayed scaling) and the
# 25.04 table's current (per-tensor) scaling.
for f in "$src"/scenarios/published/nemo-2502-*-b200-*.yaml; do
    check "$(basename "$f"): names delayed scaling" 'grep -q "delayed scaling" "$f"'
done
for f in "$src"/scenarios/published/nemo-2504-*-gb200-*.yaml; do
    check "$(basename "$f"): names current scaling" 'grep -qiE "current (step|\(per-step\) scaling)|calculated in the current step|computed in the current step" "$f"'
done
finish
