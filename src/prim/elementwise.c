/* elementwise.c — the elementwise primitives (prim layer). Placeholder: rules pending. */
#include "prim.h"

void prim_register_elementwise(void) {}
