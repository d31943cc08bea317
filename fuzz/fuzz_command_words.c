/* libFuzzer target: a stored command line read back into words (`soak
 * --resume RUN` alone runs the command a soak started as, from the
 * database, which anyone with access may have edited).
 *
 * Besides not crashing it checks the round trip a resume relies on: words
 * quoted as truecost stores them read back as the same words. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/tc_redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char line[4097], buf[8192], again[8192];
    memcpy(line, data, size);
    line[size] = '\0';
    char *words[65], *back[66];
    int n = tc_cli_command_words(line, words, 64, buf, sizeof buf);
    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++) {
        char shown[1024];
        if ((size_t)(words[i] - buf) >= sizeof buf)
            abort();
        tc_redact_url(words[i], shown, sizeof shown);
        if (strcmp(shown, words[i]) != 0)
            return 0; /* a password is stored as "***": no round trip to check */
    }
    /* As stored: "truecost" and the words, quoted; then read back. */
    back[0] = "truecost";
    for (int i = 0; i < n; i++)
        back[i + 1] = words[i];
    tc_app_set_command_line(n + 1, back);
    if (!tc_app_command_line_whole())
        return 0;
    char *w2[66];
    int m = tc_cli_command_words(tc_app_command_line(), w2, 66, again, sizeof again);
    if (m != n + 1 || strcmp(w2[0], "truecost") != 0)
        abort();
    for (int i = 0; i < n; i++)
        if (strcmp(w2[i + 1], words[i]) != 0)
            abort();
    return 0;
}
