/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engines.c — the engine list: mbgcm's ring, burst and one-shot engines (best arch first),
 * then the ipsec-mb peers' APIs, then OpenSSL EVP; and lookups into it.
 */
#include "engine.h"
#include "options.h"

const char *api_name(enum api a)
{
    static const char *const names[] = {"oneshot", "ring", "burst", "direct", "job", "quic",
                                        "evp"};
    return names[a];
}

struct engine *engine_add(struct engine *eng, unsigned *ne, enum family fam, enum api api)
{
    if (*ne == MAX_ENGINES) {
        die("too many engines");
    }
    struct engine *e = &eng[(*ne)++];
    memset(e, 0, sizeof *e);
    e->family = fam;
    e->api = api;
    e->arch = e->lane_arch = -1;
    e->is_mbgcm = fam == FAM_MBGCM;
    return e;
}

unsigned build_engines(struct engine *eng)
{
    unsigned ne = 0;
    mbgcm_add_engines(eng, &ne);
    imb_add_engines(eng, &ne);
    evp_add_engine(eng, &ne);
    int have_ref = 0;
    for (unsigned i = 0; i < ne; i++) {
        have_ref |= eng[i].ref;
    }
    if (!have_ref) { /* no ipsec-mb at all: compare with OpenSSL */
        eng[ne - 1].ref = 1;
    }
    return ne;
}

const struct engine *best_mbgcm(const struct engine *eng, unsigned ne, enum api api)
{
    /* selected engines first (MBGCM_ARCH may have deselected the best arch), then any */
    for (int want_selected = 1; want_selected >= 0; want_selected--) {
        const struct engine *best = NULL;
        for (unsigned i = 0; i < ne; i++) {
            const struct engine *e = &eng[i];
            if (e->family == FAM_MBGCM && e->api == api && (!e->dup || e->selected) &&
                (!want_selected || e->selected) && (best == NULL || e->arch > best->arch)) {
                best = e;
            }
        }
        if (best != NULL) {
            return best;
        }
    }
    return NULL;
}

const struct engine *ref_engine(const struct engine *eng, unsigned ne, enum api api)
{
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].ref && eng[i].api == api) {
            return &eng[i];
        }
    }
    return NULL;
}
