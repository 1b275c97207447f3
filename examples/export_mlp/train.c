/* train.c — SGD on the exported MLP step alone: this file and
 * mlp_step.c (written by examples/export_mlp.c) make the whole program,
 * with no cjax. The workspace is a static array of the size the header
 * gives; each step calls mlp_step (loss and the four gradients) and
 * updates the weights in place. Exits 1 unless the loss falls. */
#include <stdio.h>
#include <string.h>

#include "mlp_step.h"

static float w1[MLP_STEP_IN0_SIZE], b1[MLP_STEP_IN1_SIZE], w2[MLP_STEP_IN2_SIZE], b2[MLP_STEP_IN3_SIZE];
static float x[MLP_STEP_IN4_SIZE], y[MLP_STEP_IN5_SIZE];
static float g1[MLP_STEP_IN0_SIZE], gb1[MLP_STEP_IN1_SIZE], g2[MLP_STEP_IN2_SIZE], gb2[MLP_STEP_IN3_SIZE];
/* the workspace, aligned as the header asks (64 bytes) */
static union { double align; unsigned char bytes[MLP_STEP_WORK_BYTES + 64]; } work;

static float rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (float)(((*s >> 8) & 0xffff) / 32768.0 - 1.0);
}

int main(void) {
    unsigned s = 1;
    for (int i = 0; i < MLP_STEP_IN0_SIZE; i++) w1[i] = 0.2f * rnd(&s);
    for (int i = 0; i < MLP_STEP_IN2_SIZE; i++) w2[i] = 0.2f * rnd(&s);
    for (int i = 0; i < MLP_STEP_IN4_SIZE; i++) x[i] = rnd(&s);
    const int classes = MLP_STEP_IN5_SIZE / (MLP_STEP_IN4_SIZE / 64);
    for (int r = 0; r < MLP_STEP_IN5_SIZE / classes; r++) y[r * classes + (x[r * 64] > 0 ? 1 : 0)] = 1.0f;
    unsigned char *ws = work.bytes + (64 - (size_t)((unsigned long long)work.bytes % 64)) % 64;
    float loss = 0, first = 0;
    for (int step = 0; step < 50; step++) {
        if (mlp_step(w1, b1, w2, b2, x, y, &loss, g1, gb1, g2, gb2, ws) != 0) return 1;
        if (step == 0) first = loss;
        for (int i = 0; i < MLP_STEP_IN0_SIZE; i++) w1[i] -= 0.5f * g1[i];
        for (int i = 0; i < MLP_STEP_IN1_SIZE; i++) b1[i] -= 0.5f * gb1[i];
        for (int i = 0; i < MLP_STEP_IN2_SIZE; i++) w2[i] -= 0.5f * g2[i];
        for (int i = 0; i < MLP_STEP_IN3_SIZE; i++) b2[i] -= 0.5f * gb2[i];
    }
    printf("exported step, 50 SGD steps: loss %.4f -> %.4f\n", first, loss);
    return loss < first ? 0 : 1;
}
