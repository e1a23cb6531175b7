/* memory_native.c — the PyTorch-native memory terms (memory_native.h). */
#include "model/memory_native.h"

extern inline double act_gathered_inputs(double s_local, double b, double t, int sp,
                                         double gathered);
extern inline double act_cp_ring(double s_local, double b, double width, double t, double c,
                                 int allgather, int backward);
extern inline double act_op_eager_kept(double h, int eager);
