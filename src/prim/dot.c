/* dot.c — the dot primitives (prim layer). Placeholder: rules pending. */
#include "prim.h"

void prim_register_dot(void) {}
