/* linux/spinlock_types_raw.h — shim: see ../kshim.h. */
#include "../kshim.h"
