/* interrupt.c — SIGINT and SIGTERM set a flag; nothing else runs in the handler. */
#include "interrupt.h"

#include <string.h>

volatile sig_atomic_t rl_interrupted;

static void on_signal(int signo)
{
    (void)signo;
    rl_interrupted = 1;
}

void rl_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
