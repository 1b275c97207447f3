/* reduce.c — the reduce primitives (prim layer). Placeholder: rules pending. */
#include "prim.h"

void prim_register_reduce(void) {}
