/* axis_names.c — the process-wide table of axis names (core layer).
 *
 * A collective's parameters name the axes it works over (psum over 'i'),
 * and parameters are flat structs compared and hashed bytewise, so a name
 * is stored as a small id from this table: the same name always gets the
 * same id, in every context and thread. Core owns it (not the primitive
 * layer) because the axis lookup of core_bind reports an unbound name by
 * its text. checkpoint_name's names keep their own table (ad_prims.c). */
#include <pthread.h>
#include <string.h>

#include "core.h"

#define MAX_AXIS_NAMES 1024
static char names[MAX_AXIS_NAMES][CORE_AXIS_NAME_MAX + 1];
static int n_names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

int core_axis_name_id(const char *name) {
    if (!name || !*name || strlen(name) > CORE_AXIS_NAME_MAX) return -1;
    pthread_mutex_lock(&names_lock);
    int id = -1;
    for (int i = 0; i < n_names && id < 0; i++)
        if (!strcmp(names[i], name)) id = i;
    if (id < 0 && n_names < MAX_AXIS_NAMES) {
        id = n_names++;
        strcpy(names[id], name);
    }
    pthread_mutex_unlock(&names_lock);
    return id;
}

const char *core_axis_name_str(int id) {
    pthread_mutex_lock(&names_lock);
    const char *s = id >= 0 && id < n_names ? names[id] : "?";
    pthread_mutex_unlock(&names_lock);
    return s;
}
