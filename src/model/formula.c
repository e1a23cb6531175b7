/* formula.c — the sections' equation texts (formula.h) in one table, in
 * the spec's order. */
#include "model/formula.h"

#include <string.h>

#include "model/comm.h"
#include "model/comm_step.h"
#include "model/compute.h"
#include "model/compute_step.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/memory_lora.h"
#include "model/memory_deepspeed.h"
#include "model/memory_native.h"
#include "model/memory_megatron.h"
#include "model/memory_step.h"
#include "model/params.h"
#include "model/pipeline.h"
#include "model/run.h"
#include "model/step.h"

static const pe_formula FORMULAS[] = {
    PE_TEXT_P1, PE_TEXT_P2, PE_TEXT_P3, PE_TEXT_P4, PE_TEXT_P6, PE_TEXT_P7, PE_TEXT_P16,
    PE_TEXT_M1, PE_TEXT_M2, PE_TEXT_M3, PE_TEXT_M4, PE_TEXT_A1, PE_TEXT_A2, PE_TEXT_A3,
    PE_TEXT_A4, PE_TEXT_A5, PE_TEXT_A6, PE_TEXT_A6_FULL, PE_TEXT_A7, PE_TEXT_A8, PE_TEXT_M5,
    PE_TEXT_M6, PE_TEXT_A11, PE_TEXT_A4_MOE, PE_TEXT_A12, PE_TEXT_M9, PE_TEXT_M10, PE_TEXT_M11, PE_TEXT_M19,
    PE_TEXT_M12, PE_TEXT_M13, PE_TEXT_A14, PE_TEXT_A15, PE_TEXT_A16, PE_TEXT_A20, PE_TEXT_A22, PE_TEXT_A23, PE_TEXT_A24, PE_TEXT_A25, PE_TEXT_A26, PE_TEXT_M15, PE_TEXT_M16, PE_TEXT_M17, PE_TEXT_A27, PE_TEXT_A28, PE_TEXT_A29, PE_TEXT_A29_PERSIST, PE_TEXT_M18, PE_TEXT_F1, PE_TEXT_F2, PE_TEXT_F3,
    PE_TEXT_F4, PE_TEXT_F5, PE_TEXT_F5_BWD, PE_TEXT_F6_LAYER, PE_TEXT_F9, PE_TEXT_F10,
    PE_TEXT_F7_10_OUT, PE_TEXT_F8_10_LAYER, PE_TEXT_F19, PE_TEXT_EDP, PE_TEXT_M_EXPERTS,
    PE_TEXT_C4, PE_TEXT_C5, PE_TEXT_C5_TP, PE_TEXT_C6, PE_TEXT_C7, PE_TEXT_C9, PE_TEXT_X1_S,
    PE_TEXT_X1_F, PE_TEXT_X1_B, PE_TEXT_X1_B_ASYNC, PE_TEXT_X2_S, PE_TEXT_X2_F, PE_TEXT_X2_B,
    PE_TEXT_X3_S, PE_TEXT_X3, PE_TEXT_X4_S, PE_TEXT_X5, PE_TEXT_X6, PE_TEXT_X7, PE_TEXT_X9_S,
    PE_TEXT_X9, PE_TEXT_X10, PE_TEXT_X11, PE_TEXT_X14, PE_TEXT_B_FRACTION, PE_TEXT_S1,
    PE_TEXT_S2, PE_TEXT_S4_TOKENS, PE_TEXT_S4_MFU, PE_TEXT_S5, PE_TEXT_S6, PE_TEXT_S7, PE_TEXT_T2, PE_TEXT_F6, PE_TEXT_F6_ACCUM,
    PE_TEXT_STAGE_TIME, PE_TEXT_STAGE_TIME_MOE, PE_TEXT_X4_Z0, PE_TEXT_X4_Z1, PE_TEXT_X4_Z2,
    PE_TEXT_X4_Z3, PE_TEXT_F7_8, PE_TEXT_F11_F20, PE_TEXT_F11_F20_ACCUM, PE_TEXT_F16,
    PE_TEXT_F16_ACCUM, PE_TEXT_F21, PE_TEXT_X13, PE_TEXT_X13_SP, PE_TEXT_B_1F1B,
    PE_TEXT_B_INTERLEAVED, PE_TEXT_B_GPIPE, PE_TEXT_B_ZB_H1, PE_TEXT_B_ZB_H2, PE_TEXT_B_P1,
    PE_TEXT_F22, PE_TEXT_F22_HEAD, PE_TEXT_F23, PE_TEXT_F38,
    PE_TEXT_B_INTERLEAVED_LAYOUT,
    PE_TEXT_R1, PE_TEXT_R2, PE_TEXT_R3, PE_TEXT_R4, PE_TEXT_R5, PE_TEXT_R6, PE_TEXT_R7,
    PE_TEXT_R7_YOUNG, PE_TEXT_R8, PE_TEXT_R8_LOST, PE_TEXT_R9,
    PE_TEXT_F24,
    PE_TEXT_F42,
    PE_TEXT_F42_KERNEL,
    PE_TEXT_F35,
    PE_TEXT_F36,
    PE_TEXT_F37,
    PE_TEXT_X15,
    PE_TEXT_X16,
    PE_TEXT_X21,
    PE_TEXT_X22,
    PE_TEXT_X28,
    PE_TEXT_F25,
    PE_TEXT_F39,
    PE_TEXT_A18, PE_TEXT_A17, PE_TEXT_A30, PE_TEXT_A31, PE_TEXT_A6_GROUP,
    PE_TEXT_F26,
    PE_TEXT_F27,
    PE_TEXT_A19,
    PE_TEXT_F28,
    PE_TEXT_F29,
    PE_TEXT_B_DUALPIPE, PE_TEXT_A21, PE_TEXT_M14,
    PE_TEXT_X19, PE_TEXT_X19_F, PE_TEXT_X19_B,
    PE_TEXT_F30,
    PE_TEXT_F32,
    PE_TEXT_X18,
    PE_TEXT_F33, PE_TEXT_X31, PE_TEXT_X31_BYTES,
    PE_TEXT_X25, PE_TEXT_X26, PE_TEXT_X27,
    PE_TEXT_X23_F, PE_TEXT_X23_B,
    PE_TEXT_X33,
    PE_TEXT_X30,
    PE_TEXT_X34,
    PE_TEXT_X24, PE_TEXT_X29, PE_TEXT_F34, PE_TEXT_X32,
};

const pe_formula *pe_formula_find(const char *key)
{
    for (size_t i = 0; i < sizeof FORMULAS / sizeof FORMULAS[0]; i++)
        if (strcmp(FORMULAS[i].key, key) == 0)
            return &FORMULAS[i];
    return NULL;
}
