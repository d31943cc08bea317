#include "sim_limits.h"

#include <sys/resource.h>

void tc_sim_raise_open_files(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && rl.rlim_max == RLIM_INFINITY) {
        rl.rlim_cur = 1 << 20; /* Linux refuses "unlimited"; its default ceiling */
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}
