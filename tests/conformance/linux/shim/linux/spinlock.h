/* linux/spinlock.h — shim: see ../kshim.h. */
#include "../kshim.h"
