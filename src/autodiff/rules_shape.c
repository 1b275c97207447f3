/* rules_shape.c — jvp and transpose rules of the shape primitives
 * (autodiff layer). */
#include "ad_rules.h"

void ad_register_shape(void) {}
