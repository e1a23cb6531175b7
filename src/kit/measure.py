#!/usr/bin/env python3
"""measure.py — planeval's calibration kit: measure your own GPUs and write
the measurements in the formats of scenarios/measurements/ (gemm.csv,
attention.csv, hbm.csv, collectives.csv; their README says each column),
plus priors.csv, the file `planeval calibrate RUNS.csv --priors FILE` reads
(docs/model.md §12 "With priors"), when the datasheet peaks are given.

    python3 src/kit/measure.py --out DIR --gpu NAME --peak-tflops 989 --hbm-tb-s 3.35
    torchrun --nproc_per_node 8 src/kit/measure.py --out DIR ...   # + NCCL collectives

It needs PyTorch (an optional dependency of planeval: nothing else uses
it). What it measures:
  gemm        torch.matmul by shape (bf16 on a GPU, float32 on the CPU),
              TFLOP/s = 2·M·N·K / time
  attention   torch.nn.functional.scaled_dot_product_attention (a plain
              softmax(QKᵀ)V where this torch has none) by sequence length,
              causal and not, head dim 128, batch·seq fixed as in the
              FlashAttention papers; forward and backward; FLOPs counted as
              FlashAttention counts them (4·b·h·s²·d forward, halved when
              causal; backward 2.5× forward)
  hbm         a device-to-device copy of a large tensor; bytes read + written
  collectives (several ranks) all_reduce, reduce_scatter, all_gather,
              all_to_all by message size; busbw as nccl-tests defines it
              (all-reduce algbw·2(n−1)/n, the others algbw·(n−1)/n)
--tiny runs every kernel at toy sizes (the CTest test, on the CPU): its
numbers say nothing about any GPU.
"""
import argparse
import csv
import datetime
import math
import os
import socket
import statistics
import sys
import time

GEMM_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
               (4096, 14336, 4096), (4096, 4096, 14336), (16384, 8192, 1024)]
ATTENTION_SEQS = [512, 1024, 2048, 4096, 8192, 16384]
COLLECTIVE_BYTES = [2 ** p for p in range(20, 34, 2)]  # 1 MiB .. 4 GiB
TINY_GEMM = [(64, 64, 64), (128, 96, 64)]
TINY_SEQS = [32, 64]
TINY_BYTES = [2 ** 12, 2 ** 14]

HEADERS = {
    "gemm": ["gpu", "dtype", "m", "n", "k", "tflops", "peak_tflops", "software", "source",
             "read", "date"],
    "attention": ["gpu", "kernel", "direction", "head_dim", "causal", "seq_q", "seq_kv", "batch",
                  "heads", "tflops", "peak_tflops", "source", "read", "date"],
    "hbm": ["gpu", "kernel", "bytes_moved_gb_s", "peak_tb_s", "software", "source", "read",
            "date"],
    "collectives": ["system", "collective", "algorithm", "gpus", "nodes", "tier",
                    "message_bytes", "busbw_gb_s", "nominal_gb_s", "software", "source", "read",
                    "date"],
}


def timed(torch, device, fn, warmup, iters):
    """Median seconds of fn() over iters runs after warmup runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure_gemm(torch, device, dtype, shapes, reps):
    out = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device=device, dtype=dtype)
        b = torch.randn(k, n, device=device, dtype=dtype)
        t = timed(torch, device, lambda: torch.matmul(a, b), *reps)
        out.append((m, n, k, 2.0 * m * n * k / t / 1e12))
    return out


def attention_fn(torch):
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is not None:
        return "torch-sdpa", lambda q, k, v, causal: sdpa(q, k, v, is_causal=causal)

    def manual(q, k, v, causal):
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            n = q.shape[-2]
            mask = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
            s = s.masked_fill(mask, float("-inf"))
        return torch.matmul(torch.softmax(s, dim=-1), v)
    return "torch-manual", manual


def measure_attention(torch, device, dtype, seqs, tokens, heads, head_dim, reps):
    kernel, attend = attention_fn(torch)
    out = []
    for causal in (False, True):
        for s in seqs:
            b = max(1, tokens // s)
            shape = (b, heads, s, head_dim)
            q, k, v = (torch.randn(shape, device=device, dtype=dtype, requires_grad=True)
                       for _ in range(3))
            fwd = timed(torch, device, lambda: attend(q, k, v, causal), *reps)
            grad = torch.randn(shape, device=device, dtype=dtype)
            both = timed(torch, device, lambda: attend(q, k, v, causal).backward(grad), *reps)
            flops = 4.0 * b * heads * s * s * head_dim * (0.5 if causal else 1.0)
            out.append((kernel, "fwd", causal, s, b, flops / fwd / 1e12))
            out.append((kernel, "bwd", causal, s, b, 2.5 * flops / max(both - fwd, 1e-9) / 1e12))
    return out


def measure_hbm(torch, device, dtype, elements, reps):
    src = torch.randn(elements, device=device, dtype=dtype)
    dst = torch.empty_like(src)
    t = timed(torch, device, lambda: dst.copy_(src), *reps)
    return 2.0 * src.numel() * src.element_size() / t / 1e9


def measure_collectives(torch, device, sizes, reps):
    """Under torchrun with several ranks: (collective, bytes, busbw GB/s)."""
    import torch.distributed as dist
    n = dist.get_world_size()
    out = []
    ops = {
        "all_reduce": (lambda x, y: dist.all_reduce(x), 2.0 * (n - 1) / n, 1),
        "reduce_scatter": (lambda x, y: dist.reduce_scatter_tensor(y, x), (n - 1) / n, n),
        "all_gather": (lambda x, y: dist.all_gather_into_tensor(x, y), (n - 1) / n, n),
        "all_to_all": (lambda x, y: dist.all_to_all_single(y, x), (n - 1) / n, 1),
    }
    for name, (op, factor, split) in ops.items():
        for size in sizes:
            elems = max(n, size // 4 // n * n)
            x = torch.randn(elems, device=device)
            y = torch.empty(elems // split if split > 1 else elems, device=device)
            try:
                t = timed(torch, device, lambda: op(x, y), *reps)
            except (RuntimeError, AttributeError) as e:  # the backend lacks it (gloo: reduce_scatter)
                if dist.get_rank() == 0:
                    sys.stderr.write("measure.py: %s not measured: %s\n" % (name, e))
                break
            out.append((name, elems * 4, elems * 4 / t / 1e9 * factor))
    return out


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def spread(vals):
    """A prior as tests/derive_presets.py derives one: the median, and half
    the range, at least 0.05."""
    return statistics.median(vals), max(0.05, (max(vals) - min(vals)) / 2)


def write_priors(path, gemm, att, hbm, args, cite):
    rows = []
    if args.peak_tflops:
        e = [min(1.0, t / args.peak_tflops) for *_, t in gemm]
        rows.append(("gemm_efficiency",) + spread(e) + ("gemm.csv of this kit run: " + cite,))
        a = [min(1.0, 2 * t / args.peak_tflops) for _, d, c, _, _, t in att if c and d == "fwd"]
        if a:
            rows.append(("attention_efficiency",) + spread(a) +
                        ("attention.csv of this kit run, min(1, 2 x causal fwd rate / peak): "
                         + cite,))
    if args.hbm_tb_s:
        rows.append(("elementwise_efficiency", min(1.0, hbm / (1000 * args.hbm_tb_s)), 0.05,
                     "hbm.csv of this kit run (one row; width the 0.05 floor): " + cite))
    rows = [(n, "%.4g" % max(0.05, v), "%.4g" % w, b) for n, v, w, b in rows]
    write(path, ["number", "value", "width", "basis"], rows)


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the folder to write the CSV files into")
    p.add_argument("--gpu", default="my-gpu", help="the gpu cell (a catalog preset name, say)")
    p.add_argument("--system", default="my-node", help="the collectives' system cell")
    p.add_argument("--peak-tflops", type=float, default=0.0,
                   help="datasheet dense bf16 TFLOP/s (for peak_tflops and priors.csv)")
    p.add_argument("--hbm-tb-s", type=float, default=0.0, help="datasheet HBM TB/s")
    p.add_argument("--nominal-gb-s", type=float, default=0.0,
                   help="the collectives' nominal GB/s per GPU and direction")
    p.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    p.add_argument("--tiny", action="store_true", help="toy sizes (a test of the kit itself)")
    return p.parse_args()


def main():
    args = parse()
    try:
        import torch
    except ImportError:
        sys.stderr.write("measure.py: PyTorch is not installed (pip install torch): nothing "
                         "measured\n")
        return 3
    dev = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(dev)
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    rank = 0
    if distributed:
        import torch.distributed as dist
        dist.init_process_group("nccl" if dev == "cuda" else "gloo")
        rank = dist.get_rank()
        if dev == "cuda":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
            device = torch.device("cuda", torch.cuda.current_device())
    dtype = torch.bfloat16 if dev == "cuda" else torch.float32
    reps = (1, 3) if args.tiny else (10, 50)
    software = "torch %s%s" % (torch.__version__, (" CUDA " + torch.version.cuda)
                               if dev == "cuda" and torch.version.cuda else " CPU")
    today = datetime.date.today().isoformat()
    cite = "planeval src/kit/measure.py%s on %s (%s)" % (" --tiny" if args.tiny else "",
                                                         socket.gethostname(), software)
    peak = "%g" % args.peak_tflops if args.peak_tflops else ""
    rows = {}
    if rank == 0:
        gemm = measure_gemm(torch, device, dtype, TINY_GEMM if args.tiny else GEMM_SHAPES, reps)
        rows["gemm"] = [(args.gpu, str(dtype).split(".")[-1], m, n, k, "%.4g" % t, peak,
                         software, cite, "measured", today) for m, n, k, t in gemm]
        att = measure_attention(torch, device, dtype, TINY_SEQS if args.tiny else ATTENTION_SEQS,
                                128 if args.tiny else 16384, 2 if args.tiny else 16,
                                16 if args.tiny else 128, reps)
        rows["attention"] = [(args.gpu, kern, d, 16 if args.tiny else 128, "yes" if c else "no",
                              s, s, b, 2 if args.tiny else 16, "%.4g" % t, peak, cite,
                              "measured", today) for kern, d, c, s, b, t in att]
        hbm = measure_hbm(torch, device, dtype, 2 ** 16 if args.tiny else 2 ** 28, reps)
        rows["hbm"] = [(args.gpu, "device memory copy (torch copy_)", "%.4g" % hbm,
                        "%g" % args.hbm_tb_s if args.hbm_tb_s else "", software, cite,
                        "measured", today)]
    if distributed:
        coll = measure_collectives(torch, device, TINY_BYTES if args.tiny else COLLECTIVE_BYTES,
                                   reps)
        import torch.distributed as dist
        n = dist.get_world_size()
        nodes = max(1, n // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", str(n)))))
        rows["collectives"] = [(args.system, c, "default", n, nodes,
                                "inter" if nodes > 1 else "intra", b, "%.4g" % bw,
                                "%g" % args.nominal_gb_s if args.nominal_gb_s else "", software,
                                cite, "measured", today) for c, b, bw in coll]
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        for kind, r in rows.items():
            write(os.path.join(args.out, kind + ".csv"), HEADERS[kind], r)
        if args.peak_tflops or args.hbm_tb_s:
            write_priors(os.path.join(args.out, "priors.csv"), gemm, att, hbm, args, cite)
        print("measure.py: wrote %s into %s" % (", ".join(sorted(rows)), args.out))
    if distributed:
        import torch.distributed as dist
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
