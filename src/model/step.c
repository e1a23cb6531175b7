/* step.c — docs/model.md §8, step time and derived figures S1–S5. */
#include "model/step.h"

extern inline double step_time(double compute_s, double tp_comm_s, double cp_comm_s,
                               double bubble_s, double pp_comm_s, double dp_comm_s,
                               double optimizer_s);
extern inline double step_comm(double tp_comm_s, double cp_comm_s, double pp_comm_s,
                               double dp_comm_s);
extern inline pe_bound step_bound(double compute_s, double comm_s, double bubble_s,
                                  double optimizer_s, double critical, bool host,
                                  bool critical_path);
extern inline double step_tokens_per_s(double tokens_per_step, double step_s);
extern inline double step_utilisation(double flops, double step_s, double gpus, double peak);
extern inline double step_tflops_per_gpu(double f_model, double step_s, double gpus);
extern inline double step_train_days(double tokens, double tokens_per_s);
extern inline double step_gpu_hours(double gpus, double train_days);
extern inline double step_cost(double gpu_hours, double cost_per_gpu_hour);
extern inline bool step_over_target(double figure, double target);
