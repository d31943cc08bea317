/* truecost train's work. */
#ifndef TC_APP_TRAIN_H
#define TC_APP_TRAIN_H

#include "measure/measure_train.h"

/* Runs cfg->argv (the trainer's command; cfg filled from the options) as
 * measure/measure_train.c does, its output shown as it comes (on stderr
 * with json, so that stdout holds the document; nothing with quiet), the
 * run stored in db (NULL: the default) and its document printed. The exit
 * status: 0, 3 when the trainer failed or printed no step, 130/143 when
 * stopped, 2 when it could not start. */
int tc_app_train(tc_measure_train_config *cfg, const char *db, int json, int quiet);

#endif
