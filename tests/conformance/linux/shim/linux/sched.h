/* linux/sched.h — shim: see ../kshim.h. */
#include "../kshim.h"
