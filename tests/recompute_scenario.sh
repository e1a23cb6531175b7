# recompute_scenario.sh — sourced by the recompute tests after testlib.sh:
# rc_scen NAME FRAMEWORK-MAPPING RECOMPUTE [FIDELITY] writes a one-plan
# Llama 2 7B scenario (dp 2, tp 2, pp 2 on one H100 node) under that
# framework and recompute, and runs it into $work/rc/NAME.csv.
rc_scen() {
    cat >"$work/$1.yaml" <<YAML
schema: planeval/v1
name: $1
fidelity: ${4:-refined}
model: { preset: llama2-7b, seq_len: 4096 }
cluster: { preset: h100-node, nodes: 1 }
framework: $2
training: { global_batch: 64 }
plans:
  - { name: p, dp: 2, tp: 2, pp: 2, zero: 1, micro_batch: 1, recompute: $3 }
YAML
    "$planeval" run -o "$work/rc" "$work/$1.yaml" >/dev/null 2>&1
}
