/* gather.c — the gather primitives (prim layer). Placeholder: rules pending. */
#include "prim.h"

void prim_register_gather(void) {}
