/* net.h — the cluster's interconnect in SI units (docs/model.md §5 C2, C3),
 * shared by evaluate.h (kept in pe_eval_ctx) and model/comm.h. */
#ifndef PLANEVAL_MODEL_NET_H
#define PLANEVAL_MODEL_NET_H

#include <stdint.h>

typedef struct {
    int64_t gpus_per_node; /* G */
    int full_mesh;         /* intra-node topology */
    double links;          /* full_mesh: links per GPU */
    double link_bps;       /* full_mesh: one link, bytes/s per direction */
    double switch_bps;     /* switch: bytes/s per GPU per direction */
    double alpha_in;       /* s */
    double out_bps;        /* C3 B_out = inter_node.nic_gb_s, bytes/s */
    double alpha_out;      /* s */
} pe_net;

#endif
