/* linux/param.h — shim: see ../kshim.h. */
#include "../kshim.h"
