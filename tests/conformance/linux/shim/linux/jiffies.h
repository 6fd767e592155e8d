/* linux/jiffies.h — shim: see ../kshim.h. */
#include "../kshim.h"
