/* linux/bits.h — shim: see ../kshim.h. */
#include "../kshim.h"
