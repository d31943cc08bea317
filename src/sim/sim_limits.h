/* The process limits the simulated server needs to stand a load test. */
#ifndef TC_SIM_LIMITS_H
#define TC_SIM_LIMITS_H

/* Raises the soft limit of open files to the hard limit (on Linux, 2^20
 * when the hard limit is "unlimited"): every connection costs a file
 * descriptor, and the usual soft limit (1024) is far below what a load
 * test opens. Best effort: when it fails the server pauses accepting as it
 * runs out, and says so. */
void tc_sim_raise_open_files(void);

#endif
