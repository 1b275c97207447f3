/* rules_dot_gather.c — jvp and transpose rules of the dot_gather primitives
 * (autodiff layer). */
#include "ad_rules.h"

void ad_register_dot_gather(void) {}
