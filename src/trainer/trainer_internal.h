/* Private to trainer/: the compiled --step-regex. */
#ifndef TC_TRAINER_INTERNAL_H
#define TC_TRAINER_INTERNAL_H

#include <regex.h>

#include "trainer.h"

#define TC_TRAINER_GROUP_COUNT 8 /* the names in tc_trainer_regex_groups */
#define TC_TRAINER_MAX_SUB 32    /* groups read from a match */

typedef struct tc_trainer_regex {
    regex_t re;
    int compiled;
    size_t n_groups;
    int slot[TC_TRAINER_GROUP_COUNT]; /* each name's group number; 0: not in the regex */
} tc_trainer_regex;

TC_MUST_CHECK tc_err tc_trainer_regex_compile(tc_trainer_regex *r, const char *pattern, char *err,
                                              size_t errlen);
void tc_trainer_regex_free(tc_trainer_regex *r);
/* TC_OK, or TC_ERR_INVALID naming opt when pat would make regcomp take
 * exponential memory (a quantifier on a quantifier, a count over 100,
 * over 1,024 characters). */
TC_MUST_CHECK tc_err tc_trainer_regex_check(const char *pat, const char *opt, char *err,
                                            size_t errlen);
/* 1 and the named groups' numbers in s when line matches. */
int tc_trainer_regex_match(const tc_trainer_regex *r, const char *line, tc_train_step *s);

#endif
