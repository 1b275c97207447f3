/* shape.c — the shape primitives (prim layer). Placeholder: rules pending. */
#include "prim.h"

void prim_register_shape(void) {}
