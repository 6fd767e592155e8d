/* linux/export.h — shim: see ../kshim.h. */
#include "../kshim.h"
