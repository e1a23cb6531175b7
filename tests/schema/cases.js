/* cases.js — small YAML documents that pin what schemas/*.schema.json accept
 * and refuse (docs/scenarios.md). Run by `validate.js --selftest`: each case is
 * one check. `valid: false` cases must be refused by the YAML reader or the
 * schema; `valid: true` cases must pass. */
'use strict';

/* A complete scenario with no presets; cases below edit it textually. */
const BASE = `schema: planeval/v1
name: base
model:
  layers: 96
  hidden: 12288
  heads: 96
  vocab: 51200
  seq_len: 2048
cluster:
  nodes: 8
  gpus_per_node: 8
  gpu:
    hbm_gib: 192
    peak_tflops: 1307.4
    hbm_tb_s: 5.3
  intra_node: { topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }
  inter_node: { nic_gb_s: 50, latency_us: 5 }
training:
  global_batch: 1536
plans:
  - dp: 64
`;

const sub = (from, to) => {
    if (!BASE.includes(from)) throw new Error(`cases.js: "${from}" is not in BASE`);
    return BASE.replace(from, to);
};

const PRESET = `schema: planeval/v1
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
`;

module.exports = [
    /* ---------------------------------------------------------- accepted */
    { name: 'complete scenario without presets', valid: true, yaml: BASE },
    { name: 'presets with a sweep', valid: true, yaml: `${PRESET}sweep: { dp: auto, tp: [1, 2, 4, 8], zero: 3 }\n` },
    {
        name: 'partial intra_node over a cluster preset', valid: true,
        yaml: `schema: planeval/v1
model: { preset: gpt3-175b, seq_len: 4096 }
cluster:
  preset: mi300x-node
  nodes: 8
  intra_node: { latency_us: 3 }
  inter_node: { nic_gb_s: 12.5 }
  gpu: { hbm_gib: 192 }
training: { global_batch: 1536 }
plans: [{ dp: auto }]
`,
    },
    {
        name: 'every plan key and overlap', valid: true,
        yaml: `${PRESET}overlap: { tp: 0, cp: 1, dp: 0.5, pp: 0 }
plans:
  - name: all
    dp: 4
    tp: 8
    pp: 2
    cp: 1
    zero: 1
    recompute: selective
    micro_batch: 2
    schedule: interleaved
    virtual_stages: 4
    sequence_parallel: true
    overlap: { dp: 0 }
`,
    },
    {
        name: 'sweep with every key, interleaved with auto virtual stages', valid: true,
        yaml: `${PRESET}sweep:
  tp: auto
  pp: auto
  cp: auto
  dp: auto
  zero: [0, 1, 2, 3]
  recompute: [none, selective, full]
  micro_batch: auto
  schedule: [1f1b, interleaved, gpipe, zb-h1, zb-h2]
  virtual_stages: auto
  sequence_parallel: [false, true]
`,
    },
    { name: 'rank_by as a list', valid: true, yaml: `${BASE}rank_by: [step_time, memory]\n` },
    { name: 'interleaved with a list holding v >= 2', valid: true, yaml: `${PRESET}sweep: { dp: auto, pp: 2, schedule: interleaved, virtual_stages: [1, 3] }\n` },
    {
        name: 'budgets, tokens, rank_by train_days', valid: true,
        yaml: sub('training:\n  global_batch: 1536\n', 'training:\n  global_batch: 1536\n  tokens: 300e9\nbudgets: { memory_gib: 192, step_time_s: 150, train_days: 30, min_mfu: 0.3 }\nrank_by: train_days\n'),
    },
    {
        name: 'expect: best_plan, exact and tolerant values, text columns', valid: true,
        yaml: `${BASE}expect:
  - best_plan: dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0
  - plan: dp64-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0
    status: over_memory
    bound: compute
    reason: "M6: something"
    sequence_parallel: false
    gpus: 64
    mem_total_gib: { value: 137.9, rel_tol: 0.01 }
    step_time_s: { value: 145, abs_tol: 2 }
    mfu: { value: 0.4 }
    links: anything
`,
    },
    { name: 'switch topology without a preset', valid: true, yaml: sub('{ topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }', '{ topology: switch, bandwidth_gb_s: 450, latency_us: 2 }') },
    { name: 'one node needs no inter_node', valid: true, yaml: sub('  nodes: 8\n', '  nodes: 1\n').replace('  inter_node: { nic_gb_s: 50, latency_us: 5 }\n', '') },
    { name: 'model params as a float literal', valid: true, yaml: sub('  seq_len: 2048\n', '  seq_len: 2048\n  params: 175e9\n') },
    { name: 'anchors and aliases', valid: true, yaml: `${PRESET}overlap: &ov { dp: 0.5 }\nplans:\n  - { dp: 64, overlap: *ov }\n` },
    { name: 'booleans True/FALSE', valid: true, yaml: sub('  seq_len: 2048\n', '  seq_len: 2048\n  bias: True\n  dropout: FALSE\n') },

    /* YAML 1.1's booleans are strings in YAML 1.2: names, not booleans */
    { name: 'a plan named off', valid: true, yaml: sub('  - dp: 64\n', '  - name: off\n    dp: 64\n  - name: yes\n    dp: 64\n') },
    { name: 'a scenario named no', valid: true, yaml: sub('name: base\n', 'name: no\n') },
    /* ---------------------------------------------------------- refused */
    { name: 'unknown top-level key', valid: false, yaml: `${BASE}rankby: mfu\n` },
    { name: 'unknown model key', valid: false, yaml: sub('  layers: 96\n', '  layer: 96\n') },
    { name: 'integer key as 96.0', valid: false, yaml: sub('  layers: 96\n', '  layers: 96.0\n') },
    { name: 'integer key as 1e2', valid: false, yaml: sub('  layers: 96\n', '  layers: 1e2\n') },
    { name: 'integer with a leading zero', valid: false, yaml: sub('  layers: 96\n', '  layers: 096\n') },
    { name: 'hex integer', valid: false, yaml: sub('  layers: 96\n', '  layers: 0x60\n') },
    { name: '.nan', valid: false, yaml: sub('    hbm_tb_s: 5.3\n', '    hbm_tb_s: .nan\n') },
    { name: '.inf', valid: false, yaml: sub('    hbm_tb_s: 5.3\n', '    hbm_tb_s: .inf\n') },
    { name: 'boolean as yes', valid: false, yaml: sub('  seq_len: 2048\n', '  seq_len: 2048\n  bias: yes\n') },
    { name: 'boolean as on in a plan', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    sequence_parallel: on\n') },
    { name: 'quoted number', valid: false, yaml: sub('  layers: 96\n', '  layers: "96"\n') },
    { name: 'null value', valid: false, yaml: sub('  layers: 96\n', '  layers:\n') },
    { name: 'tp: 0', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    tp: 0\n') },
    { name: 'zero: 4', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    zero: 4\n') },
    { name: 'micro_batch: 2.5', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    micro_batch: 2.5\n') },
    { name: 'schedule: 1fb1', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    schedule: 1fb1\n') },
    { name: 'tp: auto in an explicit plan', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    tp: auto\n') },
    { name: 'plan without dp', valid: false, yaml: sub('  - dp: 64\n', '  - tp: 8\n') },
    { name: 'plan name that is empty', valid: false, yaml: sub('  - dp: 64\n', '  - dp: 64\n    name: ""\n') },
    { name: 'overlap above 1', valid: false, yaml: `${BASE}overlap: { dp: 1.5 }\n` },
    { name: 'unknown overlap key', valid: false, yaml: `${BASE}overlap: { xp: 1 }\n` },
    { name: 'flops_efficiency 0', valid: false, yaml: sub('    hbm_tb_s: 5.3\n', '    hbm_tb_s: 5.3\n    flops_efficiency: 0\n') },
    { name: 'flops_efficiency above 1', valid: false, yaml: sub('    hbm_tb_s: 5.3\n', '    hbm_tb_s: 5.3\n    flops_efficiency: 1.2\n') },
    { name: 'negative latency', valid: false, yaml: sub('nic_gb_s: 50, latency_us: 5', 'nic_gb_s: 50, latency_us: -1') },
    { name: 'params 0', valid: false, yaml: sub('  seq_len: 2048\n', '  seq_len: 2048\n  params: 0\n') },
    { name: 'links under switch', valid: false, yaml: sub('{ topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }', '{ topology: switch, bandwidth_gb_s: 450, links: 7, latency_us: 2 }') },
    {
        name: 'partial intra_node mixing both topologies', valid: false,
        yaml: `${PRESET}cluster: { preset: mi300x-node, nodes: 8, intra_node: { links: 7, bandwidth_gb_s: 300 } }\nplans: [{ dp: 64 }]\n`.replace('cluster: { preset: mi300x-node, nodes: 8 }\n', ''),
    },
    { name: 'full_mesh without links', valid: false, yaml: sub('{ topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }', '{ topology: full_mesh, link_gb_s: 64, latency_us: 2 }') },
    { name: 'intra_node without latency', valid: false, yaml: sub('{ topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }', '{ topology: full_mesh, links: 7, link_gb_s: 64 }') },
    { name: 'unknown topology', valid: false, yaml: sub('topology: full_mesh', 'topology: torus') },
    { name: 'no intra_node with 8 GPUs per node', valid: false, yaml: sub('  intra_node: { topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2 }\n', '') },
    { name: 'no inter_node with 8 nodes', valid: false, yaml: sub('  inter_node: { nic_gb_s: 50, latency_us: 5 }\n', '') },
    { name: 'gpu without hbm_gib and no preset', valid: false, yaml: sub('    hbm_gib: 192\n', '') },
    { name: 'sweep.cluster without a cluster block', valid: true, yaml: PRESET.replace('cluster: { preset: mi300x-node, nodes: 8 }\n', '') + 'sweep: { cluster: [h100-node, b200-node], nodes: [8, 16], dp: auto }\n' },
    { name: 'sweep.cluster with the common keys in cluster:', valid: true, yaml: PRESET.replace('{ preset: mi300x-node, nodes: 8 }', '{ nodes: 8 }') + 'sweep: { cluster: [h100-node, { preset: b200-node, cost_per_gpu_hour: 3.5 }], dp: auto }\n' },
    { name: 'sweep.inter_node link numbers', valid: true, yaml: `${PRESET}sweep: { inter_node: { nic_gb_s: [25, 50], latency_us: 5 }, intra_node: { link_gb_s: [64, 128] }, dp: auto }\n` },
    { name: 'sweep.inter_node unknown key', valid: false, yaml: `${PRESET}sweep: { inter_node: { bandwidth_gb_s: [25, 50] }, dp: auto }\n` },
    { name: 'sweep.inter_node as a list', valid: false, yaml: `${PRESET}sweep: { inter_node: [25, 50], dp: auto }\n` },
    { name: 'sweep.overlap fractions', valid: true, yaml: `${PRESET}sweep: { overlap: { dp: [0, 0.5, 1], tp: 1 }, dp: auto }\n` },
    { name: 'sweep.overlap fraction above 1', valid: false, yaml: `${PRESET}sweep: { overlap: { dp: [0, 1.5] }, dp: auto }\n` },
    { name: 'sweep.framework presets', valid: true, yaml: `${PRESET}sweep: { framework: [megatron-core, torchtitan], dp: auto }\n` },
    { name: 'sweep.framework empty', valid: false, yaml: `${PRESET}sweep: { framework: [], dp: auto }\n` },
    { name: 'sweep.cluster empty', valid: false, yaml: PRESET.replace('{ preset: mi300x-node, nodes: 8 }', '{ nodes: 8 }') + 'sweep: { cluster: [], dp: auto }\n' },
    { name: 'sweep.cluster item without preset', valid: false, yaml: PRESET.replace('{ preset: mi300x-node, nodes: 8 }', '{ nodes: 8 }') + 'sweep: { cluster: [h100-node, { cost_per_gpu_hour: 3.5 }], dp: auto }\n' },
    { name: 'an incomplete cluster without sweep.cluster', valid: false, yaml: PRESET.replace('{ preset: mi300x-node, nodes: 8 }', '{ nodes: 8 }') + 'sweep: { dp: auto }\n' },
    { name: 'cluster without nodes', valid: false, yaml: PRESET.replace(', nodes: 8', '') + 'plans: [{ dp: 64 }]\n' },
    { name: 'model without layers and no preset', valid: false, yaml: sub('  layers: 96\n', '') },
    { name: 'missing training', valid: false, yaml: sub('training:\n  global_batch: 1536\n', '') },
    { name: 'missing schema tag', valid: false, yaml: sub('schema: planeval/v1\n', '') },
    { name: 'wrong schema tag', valid: false, yaml: sub('schema: planeval/v1\n', 'schema: planeval/v2\n') },
    { name: 'name with capitals and spaces', valid: false, yaml: sub('name: base\n', 'name: Base Case\n') },
    { name: 'no plans and no sweep', valid: false, yaml: sub('plans:\n  - dp: 64\n', '') },
    { name: 'empty plans and no sweep', valid: false, yaml: sub('plans:\n  - dp: 64\n', 'plans: []\n') },
    { name: 'sweep without dp', valid: false, yaml: `${PRESET}sweep: { tp: [1, 2] }\n` },
    { name: 'sweep zero: auto', valid: false, yaml: `${PRESET}sweep: { dp: auto, zero: auto }\n` },
    { name: 'sweep auto inside a list', valid: false, yaml: `${PRESET}sweep: { dp: auto, tp: [auto] }\n` },
    { name: 'sweep empty list', valid: false, yaml: `${PRESET}sweep: { dp: auto, tp: [] }\n` },
    { name: 'sweep name key', valid: false, yaml: `${PRESET}sweep: { dp: auto, name: x }\n` },
    { name: 'sweep.overlap as a value', valid: false, yaml: `${PRESET}sweep: { dp: auto, overlap: 0.5 }\n` },
    { name: 'sweep interleaved without virtual_stages', valid: false, yaml: `${PRESET}sweep: { dp: auto, pp: 2, schedule: [1f1b, interleaved] }\n` },
    { name: 'sweep interleaved with virtual_stages 1', valid: false, yaml: `${PRESET}sweep: { dp: auto, pp: 2, schedule: interleaved, virtual_stages: [1] }\n` },
    { name: 'budget train_days without tokens', valid: false, yaml: `${BASE}budgets: { train_days: 30 }\n` },
    { name: 'rank_by train_days without tokens', valid: false, yaml: `${BASE}rank_by: train_days\n` },
    { name: 'unknown rank_by', valid: false, yaml: `${BASE}rank_by: speed\n` },
    { name: 'rank_by list repeating a key', valid: false, yaml: `${BASE}rank_by: [step_time, step_time]\n` },
    { name: 'rank_by empty list', valid: false, yaml: `${BASE}rank_by: []\n` },
    { name: 'rank_by list with train_days without tokens', valid: false, yaml: `${BASE}rank_by: [memory, train_days]\n` },
    { name: 'min_mfu above 1', valid: false, yaml: `${BASE}budgets: { min_mfu: 1.5 }\n` },
    { name: 'expect on the design-axis columns', valid: true, yaml: `${BASE}expect:\n  - plan: x\n    cluster: b200-node\n    framework: nemo\n    inter_node.nic_gb_s: 50\n    overlap.dp: { value: 1, abs_tol: 0 }\n` },
    { name: 'expect a design-axis text column given a number', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    cluster: 3\n` },
    { name: 'expect mixing best_plan and a column', valid: false, yaml: `${BASE}expect:\n  - best_plan: x\n    status: ok\n` },
    { name: 'expect with an unknown column', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    memory_gib: 3\n` },
    { name: 'expect on the scenario column', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    scenario: base\n` },
    { name: 'expect with both tolerances', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    mfu: { value: 0.4, rel_tol: 0.1, abs_tol: 0.1 }\n` },
    { name: 'expect tolerance without value', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    mfu: { rel_tol: 0.1 }\n` },
    { name: 'expect text column given a number', valid: false, yaml: `${BASE}expect:\n  - plan: x\n    status: 1\n` },
    { name: 'duplicate keys', valid: false, yaml: sub('  layers: 96\n', '  layers: 96\n  layers: 97\n') },
    { name: 'two documents', valid: false, yaml: `${BASE}---\n${BASE}` },
    { name: 'merge key', valid: false, yaml: `${PRESET}plans:\n  - &b { dp: 64 }\n  - { <<: *b, zero: 1 }\n` },
    { name: 'empty file', valid: false, yaml: '' },
    {
        name: 'billion laughs', valid: false,
        yaml: `${BASE}description: &a0 [x, x, x, x, x, x, x, x, x, x]\n` +
            Array.from({ length: 8 }, (_, i) => `x${i + 1}: &a${i + 1} [*a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}]\n`).join(''),
    },
    { name: 'nesting deeper than 64', valid: false, yaml: `${BASE}description: ${'['.repeat(70)}${']'.repeat(70)}\n` },
    { name: 'a list, not a mapping', valid: false, yaml: '- schema: planeval/v1\n' },

    /* ---------------------------------------------------------- catalog */
    {
        kind: 'catalog', name: 'catalog with all three sections', valid: true,
        yaml: `models:
  tiny: { layers: 2, hidden: 64, heads: 4, vocab: 1000, seq_len: 128, mlp: swiglu, norm: rmsnorm }
gpus:
  toy: { hbm_gib: 16, peak_tflops: 100, hbm_tb_s: 1, flops_efficiency: 0.4 }
clusters:
  toy-node:
    gpus_per_node: 4
    reserve_gib: 2
    gpu: { preset: toy }
    intra_node: { topology: switch, bandwidth_gb_s: 100, latency_us: 2 }
    inter_node: { nic_gb_s: 25, latency_us: 5 }
`,
    },
    { kind: 'catalog', name: 'catalog cluster setting nodes', valid: false, yaml: 'clusters:\n  x: { nodes: 2, gpus_per_node: 1, gpu: { preset: toy } }\n' },
    { kind: 'catalog', name: 'catalog cluster naming a cluster preset', valid: false, yaml: 'clusters:\n  x: { preset: h100-node, gpus_per_node: 1, gpu: { preset: toy } }\n' },
    { kind: 'catalog', name: 'catalog cluster with a partial intra_node', valid: false, yaml: 'clusters:\n  x: { gpus_per_node: 8, gpu: { preset: toy }, intra_node: { latency_us: 2 } }\n' },
    { kind: 'catalog', name: 'catalog model without layers', valid: false, yaml: 'models:\n  x: { hidden: 64, heads: 4, vocab: 1000, seq_len: 128 }\n' },
    { kind: 'catalog', name: 'catalog model with a preset', valid: false, yaml: 'models:\n  x: { preset: gpt3-175b, layers: 2, hidden: 64, heads: 4, vocab: 1000, seq_len: 128 }\n' },
    { kind: 'catalog', name: 'catalog gpu without hbm_tb_s', valid: false, yaml: 'gpus:\n  x: { hbm_gib: 16, peak_tflops: 100 }\n' },
    { kind: 'catalog', name: 'catalog entry name with capitals', valid: false, yaml: 'gpus:\n  H100: { hbm_gib: 80, peak_tflops: 989.4, hbm_tb_s: 3.35 }\n' },
    { kind: 'catalog', name: 'catalog unknown section', valid: false, yaml: 'nodes:\n  x: {}\n' },
];
