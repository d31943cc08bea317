#include "bench_synth.h"

#include <math.h>
#include <string.h>

#include "core/tc_rng.h"

/* 256 common English words, lower case, each one token after a space in
 * the cl100k and o200k (GPT), Llama 2, Llama 3 and Mistral tokenisers
 * (checked with their JavaScript ports), so the count per word does not
 * vary with the words drawn; the calibration measures it either way. */
static const char *const vocab[256] = {
    "the",     "of",      "and",      "to",      "in",     "is",     "that",     "for",
    "it",      "as",      "was",      "with",    "be",     "by",     "on",       "not",
    "he",      "this",    "are",      "or",      "his",    "from",   "at",       "which",
    "but",     "have",    "an",       "had",     "they",   "you",    "were",     "their",
    "one",     "all",     "we",       "can",     "her",    "has",    "there",    "been",
    "if",      "more",    "when",     "will",    "would",  "who",    "so",       "no",
    "she",     "other",   "its",      "may",     "these",  "what",   "them",     "than",
    "some",    "him",     "time",     "into",    "only",   "do",     "could",    "new",
    "about",   "two",     "first",    "then",    "also",   "after",  "any",      "such",
    "like",    "our",     "over",     "most",    "my",     "me",     "out",      "up",
    "people",  "very",    "made",     "your",    "should", "well",   "many",     "where",
    "way",     "those",   "each",     "did",     "work",   "both",   "must",     "years",
    "used",    "how",     "because",  "through", "state",  "world",  "life",     "same",
    "before",  "being",   "between",  "under",   "long",   "last",   "good",     "day",
    "know",    "still",   "while",    "great",   "back",   "own",    "year",     "might",
    "part",    "take",    "three",    "just",    "since",  "even",   "much",     "place",
    "without", "high",    "make",     "against", "here",   "see",    "found",    "use",
    "off",     "get",     "small",    "number",  "never",  "house",  "old",      "left",
    "until",   "water",   "right",    "set",     "end",    "put",    "home",     "read",
    "hand",    "large",   "add",      "land",    "big",    "follow", "act",      "why",
    "ask",     "men",     "change",   "went",    "light",  "kind",   "need",     "point",
    "mother",  "near",    "build",    "self",    "earth",  "father", "head",     "stand",
    "page",    "country", "school",   "grow",    "study",  "learn",  "plant",    "cover",
    "food",    "sun",     "four",     "city",    "tree",   "cross",  "farm",     "hard",
    "start",   "story",   "far",      "sea",     "draw",   "late",   "run",      "press",
    "close",   "night",   "real",     "few",     "north",  "open",   "seem",     "together",
    "next",    "white",   "children", "begin",   "got",    "walk",   "example",  "paper",
    "group",   "always",  "music",    "mark",    "often",  "letter", "mile",     "river",
    "car",     "feet",    "care",     "second",  "book",   "carry",  "took",     "science",
    "eat",     "room",    "friend",   "began",   "idea",   "fish",   "mountain", "stop",
    "once",    "base",    "hear",     "horse",   "cut",    "sure",   "watch",    "color",
    "face",    "wood",    "main",     "line",    "name",   "word",   "form",     "turn",
};

const tc_synth_preset tc_synth_presets[] = {
    {"chat", 1024, 1024},
    {"reasoning", 1024, 8192},
    {"summarize", 8192, 1024},
    {NULL, 0, 0},
};

const tc_synth_preset *tc_synth_preset_find(const char *name)
{
    for (const tc_synth_preset *p = tc_synth_presets; name && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

size_t tc_synth_vocab_size(void)
{
    return sizeof vocab / sizeof vocab[0];
}

int64_t tc_synth_isl_min(const tc_synth *s)
{
    int64_t lo = (int64_t)ceil(s->isl_range * (double)s->isl - 1e-9);
    if (lo < 1)
        lo = 1;
    return lo > s->isl ? s->isl : lo;
}

int64_t tc_synth_target(const tc_synth *s, int64_t seq)
{
    int64_t lo = tc_synth_isl_min(s);
    uint64_t span = (uint64_t)(s->isl - lo) + 1;
    return lo + (int64_t)(tc_hash3(s->seed, (uint64_t)seq, 0x15c) % span);
}

int64_t tc_synth_words(const tc_synth_calib *c, int64_t tokens)
{
    double w = ((double)tokens - c->overhead) / c->tokens_per_word;
    int64_t n = (int64_t)llround(w);
    return n < 1 ? 1 : n;
}

tc_err tc_synth_text(uint64_t seed, int64_t seq, int64_t words, tc_buf *out)
{
    tc_rng rng;
    tc_rng_seed(&rng, tc_hash3(seed, (uint64_t)seq, 0x7e47));
    tc_buf_reset(out);
    uint64_t bits = 0;
    for (int64_t i = 0; i < words; i++) {
        if (i % 8 == 0) /* a byte per word: 256 words */
            bits = tc_rng_next(&rng);
        if (i)
            tc_buf_append(out, " ", 1);
        tc_buf_puts(out, vocab[bits & 0xff]);
        bits >>= 8;
    }
    return tc_buf_status(out);
}

tc_err tc_synth_prompt(const tc_synth *s, int64_t seq, tc_buf *out)
{
    return tc_synth_text(s->seed, seq, tc_synth_words(&s->calib, tc_synth_target(s, seq)), out);
}
