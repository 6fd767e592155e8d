/* interrupt.h — SIGINT and SIGTERM as a flag that long runs poll, so that an
 * interrupted run stops early, says so, and still writes what it finished. */
#ifndef RL_INTERRUPT_H
#define RL_INTERRUPT_H

#include <signal.h>

/* Set (to 1) by the handlers rl_interrupt_install installs; never cleared. */
extern volatile sig_atomic_t rl_interrupted;

/* Installs the SIGINT and SIGTERM handlers that set rl_interrupted. */
void rl_interrupt_install(void);

#endif
