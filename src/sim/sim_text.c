#include "sim_text.h"

#include <math.h>
#include <string.h>

#include "core/tc_rng.h"

static const char *const syllables[32] = {
    "ka", "lo", "mi", "ne", "ru", "ta",  "vo", "zi", "pe", "so", "da", "fu", "ge", "hi", "ju", "ba",
    "co", "ly", "ma", "no", "pa", "qui", "re", "si", "tu", "ve", "wa", "xo", "ye", "zu", "an", "el",
};

size_t tc_sim_token_text(uint64_t seed, uint64_t prompt_hash, int index, char *buf)
{
    uint64_t h = tc_hash3(seed, prompt_hash, (uint64_t)index);
    size_t n = 0;
    if (index > 0)
        buf[n++] = ' ';
    int count = 1 + (int)(h % 3);
    h /= 3;
    for (int i = 0; i < count; i++) {
        const char *s = syllables[h & 31];
        h >>= 5;
        size_t l = strlen(s);
        memcpy(buf + n, s, l);
        n += l;
    }
    buf[n] = '\0';
    return n;
}

int tc_sim_count_words(const char *text, size_t len)
{
    int words = 0, in_word = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        int space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (!space && !in_word)
            words++;
        in_word = !space;
    }
    return words;
}

int tc_sim_scale_words(int words, double tokens_per_word)
{
    return (int)llround((double)words * tokens_per_word);
}

int tc_sim_count_prompt_tokens(const char *text, size_t len)
{
    return tc_sim_count_words(text, len) + 1;
}
