/* coord_registry.c — coord.def expanded into the strategy list, and the
 * "NAME[:k=V,...]" spelling every --coord is read with. */
#include "coord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RL_COORD(name) extern const struct rl_coord rl_coord_##name;
#include "coord.def"
#undef RL_COORD

const struct rl_coord *const rl_coord_registry[] = {
#define RL_COORD(name) &rl_coord_##name,
#include "coord.def"
#undef RL_COORD
    NULL,
};

const struct rl_coord *rl_coord_find(const char *name, size_t len)
{
    for (const struct rl_coord *const *c = rl_coord_registry; *c; c++)
        if (strlen((*c)->name) == len && strncmp((*c)->name, name, len) == 0)
            return *c;
    return NULL;
}

int rl_coord_parse(const char *spec, const struct rl_coord **coord, struct rl_coord_params *p,
                   char *err, size_t err_len)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    *coord = rl_coord_find(spec, len);
    if (*coord == NULL) {
        char names[256] = "";
        for (const struct rl_coord *const *c = rl_coord_registry; *c; c++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     c == rl_coord_registry ? "" : ", ", (*c)->name);
        snprintf(err, err_len, "unknown coordination strategy '%.*s' (one of: %s)", (int)len, spec,
                 names);
        return -1;
    }
    if (colon && colon[1] == '\0') {
        snprintf(err, err_len, "%s: empty parameter list after ':'", (*coord)->name);
        return -1;
    }
    return (*coord)->parse(colon ? colon + 1 : NULL, p, err, err_len);
}

bool rl_coord_next_param(const char **text, char *key, size_t key_len, char *value,
                         size_t value_len)
{
    const char *s = *text;
    if (s == NULL || *s == '\0')
        return false;
    size_t item = strcspn(s, ",");
    const char *eq = memchr(s, '=', item);
    size_t klen = eq ? (size_t)(eq - s) : item;
    size_t vlen = eq ? item - klen - 1 : 0;
    snprintf(key, key_len, "%.*s", (int)klen, s);
    snprintf(value, value_len, "%.*s", (int)vlen, eq ? eq + 1 : "");
    *text = s[item] ? s + item + 1 : s + item;
    return true;
}

int rl_coord_parse_none(const char *name, const char *text, char *err, size_t err_len)
{
    if (text == NULL || *text == '\0')
        return 0;
    snprintf(err, err_len, "%s takes no parameters (got '%s')", name, text);
    return -1;
}

int rl_coord_parse_ewma(const char *name, const char *text, struct rl_coord_params *p, char *err,
                        size_t err_len)
{
    p->ewma = 0.1;
    char key[32], value[64];
    while (rl_coord_next_param(&text, key, sizeof key, value, sizeof value)) {
        char *end;
        double w = strtod(value, &end);
        if (strcmp(key, "ewma") != 0) {
            snprintf(err, err_len, "%s: unknown parameter '%s' (it takes ewma=W)", name, key);
            return -1;
        }
        if (value[0] == '\0' || *end != '\0' || !(w > 0 && w <= 1)) {
            snprintf(err, err_len, "%s: ewma must be a number in (0, 1], not '%s'", name, value);
            return -1;
        }
        p->ewma = w;
    }
    return 0;
}
