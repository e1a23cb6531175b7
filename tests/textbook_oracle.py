#!/usr/bin/env python3
"""textbook_oracle.py — an independent implementation of the textbook model.

Written from the specification alone (the shared spec's model.md v1.1 and
interface.md), without reading planeval's source: it generates seeded random
scenarios (as YAML text, standard library only), runs `planeval run` on them
and compares every cell of every report with its own evaluation, row by row
(the ranking) and column by column (the 47 columns of interface.md).

    python3 tests/textbook_oracle.py PLANEVAL [--seed S] [--count N]
            [--work DIR] [--max-report K] [--reuse]

(--reuse compares the reports an earlier run of the same seed and count left
in DIR, without running planeval: tests/test_textbook_oracle.sh uses it to
show that a changed cell or a changed row order is caught.)

Exit status: 0 every cell agrees, 1 a mismatch (the first ones printed:
scenario, plan, column, both values), 2 usage or a planeval failure.

Equation ids in the comments are the spec's (model.md §1-9).
"""

import argparse
import csv
import decimal
import math
import os
import random
import re
import shutil
import subprocess
import sys

GIB = 2.0 ** 30

COLUMNS = (
    "rank,scenario,plan,status,reason,gpus,dp,tp,pp,cp,zero,recompute,schedule,"
    "virtual_stages,sequence_parallel,micro_batch,microbatches,worst_stage,"
    "mem_weights_gib,mem_grads_gib,mem_optimizer_gib,mem_activations_gib,"
    "mem_other_gib,mem_reserve_gib,mem_total_gib,mem_budget_gib,mem_headroom_gib,"
    "compute_s,tp_comm_s,cp_comm_s,bubble_s,pp_comm_s,dp_comm_s,optimizer_s,"
    "step_time_s,comm_fraction,bubble_fraction,bound,tokens_per_s,mfu,hfu,"
    "tflops_per_gpu,train_days,gpu_hours,interventions,state_total_gib,act_total_gib"
).split(",")
INT_COLUMNS = {"rank", "gpus", "dp", "tp", "pp", "cp", "zero", "virtual_stages",
               "micro_batch", "microbatches", "worst_stage", "interventions"}
TEXT_COLUMNS = {"scenario", "plan", "status", "reason", "recompute", "schedule", "bound",
                "sequence_parallel"}
SCHEDULES = ["1f1b", "interleaved", "gpipe", "zb-h1", "zb-h2"]
RECOMPUTES = ["none", "selective", "full"]
STATUS_CLASS = {"ok": 0, "over_time": 1, "over_memory": 2, "invalid": 3}


# ---------------------------------------------------------------- the model

def divides(x, y):
    return y % x == 0


def norm_params(mo):
    return 2 * mo["hidden"] if mo["norm"] == "layernorm" else mo["hidden"]


def model_dims(mo):
    """P1-P3 and what does not depend on the plan."""
    h, a, g, f = mo["hidden"], mo["heads"], mo["kv_heads"], mo["ffn_hidden"]
    d = h / a
    k_mu = 2 if mo["mlp"] == "gelu" else 3
    n_mm = h * (h + 2 * g * d) + h * h + k_mu * h * f                    # P1
    bias = ((h + 2 * g * d) + h + (f + h if mo["mlp"] == "gelu" else 2 * f + h))
    n_layer = n_mm + (bias if mo["bias"] else 0) + 2 * norm_params(mo)   # P2
    n_embed = mo["vocab"] * h + (mo["seq_len"] * h if mo["position"] == "learned" else 0)  # P3
    vh = mo["vocab"] * h
    n_out_p1 = 0 if mo["tied_embeddings"] else vh                        # P4 at p = 1
    if mo.get("params") is not None:                                     # P6
        n_layer = (mo["params"] - n_embed - n_out_p1 - norm_params(mo)) / mo["layers"]
    return dict(d=d, n_mm=n_mm, n_layer=n_layer, n_embed=n_embed, vh=vh)


def n_out(mo, p):                                                        # P4
    vh = mo["vocab"] * mo["hidden"]
    if not mo["tied_embeddings"]:
        return vh
    return 0 if p == 1 else vh


def a_layer(mo, dims, t, c, sp, b, recompute):
    """A1-A4: bytes of one layer's activations for one micro-batch."""
    h, a, g, f, s = mo["hidden"], mo["heads"], mo["kv_heads"], mo["ffn_hidden"], mo["seq_len"]
    delta = 1 if mo["dropout"] else 0
    rep = 8 * h + 2 * delta * h                                          # A1
    par = 4 * h + 4 * g * dims["d"] + (4 * f if mo["mlp"] == "gelu" else 6 * f)  # A2
    att = (2 + 3 * delta) * a * s                                        # A3
    if mo["attention"] == "flash" or recompute == "selective":
        att = 0
    s1 = s / c
    inner = (rep + par) / t if sp else rep + par / t
    return s1 * b * (inner + att / t)                                    # A4


def in_flight(schedule, p, v, m):
    """k(0), k(p-1) of the §3 table."""
    if p == 1:
        return 1, 1
    if schedule in ("1f1b", "zb-h1"):
        return min(p, m), 1
    if schedule == "interleaved":
        return min(p + (p - 1) / v, m), min(p - (p - 1) / v, m)
    if schedule == "gpipe":
        return m, m
    return min(2 * p - 1, m), 1                                          # zb-h2


class Group:
    """C1-C7 for one axis group of size n and stride k."""

    def __init__(self, cl, n, k):
        self.cl, self.n = cl, n
        G = cl["gpus_per_node"]
        self.n_in = min(n, max(1, G // k))                               # C1
        self.n_out = math.ceil(n / self.n_in)
        intra = cl.get("intra_node")
        if self.n_in > 1:                                                # C2
            if intra["topology"] == "switch":
                self.b_in = intra["bandwidth_gb_s"] * 1e9
            else:
                self.b_in = min(self.n_in - 1, intra["links"]) * intra["link_gb_s"] * 1e9
            self.a_in = intra["latency_us"] * 1e-6
        if self.n_out > 1:                                               # C3
            self.b_out = cl["inter_node"]["nic_gb_s"] * 1e9
            self.a_out = cl["inter_node"]["latency_us"] * 1e-6

    def rs(self, S):                                                     # C4
        if self.n == 1:
            return 0.0
        t = 0.0
        if self.n_in > 1:
            t += (self.n_in - 1) / self.n_in * S / self.b_in + (self.n_in - 1) * self.a_in
        if self.n_out > 1:
            t += (self.n_out - 1) / self.n_out * (S / self.n_in) / self.b_out \
                + (self.n_out - 1) * self.a_out
        return t

    def ar(self, S):                                                     # C5
        return 2 * self.rs(S)

    def p2p(self, S):                                                    # C7
        if self.n == 1:
            return 0.0
        if self.n_out > 1:
            return self.a_out + S / self.b_out
        intra = self.cl["intra_node"]
        bw = intra["bandwidth_gb_s"] if intra["topology"] == "switch" else intra["link_gb_s"]
        return self.a_in + S / (bw * 1e9)


def validity(sc, pl, N):
    """V1-V8: the text of every broken rule, in order (§1).

    The spec fixes the rules, their order, the numbers and the `; ` join
    (its example: `V3: pp=5 does not divide layers=96`); the words of the
    other rules follow the reports planeval writes, checked exactly so that
    any change of wording shows here too."""
    mo, cl, B = sc["model"], sc["cluster"], sc["training"]["global_batch"]
    dp, t, p, c, v, b = pl["dp"], pl["tp"], pl["pp"], pl["cp"], pl["virtual_stages"], pl["micro_batch"]
    G = cl["gpus_per_node"]
    broken = []
    if dp * t * p * c != N:                                              # V1
        broken.append("V1: dp*tp*pp*cp=%d != gpus=%d" % (dp * t * p * c, N))
    bad = ["%s=%d" % (k, mo[k]) for k in ("heads", "kv_heads", "ffn_hidden") if not divides(t, mo[k])]
    if bad:                                                              # V2
        broken.append("V2: tp=%d does not divide %s" % (t, ", ".join(bad)))
    if not divides(p * v, mo["layers"]):                                 # V3
        what = "pp=%d" % p if v == 1 else "pp*virtual_stages=%d" % (p * v)
        broken.append("V3: %s does not divide layers=%d" % (what, mo["layers"]))
    if not divides(c, mo["seq_len"]):                                    # V4
        broken.append("V4: cp=%d does not divide seq_len=%d" % (c, mo["seq_len"]))
    elif pl["sp"] and t > 1 and not divides(t, mo["seq_len"] // c):
        broken.append("V4: tp=%d does not divide seq_len/cp=%d (sequence parallel)" % (t, mo["seq_len"] // c))
    v5 = divides(b * dp, B)
    if not v5:                                                           # V5
        broken.append("V5: micro_batch*dp=%d does not divide global_batch=%d" % (b * dp, B))
    if pl["schedule"] == "interleaved":                                  # V6
        needs = []
        if p < 2:
            needs.append("pp>=2 (pp=%d)" % p)
        if v < 2:
            needs.append("virtual_stages>=2 (virtual_stages=%d)" % v)
        if v5 and (B // (b * dp)) % p:
            needs.append("microbatches=%d to be a multiple of pp=%d" % (B // (b * dp), p))
        if needs:
            broken.append("V6: interleaved needs " + ", ".join(needs))
    elif v != 1:
        broken.append("V6: %s needs virtual_stages=1 (virtual_stages=%d)" % (pl["schedule"], v))
    if cl.get("allow_cross_node_tp"):                                    # V7
        if not (divides(t, G) or divides(G, t)):
            broken.append("V7: tp=%d neither divides nor is a multiple of gpus_per_node=%d" % (t, G))
    elif not divides(t, G):
        broken.append("V7: tp=%d does not divide gpus_per_node=%d%s" % (
            t, G, " (allow_cross_node_tp is false)" if t > G and divides(G, t) else ""))
    bad = ["%s=%d neither divides nor is a multiple of gpus_per_node=%d" % (name, grp, G)
           for name, grp in (("tp*cp", t * c), ("tp*cp*dp", t * c * dp))
           if not (divides(grp, G) or divides(G, grp))]
    if bad:                                                              # V8
        broken.append("V8: " + ", ".join(bad))
    return broken


def evaluate(sc, pl):
    """One plan: a dict of report cells (values, not text) and ranking keys."""
    mo, cl, pr, tr = sc["model"], sc["cluster"], sc["precision"], sc["training"]
    gpu, G = cl["gpu"], cl["gpus_per_node"]
    N = G * cl["nodes"]
    dp, t, p, c, v, b, z = (pl[k] for k in ("dp", "tp", "pp", "cp", "virtual_stages", "micro_batch", "zero"))
    rec, sched, sp = pl["recompute"], pl["schedule"], pl["sp"]
    row = dict(scenario=sc["name"], plan=pl["name"], gpus=N, dp=dp, tp=t, pp=p, cp=c,
               zero=z, recompute=rec, schedule=sched, virtual_stages=v,
               sequence_parallel="true" if sp else "false", micro_batch=b)
    broken = validity(sc, pl, N)
    if broken:
        row.update(status="invalid", reason="; ".join(broken))
        return row
    L, h, V, s, B = mo["layers"], mo["hidden"], mo["vocab"], mo["seq_len"], tr["global_batch"]
    dims = model_dims(mo)
    n_layer = dims["n_layer"]
    m = B // (b * dp)
    s1 = s / c
    D = dp * c
    bw, bg, bo = pr["param_bytes"], pr["grad_bytes"], pr["optimizer_bytes"]
    stages = [0] if p == 1 else [0, p - 1]
    spt = t if sp else 1

    def n_gpu(st):                                                       # P7
        return ((L / p) * n_layer + (dims["n_embed"] if st == 0 else 0)
                + (n_out(mo, p) + norm_params(mo) if st == p - 1 else 0)) / t

    # memory (M1-M6, A5-A8)
    al = a_layer(mo, dims, t, c, sp, b, rec)
    al_none = a_layer(mo, dims, t, c, sp, b, "none")
    k0, klast = in_flight(sched, p, v, m)
    k_first = min(2 * p, m) if (sched == "interleaved" and p > 1) else k0
    k_last_chunk = 1 if (sched == "interleaved" and p > 1) else klast
    delta = 1 if mo["dropout"] else 0
    mem = {}
    for st in stages:
        ng = n_gpu(st)
        m1 = bw * ng / (D if z >= 3 else 1)                              # M1
        m2 = bg * ng / (D if z >= 2 else 1)                              # M2
        m3 = bo * ng / (D if z >= 1 else 1)                              # M3
        m4 = (2 * bw + bg) * max(n_layer, dims["vh"]) / t if z == 3 else 0.0  # M4
        k = k0 if st == 0 else klast
        if rec == "full":                                                # A5, A6
            a_in = 2 * s1 * b * h / spt
            a6 = a_in * (L / p) * k + al_none
        else:
            a6 = al * (L / p) * k
        a78 = 0.0
        if st == 0:                                                      # A7
            a78 += delta * s1 * b * h / spt * k_first
        if st == p - 1:                                                  # A8
            a78 += (4 * s1 * b * h / spt + 4 * s1 * b * V / t) * k_last_chunk
        other = m4 + a78
        R = cl["reserve_gib"] * GIB
        total = m1 + m2 + m3 + m4 + a6 + a78 + R                         # M5
        mem[st] = dict(m1=m1, m2=m2, m3=m3, a6=a6, other=other, R=R, total=total)
    mst = stages[0]
    for st in stages[1:]:
        if mem[st]["total"] > mem[mst]["total"]:
            mst = st
    budget = gpu["hbm_gib"]
    if sc["budgets"].get("memory_gib") is not None:
        budget = min(budget, sc["budgets"]["memory_gib"])
    mm = mem[mst]

    # compute (F1-F6)
    kappa = 0.5 if mo["causal_flops"] else 1.0
    f_layer = 2 * dims["n_mm"] + 4 * s * h * kappa                       # F1
    f_outl = 2 * h * V                                                   # F2
    f_model = 3 * B * s * (L * f_layer + f_outl)                         # F3
    x = {"full": f_layer, "selective": 4 * s * h * kappa, "none": 0.0}[rec]  # F4
    f_hw = f_model + B * s * L * x
    rate = gpu["peak_tflops"] * 1e12 * gpu["flops_efficiency"]
    tau_lf = b * s1 * f_layer / t / rate                                 # F6
    tau_lb = (2 * b * s1 * f_layer + b * s1 * x) / t / rate
    tau_att = b * s1 * 4 * s * h * kappa / t / rate

    ov = pl["overlap"]
    tp_g = Group(cl, t, 1)
    cp_g = Group(cl, c, t)
    dp_g = Group(cl, dp * c, t)
    pp_g = Group(cl, p, t * c * dp)
    T_ar = tp_g.ar(2 * b * s1 * h)                                       # X1
    chi_tpf = (L / p) * max(0.0, 2 * T_ar - ov["tp"] * tau_lf)
    chi_tpb = (L / p) * max(0.0, (2 + (2 if rec == "full" else 0)) * T_ar - ov["tp"] * tau_lb)
    T_kv = cp_g.p2p(2 * b * s1 * 2 * mo["kv_heads"] * dims["d"] / t)     # X2
    chi_cpf = (L / p) * max(0.0, (c - 1) * T_kv - ov["cp"] * tau_att)
    chi_cpb = (L / p) * max(0.0, (2 + (1 if rec != "none" else 0)) * (c - 1) * T_kv
                            - ov["cp"] * 2 * tau_att)
    times = {}
    for st in stages:
        f_fwd = b * s1 * ((L / p) * f_layer + (f_outl if st == p - 1 else 0)) / t  # F5
        f_bwd = 2 * f_fwd + b * s1 * (L / p) * x / t
        tf_, tb_ = f_fwd / rate, f_bwd / rate
        times[st] = dict(tau_f=tf_, tau_b=tb_, t_f=tf_ + chi_tpf + chi_cpf, t_b=tb_ + chi_tpb + chi_cpb)
    tst = stages[0]
    for st in stages[1:]:
        if times[st]["t_f"] + times[st]["t_b"] > times[tst]["t_f"] + times[tst]["t_b"]:
            tst = st
    T = times[tst]
    tau_f, tau_b, t_f, t_b = T["tau_f"], T["tau_b"], T["t_f"], T["t_b"]
    if p == 1:                                                           # X3
        chi_pp = 0.0
    else:
        T_pp = pp_g.p2p(2 * b * s1 * h / spt)
        chi_pp = m * v * (max(0.0, T_pp - ov["pp"] * tau_f / v) + max(0.0, T_pp - ov["pp"] * tau_b / v))
    ng = n_gpu(tst)                                                      # X4
    S_g, S_w = bg * ng, bw * ng
    if z == 0:
        dpc = max(0.0, dp_g.ar(S_g) - ov["dp"] * tau_b)
    elif z == 1:
        dpc = max(0.0, dp_g.rs(S_g) - ov["dp"] * tau_b) + max(0.0, dp_g.rs(S_w) - ov["dp"] * tau_f)
    elif z == 2:
        dpc = m * max(0.0, dp_g.rs(S_g) - ov["dp"] * tau_b) + max(0.0, dp_g.rs(S_w) - ov["dp"] * tau_f)
    else:
        dpc = m * max(0.0, 2 * dp_g.rs(S_w) + dp_g.rs(S_g) - ov["dp"] * (tau_f + tau_b))
    opt = ng / (D if z >= 1 else 1) * (bw + bg + 2 * bo) / (gpu["hbm_tb_s"] * 1e12)  # X5
    if p == 1:                                                           # B1-B4
        bubble = 0.0
    elif sched in ("gpipe", "1f1b"):
        bubble = (p - 1) * (t_f + t_b)
    elif sched == "interleaved":
        bubble = (p - 1) * (t_f + t_b) / v
    elif sched == "zb-h1":
        bubble = (p - 1) * t_f
    else:
        bubble = 0.0
    compute = m * (tau_f + tau_b)
    tp_comm = m * (chi_tpf + chi_tpb)
    cp_comm = m * (chi_cpf + chi_cpb)
    step = compute + tp_comm + cp_comm + bubble + chi_pp + dpc + opt     # S1
    comm = tp_comm + cp_comm + chi_pp + dpc
    bound = "compute"                                                    # S3
    if comm > compute:
        bound = "communication"
    if bubble > max(compute, comm):
        bound = "bubble"
    peak = gpu["peak_tflops"] * 1e12
    tps = B * s / step                                                   # S4
    row.update(
        microbatches=m, worst_stage=mst,
        mem_weights_gib=mm["m1"] / GIB, mem_grads_gib=mm["m2"] / GIB,
        mem_optimizer_gib=mm["m3"] / GIB, mem_activations_gib=mm["a6"] / GIB,
        mem_other_gib=mm["other"] / GIB, mem_reserve_gib=mm["R"] / GIB,
        mem_total_gib=mm["total"] / GIB, mem_budget_gib=budget,
        mem_headroom_gib=budget - mm["total"] / GIB,
        compute_s=compute, tp_comm_s=tp_comm, cp_comm_s=cp_comm, bubble_s=bubble,
        pp_comm_s=chi_pp, dp_comm_s=dpc, optimizer_s=opt, step_time_s=step,
        comm_fraction=comm / step,                                       # S2
        bubble_fraction=bubble / (m * (t_f + t_b)),
        bound=bound, tokens_per_s=tps, mfu=f_model / (step * N * peak),
        hfu=f_hw / (step * N * peak), tflops_per_gpu=f_model / (step * N) / 1e12,
        interventions=(z > 0) + (rec != "none") + (t > 1) + (p > 1) + (c > 1))
    if tr.get("tokens") is not None:                                     # S5
        days = tr["tokens"] / tps / 86400
        row.update(train_days=days, gpu_hours=N * days * 24)
    n_total = L * n_layer + dims["n_embed"] + n_out(mo, 1) + norm_params(mo)  # P5 at p = 1
    row["state_total_gib"] = (bw + bg + bo) * n_total / GIB
    row["act_total_gib"] = a_layer(mo, dims, 1, 1, False, b, "none") * L / GIB
    # status and reason (M6, §9)
    reasons = []
    bud = sc["budgets"]
    over_memory = mm["total"] > budget * GIB
    if over_memory:
        reasons.append(("memory: {} GiB > budget {} GiB", mm["total"] / GIB, budget))
    if bud.get("step_time_s") is not None and step > bud["step_time_s"]:
        reasons.append(("step_time: {} s > budget {} s", step, bud["step_time_s"]))
    if bud.get("train_days") is not None and row["train_days"] > bud["train_days"]:
        reasons.append(("train_days: {} > budget {}", row["train_days"], bud["train_days"]))
    if bud.get("min_mfu") is not None and row["mfu"] < bud["min_mfu"]:
        reasons.append(("mfu: {} < min_mfu {}", row["mfu"], bud["min_mfu"]))
    row["status"] = "over_memory" if over_memory else ("over_time" if reasons else "ok")
    row["reason"] = reasons
    return row


def canonical(pl):
    return "dp%d-tp%d-pp%d-cp%d-z%d-%s-mb%d-%s-v%d-sp%d" % (
        pl["dp"], pl["tp"], pl["pp"], pl["cp"], pl["zero"], pl["recompute"],
        pl["micro_batch"], pl["schedule"], pl["virtual_stages"], 1 if pl["sp"] else 0)


def round12(x):
    return float("%.11e" % x)


def rank_rows(sc, rows):
    """§9: class, then rank_by (12 significant digits), canonical, name, input order."""
    by = sc["rank_by"]

    def key(item):
        i, r = item
        cls = STATUS_CLASS[r["status"]]
        if r["status"] == "invalid":
            k = ()
        elif by == "step_time":
            k = (round12(r["step_time_s"]),)
        elif by == "mfu":
            k = (-round12(r["mfu"]),)
        elif by == "memory":
            k = (round12(r["mem_total_gib"]),)
        elif by == "train_days":
            k = (round12(r["train_days"]),)
        else:
            k = (r["interventions"], round12(r["step_time_s"]))
        return (cls,) + k + (r["canonical"].encode(), r["plan"].encode(), i)

    ranked = [r for _, r in sorted(enumerate(rows), key=key)]
    for n, r in enumerate(ranked, 1):
        r["rank"] = n
    return ranked


# ------------------------------------------------------------ the plans

def full_plan(sc, raw):
    pl = dict(tp=1, pp=1, cp=1, zero=0, recompute="none", micro_batch=1,
              schedule="1f1b", virtual_stages=1)
    pl.update({k: v for k, v in raw.items() if k not in ("name", "overlap", "sequence_parallel")})
    N = sc["cluster"]["gpus_per_node"] * sc["cluster"]["nodes"]
    if pl["dp"] == "auto":
        pl["dp"] = N // (pl["tp"] * pl["pp"] * pl["cp"])
    sp = raw.get("sequence_parallel", pl["tp"] > 1)
    pl["sp"] = bool(sp) and pl["tp"] > 1
    ov = dict(sc["overlap"])
    ov.update(raw.get("overlap", {}))
    pl["overlap"] = ov
    pl["canonical"] = canonical(pl)
    pl["name"] = raw.get("name", pl["canonical"])
    return pl


def auto_values(sc, key, ctx):
    mo, cl = sc["model"], sc["cluster"]
    G, N = cl["gpus_per_node"], cl["gpus_per_node"] * cl["nodes"]
    if key == "tp":
        vals = [t for t in range(1, G + 1) if G % t == 0]
        if cl.get("allow_cross_node_tp"):
            vals += [t for t in range(2 * G, N + 1, G)]
        return [t for t in vals if all(divides(t, mo[k]) for k in ("heads", "kv_heads", "ffn_hidden"))]
    if key == "pp":
        return [p for p in range(1, mo["layers"] + 1) if mo["layers"] % p == 0 and p <= N]
    if key == "cp":
        return [c for c in (1, 2, 4, 8, 16, 32, 64) if mo["seq_len"] % c == 0]
    if key == "micro_batch":
        return [b for b in (1, 2, 4, 8, 16, 32, 64) if divides(b * ctx["dp"], sc["training"]["global_batch"])]
    if key == "virtual_stages":
        return [v for v in range(2, 17) if divides(ctx["pp"] * v, mo["layers"])]
    raise KeyError(key)


def sweep_plans(sc):
    sw = sc["sweep"]
    N = sc["cluster"]["gpus_per_node"] * sc["cluster"]["nodes"]

    def vals(key, default, ctx):
        v = sw.get(key, default)
        if v == "auto" and key != "dp":
            return auto_values(sc, key, ctx)
        return v if isinstance(v, list) else [v]

    out = []
    for t in vals("tp", [1], {}):
        for p in vals("pp", [1], {}):
            for c in vals("cp", [1], {}):
                if sw["dp"] == "auto":
                    if N % (t * p * c):
                        continue
                    dps = [N // (t * p * c)]
                else:
                    dps = vals("dp", None, {})
                for dp in dps:
                    for z in vals("zero", [0], {}):
                        for rec in vals("recompute", ["none"], {}):
                            for b in vals("micro_batch", [1], {"dp": dp}):
                                scheds = vals("schedule", ["1f1b"], {})
                                if p == 1:
                                    first = [s for s in scheds if s != "interleaved"]
                                    scheds = first[:1]
                                for sch in scheds:
                                    if sch == "interleaved":
                                        vs = [v for v in vals("virtual_stages", [1], {"pp": p}) if v >= 2]
                                    else:
                                        vs = [1]
                                    for v in vs:
                                        sps = [False] if t == 1 else vals("sequence_parallel", [t > 1], {})
                                        for sp in sps:
                                            raw = dict(dp=dp, tp=t, pp=p, cp=c, zero=z, recompute=rec,
                                                       micro_batch=b, schedule=sch, virtual_stages=v,
                                                       sequence_parallel=sp)
                                            out.append(full_plan(sc, raw))
    return out


def expected_report(sc):
    plans = [full_plan(sc, raw) for raw in sc.get("plans", [])]
    if "sweep" in sc:
        plans += sweep_plans(sc)
    rows = []
    for pl in plans:
        r = evaluate(sc, pl)
        r["canonical"] = pl["canonical"]
        rows.append(r)
    return rank_rows(sc, rows)


# ------------------------------------------------------------ the generator

def yaml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(yaml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, yaml_value(x)) for k, x in v.items()) + "}"
    return str(v)


def to_yaml(sc):
    lines = ["schema: planeval/v1", "name: " + sc["name"]]
    if sc["fidelity_key"]:        # textbook is the default for a file of textbook keys
        lines.append("fidelity: textbook")
    for sect in ("model", "precision", "cluster", "training", "budgets", "overlap"):
        body = sc["yaml"].get(sect)
        if body:
            lines.append(sect + ":")
            for k, v in body.items():
                lines.append("  %s: %s" % (k, yaml_value(v)))
    lines.append("rank_by: " + sc["rank_by"])
    if sc.get("plans"):
        lines.append("plans:")
        for raw in sc["plans"]:
            lines.append("  - " + yaml_value(raw))
    if "sweep" in sc:
        lines.append("sweep:")
        for k, v in sc["sweep"].items():
            lines.append("  %s: %s" % (k, yaml_value(v)))
    return "\n".join(lines) + "\n"


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


# Catalog presets (scenarios/catalog/*.yaml, data the oracle may read): the
# textbook keys of a few entries, applied first and overridden key by key.
MODEL_PRESETS = {
    "gpt3-175b": dict(layers=96, hidden=12288, heads=96, kv_heads=96, ffn_hidden=49152, vocab=51200,
                      seq_len=2048, mlp="gelu", norm="layernorm", bias=True, dropout=True,
                      tied_embeddings=False, position="learned", attention="standard",
                      causal_flops=False, params=175e9),
    "llama2-7b": dict(layers=32, hidden=4096, heads=32, kv_heads=32, ffn_hidden=11008, vocab=32000,
                      seq_len=4096, mlp="swiglu", norm="rmsnorm", bias=False, dropout=False,
                      tied_embeddings=False, position="rotary", attention="flash",
                      causal_flops=False, params=None),
    "llama3-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn_hidden=14336, vocab=128256,
                      seq_len=8192, mlp="swiglu", norm="rmsnorm", bias=False, dropout=False,
                      tied_embeddings=False, position="rotary", attention="flash",
                      causal_flops=False, params=None),
}
GPU_PRESETS = {"h100-sxm": dict(hbm_gib=80, peak_tflops=989.4, hbm_tb_s=3.35),
               "mi300x": dict(hbm_gib=192, peak_tflops=1307.4, hbm_tb_s=5.3)}
MI300X_NODE = dict(gpus_per_node=8,
                   intra_node=dict(topology="full_mesh", links=7, link_gb_s=64, latency_us=2),
                   inter_node=dict(nic_gb_s=50, latency_us=5))


def gen_model(rng):
    if rng.random() < 0.12:
        name = pick(rng, sorted(MODEL_PRESETS))
        full = dict(MODEL_PRESETS[name])
        yml = dict(preset=name)
        if rng.random() < 0.5:
            yml["seq_len"] = full["seq_len"] = pick(rng, [512, 1024, 2048])
        if rng.random() < 0.5:
            yml["layers"] = full["layers"] = pick(rng, [2, 4, 8])
            if full["params"] is not None:      # keep P6's N_layer > 0 with fewer layers
                yml["params"] = full["params"] = full["params"] / 24
        return yml, full
    a = pick(rng, [1, 2, 3, 4, 6, 8, 8, 12, 16, 16, 32, 32, 64, 96])
    d = pick(rng, [8, 16, 32, 64, 128, 128])
    h = a * d
    g = pick(rng, [x for x in range(1, a + 1) if a % x == 0])
    if rng.random() < 0.1:        # the spec asks only t | g (V2): any count, even above a
        g = rng.randint(1, a + 4)
    yml = dict(layers=pick(rng, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96, 128]), hidden=h, heads=a,
               vocab=pick(rng, [rng.randint(100, 60000), rng.randint(100, 60000), rng.randint(1, 9)]),
               seq_len=pick(rng, [64, 128, 256, 500, 512, 1024, 2048, 4096, 8192, 1, 3]))
    full = dict(yml, kv_heads=a, ffn_hidden=4 * h, mlp="gelu", norm="layernorm", bias=True,
                dropout=True, tied_embeddings=False, position="learned", attention="standard",
                causal_flops=False, params=None)
    opt = dict(kv_heads=g, ffn_hidden=pick(rng, [4 * h, h * 8 // 3 // 8 * 8 or 8, 3 * h, 2 * h + 24, 1000, 7]),
               mlp=pick(rng, ["gelu", "swiglu"]), norm=pick(rng, ["layernorm", "rmsnorm"]),
               bias=rng.random() < 0.5, dropout=rng.random() < 0.5,
               tied_embeddings=rng.random() < 0.5, position=pick(rng, ["learned", "rotary"]),
               attention=pick(rng, ["standard", "flash"]), causal_flops=rng.random() < 0.5)
    for k, v in opt.items():
        if rng.random() < 0.5:
            yml[k] = v
            full[k] = v
    if rng.random() < 0.15:
        dims = model_dims(full)
        base = full["layers"] * dims["n_layer"]
        params = float("%.4g" % (base * rng.uniform(0.5, 2.0)))
        full["params"] = params
        if model_dims(full)["n_layer"] > 0:
            yml["params"] = params
        else:
            full["params"] = None
    return yml, full


def gen_cluster(rng):
    if rng.random() < 0.08:
        nodes = pick(rng, [1, 2, 4])
        yml = dict(preset="mi300x-node", nodes=nodes)
        full = dict(MI300X_NODE, nodes=nodes, reserve_gib=10, allow_cross_node_tp=False,
                    gpu=dict(GPU_PRESETS["mi300x"], flops_efficiency=0.5))
        return yml, full
    G = pick(rng, [1, 2, 4, 4, 8, 8, 8, 8, 6, 16, 72])
    nodes = pick(rng, [1, 1, 2, 3, 4, 8, 16, 64, 128])
    gpu = dict(hbm_gib=pick(rng, [16, 24, 40, 80, 141, 192, 0.5, 3.25]),
               peak_tflops=round(rng.uniform(50, 2500), 2), hbm_tb_s=round(rng.uniform(0.5, 8), 3))
    yml = dict(nodes=nodes, gpus_per_node=G)
    full = dict(nodes=nodes, gpus_per_node=G, reserve_gib=10, allow_cross_node_tp=False)
    gpu_full = dict(gpu, flops_efficiency=0.5)
    if rng.random() < 0.5:
        gpu["flops_efficiency"] = gpu_full["flops_efficiency"] = round(rng.uniform(0.1, 1.0), 3)
    if rng.random() < 0.1:
        name = pick(rng, sorted(GPU_PRESETS))
        gpu = dict(preset=name)
        gpu_full = dict(GPU_PRESETS[name], flops_efficiency=0.5)
    yml["gpu"] = gpu
    full["gpu"] = gpu_full
    if rng.random() < 0.5:
        # any R >= 0 (the spec's range), above hbm_gib too: every plan is
        # then over_memory; the default 10 on a 0.5 or 3.25 GiB GPU as well
        yml["reserve_gib"] = full["reserve_gib"] = pick(rng, [0, 0.5, 2, 10, 12.75, 200])
    if rng.random() < 0.3:
        yml["allow_cross_node_tp"] = full["allow_cross_node_tp"] = rng.random() < 0.7
    if G > 1:
        if rng.random() < 0.5:
            intra = dict(topology="switch", bandwidth_gb_s=round(rng.uniform(10, 900), 1))
        else:
            intra = dict(topology="full_mesh", links=rng.randint(1, 8), link_gb_s=round(rng.uniform(5, 128), 1))
        intra["latency_us"] = pick(rng, [0, 1, 2, 3.5])
        yml["intra_node"] = full["intra_node"] = intra
    if nodes > 1:
        inter = dict(nic_gb_s=round(rng.uniform(3, 100), 2), latency_us=pick(rng, [0, 5, 8.5]))
        yml["inter_node"] = full["inter_node"] = inter
    return yml, full


def divisors(n):
    return [x for x in range(1, n + 1) if n % x == 0]


def gen_plan_values(rng, sc, N):
    """One explicit plan, valid or not."""
    mo = sc["model"]
    raw = {}
    t = pick(rng, [1, 1, 2, 2, 4, 8, 3, 16])
    if sc["cluster"].get("allow_cross_node_tp") and rng.random() < 0.5:
        t = sc["cluster"]["gpus_per_node"] * pick(rng, [1, 2, 3, 4])
    p = pick(rng, [1, 1, 2, 3, 4, 8] + divisors(mo["layers"])[:3])
    c = pick(rng, [1, 1, 1, 2, 4, 3])
    if t != 1:
        raw["tp"] = t
    if p != 1:
        raw["pp"] = p
    if c != 1:
        raw["cp"] = c
    q = N // (t * p * c) if N % (t * p * c) == 0 else 0
    if q and rng.random() < 0.4:
        raw["dp"] = "auto"
    else:
        raw["dp"] = q if q and rng.random() < 0.9 else rng.randint(1, 8)
    for k, vals in (("zero", [0, 1, 2, 3]), ("recompute", RECOMPUTES),
                    ("micro_batch", [1, 1, 2, 4, 3]), ("schedule", SCHEDULES)):
        if rng.random() < 0.6:
            raw[k] = pick(rng, vals)
    if raw.get("schedule") == "interleaved" or rng.random() < 0.1:
        raw["virtual_stages"] = pick(rng, [1, 2, 3, 4])
    if rng.random() < 0.3:
        raw["sequence_parallel"] = rng.random() < 0.5
    if rng.random() < 0.3:
        raw["overlap"] = {pick(rng, ["tp", "cp", "dp", "pp"]): pick(rng, [0, 0.25, 0.5, 1])}
    return raw


def gen_sweep(rng, sc):
    sw = {}
    sw["tp"] = pick(rng, ["auto", [1], [1, 2], [1, 2, 4, 8], [2, 1], [1, 3]])
    sw["pp"] = pick(rng, ["auto", [1], [1, 2], [1, 2, 4], [3, 1, 2]])
    sw["cp"] = pick(rng, [[1], [1], [1, 2], "auto", [2, 4]])
    sw["dp"] = pick(rng, ["auto", "auto", "auto", "auto", "auto", [1, 2], [4]])
    if rng.random() < 0.7:
        sw["zero"] = pick(rng, [[0, 1, 2, 3], [0], [3, 1], 2])
    if rng.random() < 0.7:
        sw["recompute"] = pick(rng, [RECOMPUTES, ["none"], ["full", "selective"], "selective"])
    if rng.random() < 0.7:
        sw["micro_batch"] = pick(rng, ["auto", [1, 2], [1, 2, 4, 8], [3], 1])
    if rng.random() < 0.7:
        sw["schedule"] = pick(rng, [SCHEDULES, ["1f1b", "interleaved"], ["interleaved", "gpipe"],
                                    ["zb-h2", "zb-h1"], "gpipe"])
    scheds = sw.get("schedule", ["1f1b"])
    if "interleaved" in (scheds if isinstance(scheds, list) else [scheds]):
        sw["virtual_stages"] = pick(rng, ["auto", [2], [1, 2, 4], [3, 2]])
    elif rng.random() < 0.2:
        sw["virtual_stages"] = pick(rng, [[2], [1, 2]])
    if rng.random() < 0.3:
        sw["sequence_parallel"] = pick(rng, [[True, False], [False], True])
    return sw


def sweep_size_ok(sc):
    try:
        return 0 < len(sweep_plans(sc)) <= 600
    except ZeroDivisionError:
        return False


def gen_scenario(rng, idx):
    m_yml, m_full = gen_model(rng)
    c_yml, c_full = gen_cluster(rng)
    N = c_full["gpus_per_node"] * c_full["nodes"]
    B = pick(rng, [1, 2, 4, 8, 16, 24, 32, 64, 64, 96, 128, 128, 256, 256, 512, 512, 1024, 1536])
    tr = dict(global_batch=B)
    if rng.random() < 0.5:
        tr["tokens"] = float("%.3g" % rng.uniform(1e8, 1e12))
    prec_yml, prec = {}, dict(param_bytes=2, grad_bytes=2, optimizer_bytes=12)
    if rng.random() < 0.3:
        prec_yml = {k: pick(rng, vals) for k, vals in (("param_bytes", [1, 2, 4, 0.5]), ("grad_bytes", [2, 4, 1.5]),
                                                        ("optimizer_bytes", [0, 8, 12, 16]))
                    if rng.random() < 0.6}
        prec.update(prec_yml)
    bud = {}
    if rng.random() < 0.5:
        bud["memory_gib"] = pick(rng, [8, 20, 40, 80, 100, 500])
    if rng.random() < 0.4:
        bud["step_time_s"] = float("%.3g" % (10 ** rng.uniform(-3, 2)))
    if "tokens" in tr and rng.random() < 0.3:
        bud["train_days"] = float("%.3g" % (10 ** rng.uniform(-2, 3)))
    if rng.random() < 0.2:
        bud["min_mfu"] = pick(rng, [0.05, 0.2, 0.4])
    ov_yml = {}
    if rng.random() < 0.5:
        ov_yml = {k: pick(rng, [0, 0.3, 0.5, 1]) for k in ("tp", "cp", "dp", "pp") if rng.random() < 0.5}
    ov = dict(tp=0, cp=1, dp=1, pp=0)
    ov.update(ov_yml)
    ranks = ["step_time", "step_time", "mfu", "memory", "interventions"] + (["train_days"] if "tokens" in tr else [])
    sc = dict(name="oracle-%05d" % idx, fidelity_key=rng.random() < 0.5, model=m_full, cluster=c_full, training=tr, precision=prec,
              budgets=bud, overlap=ov, rank_by=pick(rng, ranks),
              yaml=dict(model=m_yml, precision=prec_yml, cluster=c_yml, training=tr, budgets=bud,
                        overlap=ov_yml))
    plans = []
    seen = set()
    for i in range(rng.randint(0, 6)):
        raw = gen_plan_values(rng, sc, N)
        if rng.random() < 0.7:
            raw = dict(raw, name="plan-%d" % i)
        pl = full_plan(sc, raw)
        if pl["name"] in seen:
            continue
        seen.add(pl["name"])
        plans.append(raw)
    if plans and rng.random() < 0.3:      # the same plan twice under two names: a tie
        twin = dict(plans[0], name="twin-a")
        plans.append(twin)
        plans.append(dict(plans[0], name="twin"))
    sc["plans"] = plans
    if not plans or rng.random() < 0.6:
        for _ in range(10):
            sc["sweep"] = gen_sweep(rng, sc)
            if sweep_size_ok(sc):
                break
        else:
            del sc["sweep"]
    if not sc["plans"] and "sweep" not in sc:
        sc["plans"] = [dict(dp="auto")]
    return sc


# ------------------------------------------------------------ comparing

def fmt(v):
    return repr(v) if isinstance(v, float) else str(v)


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12 * scale


NUMBER = r"(-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?)"


def budget_reason_ok(exp, got):
    """Budget reasons (§9: every failed budget with both numbers, memory
    first, joined by `; `): the words must match exactly; the plan's figure
    may be printed rounded (to the digits it shows) and the budget must read
    back exactly as the scenario gave it."""
    parts = got.split("; ") if got else []
    if len(parts) != len(exp):
        return False
    for (template, value, limit), part in zip(exp, parts):
        pattern = "^" + re.escape(template).replace(re.escape("{}"), NUMBER) + "$"
        hit = re.match(pattern.replace(r"\{\}", NUMBER), part)
        if not hit:
            return False
        shown, lim = hit.group(1), float(hit.group(2))
        last = decimal.Decimal(shown).as_tuple().exponent   # the last digit shown
        if abs(float(shown) - value) > 0.5000001 * 10.0 ** last + 1e-12 * abs(value):
            return False
        if lim != limit:
            return False
    return True


def compare(sc, exp_rows, path, out):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    if header[:len(COLUMNS)] != COLUMNS:
        out.append((sc["name"], "-", "header", ",".join(COLUMNS), ",".join(header)))
        return 0
    if len(body) != len(exp_rows):
        out.append((sc["name"], "-", "rows", str(len(exp_rows)), str(len(body))))
    cells = 0
    for er, gr in zip(exp_rows, body):
        got = dict(zip(header, gr))
        if got["plan"] != er["plan"]:
            out.append((sc["name"], "rank %d" % er["rank"], "plan", er["plan"], got["plan"]))
            continue
        scale_t = er.get("step_time_s", 1.0)
        scale_m = er.get("mem_total_gib", 1.0)
        # the added rank_by column (model.md §11: an invalid plan leaves it empty)
        want = "" if er["status"] == "invalid" else sc["rank_by"]
        if "rank_by" in got and got["rank_by"] != want:
            out.append((sc["name"], er["plan"], "rank_by", want, got["rank_by"]))
        for col in COLUMNS:
            cells += 1
            g = got[col]
            if col not in er:
                if g != "":
                    out.append((sc["name"], er["plan"], col, "(empty)", g))
                continue
            e = er[col]
            if col == "reason" and isinstance(e, list):
                if not budget_reason_ok(e, g):
                    out.append((sc["name"], er["plan"], col,
                                "; ".join(t.format(fmt(v), fmt(lim)) for t, v, lim in e), g))
                continue
            if col in TEXT_COLUMNS:
                ok = g == e
            elif col in INT_COLUMNS:
                ok = g == str(int(e)) and float(e).is_integer()
            else:
                try:
                    gv = float(g)
                except ValueError:
                    ok = False
                else:
                    scale = scale_m if col.startswith("mem_") else (
                        scale_t if col.endswith("_s") else abs(e))
                    ok = close(e, gv, scale)
            if not ok:
                out.append((sc["name"], er["plan"], col, fmt(e), g))
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("planeval")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--work", default="/tmp/textbook-oracle")
    ap.add_argument("--max-report", type=int, default=20)
    ap.add_argument("--reuse", action="store_true",
                    help="compare the reports already in WORK (from an earlier run of the same"
                         " seed and count) without running planeval again")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    scen_dir, out_dir = os.path.join(args.work, "scen"), os.path.join(args.work, "out")
    top_dir = os.path.join(args.work, "top")
    if not args.reuse:
        shutil.rmtree(args.work, ignore_errors=True)
        os.makedirs(scen_dir)
    scenarios = []
    for i in range(args.count):
        sc = gen_scenario(rng, args.seed * 100000 + i)
        if not args.reuse:
            with open(os.path.join(scen_dir, sc["name"] + ".yaml"), "w") as fh:
                fh.write(to_yaml(sc))
        scenarios.append(sc)
    # all the scenarios, then the same with --top 3 (the three best rows)
    for cmd in ([] if args.reuse else [["-o", out_dir], ["-o", top_dir, "--top", "3"]]):
        res = subprocess.run([args.planeval, "run", scen_dir, "--quiet"] + cmd,
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write("planeval run %s exited %d\n%s"
                             % (" ".join(cmd), res.returncode, res.stderr[:4000]))
            return 2
    mismatches, cells, nrows = [], 0, 0
    for sc in scenarios:
        exp = expected_report(sc)
        nrows += len(exp)
        cells += compare(sc, exp, os.path.join(out_dir, sc["name"] + ".csv"), mismatches)
        # --top 3 writes the three best rows of the same ranking (interface.md)
        cells += compare(sc, exp[:3], os.path.join(top_dir, sc["name"] + ".csv"), mismatches)
    print("textbook oracle: seed %d, %d scenarios, %d plans, %d cells compared, %d mismatches"
          % (args.seed, len(scenarios), nrows, cells, len(mismatches)))
    for mm in mismatches[:args.max_report]:
        print("MISMATCH %s | %s | %s | oracle %s | planeval %s" % mm)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
