/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dispatch.c — CPU feature detection and arch selection (core/cpu.c, core/arch.c, arch/registry.c).
 *
 *   - mbgcmi_cpu_features() against two independent probes: the compiler's
 *     __builtin_cpu_supports (libgcc/compiler-rt also check the OS-enabled XCR0 state) and the
 *     kernel's /proc/cpuinfo flags; in a build without NASM it must be 0;
 *   - arch names parse and print, unknown names give TU_ARCH_NONE;
 *   - arch requirements nest, mbgcmi_arch_supported follows them, mbgcmi_arch_best is the
 *     highest supported arch;
 *   - the feature-mask hook: mask 0 leaves only generic (and keys stay byte-identical), partial
 *     masks move the best arch down;
 *   - the one-shot arch hook;
 *   - variants: the descriptors of an arch's variants agree on everything but the variant's
 *     name and kernels, the choosers' picks for named CPUs (vendor and family; the model never
 *     matters), the CPU identity against /proc/cpuinfo, and the test hook that forces one;
 *   - the avx512 variants' burst routing: which short jobs each sends to the single-message
 *     kernels (stats.single_stream), every job checked against the OpenSSL reference.
 * MBGCM_ARCH and MBGCM_<ARCH>_VARIANT (read once per process) are covered by
 * test_dispatch_env.c.
 */
#include "jobs_internal.h"
#include "test_util.h"

struct feat {
    unsigned bit;
    const char *name;    /* for messages */
    const char *cpuinfo; /* /proc/cpuinfo flag */
};

static int builtin_probe(unsigned bit)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    switch (bit) {
    case MBGCMI_F_SSSE3: return __builtin_cpu_supports("ssse3") != 0;
    case MBGCMI_F_SSE41: return __builtin_cpu_supports("sse4.1") != 0;
    case MBGCMI_F_AESNI: return __builtin_cpu_supports("aes") != 0;
    case MBGCMI_F_PCLMUL: return __builtin_cpu_supports("pclmul") != 0;
    case MBGCMI_F_AVX: return __builtin_cpu_supports("avx") != 0;
    case MBGCMI_F_AVX2: return __builtin_cpu_supports("avx2") != 0;
#if !defined(__clang__) /* clang 14 does not know these two names */
    case MBGCMI_F_VAES: return __builtin_cpu_supports("vaes") != 0;
    case MBGCMI_F_VPCLMUL: return __builtin_cpu_supports("vpclmulqdq") != 0;
#endif
    case MBGCMI_F_AVX512F: return __builtin_cpu_supports("avx512f") != 0;
    case MBGCMI_F_AVX512BW: return __builtin_cpu_supports("avx512bw") != 0;
    case MBGCMI_F_AVX512VL: return __builtin_cpu_supports("avx512vl") != 0;
    case MBGCMI_F_BMI2: return __builtin_cpu_supports("bmi2") != 0;
#if defined(MBGCMI_F_BMI1)
    case MBGCMI_F_BMI1: return __builtin_cpu_supports("bmi") != 0;
#endif
    default: return -1;
    }
#else
    (void)bit;
    return -1;
#endif
}

/* __builtin_cpu_supports answers 1/0, or -1 when the compiler lacks the name */
static const struct feat feats[] = {
    {MBGCMI_F_SSSE3, "ssse3", "ssse3"},          {MBGCMI_F_SSE41, "sse4.1", "sse4_1"},
    {MBGCMI_F_AESNI, "aes", "aes"},              {MBGCMI_F_PCLMUL, "pclmul", "pclmulqdq"},
    {MBGCMI_F_AVX, "avx", "avx"},                {MBGCMI_F_AVX2, "avx2", "avx2"},
    {MBGCMI_F_VAES, "vaes", "vaes"},             {MBGCMI_F_VPCLMUL, "vpclmulqdq", "vpclmulqdq"},
    {MBGCMI_F_AVX512F, "avx512f", "avx512f"},    {MBGCMI_F_AVX512BW, "avx512bw", "avx512bw"},
    {MBGCMI_F_AVX512VL, "avx512vl", "avx512vl"}, {MBGCMI_F_BMI2, "bmi2", "bmi2"},
#if defined(MBGCMI_F_BMI1)
    {MBGCMI_F_BMI1, "bmi1", "bmi1"},
#endif
};
#define NFEATS (sizeof feats / sizeof feats[0])

/* 1/0 when /proc/cpuinfo's first "flags" line lists |flag|, -1 when unreadable */
static int cpuinfo_has(const char *flag)
{
    static char flags[8192];
    static int state; /* 0 unread, 1 read, -1 unavailable */
    if (state == 0) {
        state = -1;
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (f != NULL) {
            char line[8192];
            while (fgets(line, sizeof line, f) != NULL) {
                if (strncmp(line, "flags", 5) == 0) {
                    const char *c = strchr(line, ':');
                    if (c != NULL) {
                        snprintf(flags, sizeof flags, " %s", c + 1);
                        char *nl = strchr(flags, '\n');
                        if (nl) *nl = ' ';
                        else strcat(flags, " ");
                        state = 1;
                    }
                    break;
                }
            }
            fclose(f);
        }
    }
    if (state < 0) {
        return -1;
    }
    char pat[64];
    snprintf(pat, sizeof pat, " %s ", flag);
    return strstr(flags, pat) != NULL;
}

static void features_vs_independent_probe(void **state)
{
    (void)state;
    const unsigned f = mbgcmi_cpu_features();
    print_message("mbgcmi_cpu_features() = 0x%03x\n", f);
    assert_int_equal(f, mbgcmi_cpu_features()); /* stable */
#if !defined(MBGCM_HAVE_NASM)
    assert_int_equal(f, 0); /* portable build: no probe, only generic */
    for (size_t i = 0; i < NFEATS; i++) {
        print_message("  %-10s lib=0 (portable build) builtin=%d cpuinfo=%d\n", feats[i].name,
                      builtin_probe(feats[i].bit), cpuinfo_has(feats[i].cpuinfo));
    }
#else
    int compared = 0;
    for (size_t i = 0; i < NFEATS; i++) {
        const int lib = (f & feats[i].bit) != 0;
        const int b = builtin_probe(feats[i].bit), c = cpuinfo_has(feats[i].cpuinfo);
        print_message("  %-10s lib=%d builtin=%d cpuinfo=%d\n", feats[i].name, lib, b, c);
        if (b >= 0) {
            TU_CHECK(lib == b, "%s: library says %d, __builtin_cpu_supports says %d",
                     feats[i].name, lib, b);
            compared++;
        }
        if (c >= 0) {
            TU_CHECK(lib == c, "%s: library says %d, /proc/cpuinfo says %d", feats[i].name, lib,
                     c);
            compared++;
        }
    }
    assert_true(compared >= (int)NFEATS); /* every bit was compared with something */
    /* the implications the library encodes */
    if (f & (MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL)) {
        assert_true(f & MBGCMI_F_AVX);
    }
    if (f & (MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW | MBGCMI_F_AVX512VL)) {
        assert_true(f & MBGCMI_F_AVX);
    }
#endif
    unsigned known = 0;
    for (size_t i = 0; i < NFEATS; i++) {
        known |= feats[i].bit;
    }
    TU_CHECK((f & ~known) == 0, "feature bits 0x%x are unknown to this test: add them to feats[]",
             f & ~known);
}

static void arch_names(void **state)
{
    (void)state;
    static const char *const want[MBGCMI_MAX_ARCHES] = {"generic", "aesni", "avx2", "avx512"};
    assert_int_equal(TU_ARCH("generic"), 0);
    for (int a = 0; a < tu_arch_count(); a++) {
        assert_non_null(tu_arch_name(a));
        assert_string_equal(tu_arch_name(a), want[a]);
        assert_int_equal(tu_arch_parse(want[a]), a);
        assert_int_equal(tu_arch_parse(tu_arch_name(a)), a);
    }
    const int best = tu_arch_best();
    assert_int_equal(tu_arch_parse("auto"), best);
    assert_int_equal(tu_arch_parse(""), TU_ARCH_NONE); /* "" is not a name */
    assert_int_equal(tu_arch_parse(NULL), best);
    static const char *const unknown[] = {"bogus", "avx", "avx-512", "generic2", "aesni ",
                                          " aesni", "none", "sse", "autox"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        TU_CHECK(tu_arch_parse(unknown[i]) == TU_ARCH_NONE, "parse(\"%s\") = %d",
                 unknown[i], tu_arch_parse(unknown[i]));
    }
    static const int bad[] = {TU_ARCH_NONE, MBGCMI_MAX_ARCHES, 100, -100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *n = tu_arch_name(bad[i]);
        assert_non_null(n);
        for (int a = 0; a < tu_arch_count(); a++) {
            assert_string_not_equal(n, want[a]);
        }
    }
}

static void arch_support_and_best(void **state)
{
    (void)state;
    const unsigned f = mbgcmi_cpu_features();
    (void)f; /* unused in a build without NASM */
    assert_int_equal(tu_arch_requires(TU_ARCH("generic")), 0);
    assert_true(tu_arch_supported(TU_ARCH("generic")));
    assert_false(tu_arch_supported(TU_ARCH_NONE));
    assert_false(tu_arch_supported(MBGCMI_MAX_ARCHES));
    assert_false(tu_arch_supported(-2));
    for (int a = 1; a < tu_arch_count(); a++) {
        const unsigned lo = tu_arch_requires(a - 1), hi = tu_arch_requires(a);
        TU_CHECK((lo & hi) == lo && lo != hi, "requirements of %s do not contain %s's",
                 tu_arch_name(a), tu_arch_name(a - 1));
    }
    assert_true(tu_arch_requires(TU_ARCH("aesni")) & MBGCMI_F_AESNI);
    assert_true(tu_arch_requires(TU_ARCH("aesni")) & MBGCMI_F_PCLMUL);
    assert_true(tu_arch_requires(TU_ARCH("avx2")) & MBGCMI_F_VAES);
    assert_true(tu_arch_requires(TU_ARCH("avx512")) & MBGCMI_F_AVX512F);
    int highest = -1;
    for (int a = 0; a < tu_arch_count(); a++) {
        const unsigned need = tu_arch_requires(a);
#if defined(MBGCM_HAVE_NASM)
        const int expect = (f & need) == need;
#else
        const int expect = a == TU_ARCH("generic");
#endif
        TU_CHECK(tu_arch_supported(a) == expect, "supported(%s) = %d, expected %d",
                 tu_arch_name(a), tu_arch_supported(a), expect);
        print_message("  %-8s requires 0x%03x supported %d\n", tu_arch_name(a), need,
                      tu_arch_supported(a));
        if (tu_arch_supported(a)) {
            highest = a;
        }
    }
    assert_int_equal(tu_arch_best(), highest);
    print_message("best arch: %s\n", tu_arch_name(highest));
}

static void feature_mask_hook(void **state)
{
    (void)state;
    const unsigned full = mbgcmi_cpu_features();
    const int best = tu_arch_best();
    uint8_t raw[32];
    for (int i = 0; i < 32; i++) raw[i] = (uint8_t)(i * 7 + 1);
    mbgcm_key before, after;
    assert_int_equal(mbgcm_key_init(&before, raw, 32), MBGCM_OK);

    mbgcmi_cpu_features_mask(0);
    assert_int_equal(mbgcmi_cpu_features(), 0);
    for (int a = 1; a < tu_arch_count(); a++) {
        TU_CHECK(!tu_arch_supported(a), "mask 0: %s still supported", tu_arch_name(a));
    }
    assert_true(tu_arch_supported(TU_ARCH("generic")));
    assert_int_equal(tu_arch_best(), TU_ARCH("generic"));
    assert_int_equal(tu_arch_parse("auto"), TU_ARCH("generic"));
    /* key setup takes the portable path now, and the bytes are the same */
    assert_int_equal(mbgcm_key_init(&after, raw, 32), MBGCM_OK);
    TU_MEM_EQ(&after, &before, sizeof after, "key_init under mask 0");
    /* and the generic one-shot path works */
    tu_set_oneshot_arch(TU_ARCH("generic"));
    uint8_t iv[12] = {1, 2, 3}, pt[33] = {4, 5, 6}, ct[33], tag[16], rct[33], rtag[16];
    assert_int_equal(mbgcm_encrypt(&after, iv, 12, NULL, 0, pt, 33, ct, tag, 16), MBGCM_OK);
    tu_ossl_gcm_encrypt(raw, 32, iv, 12, NULL, 0, pt, 33, rct, rtag, 16);
    TU_MEM_EQ(ct, rct, 33, "generic under mask 0");
    TU_MEM_EQ(tag, rtag, 16, "generic tag under mask 0");

    /* hide AVX-512 only: best drops to avx2 (when avx2 is there) */
    mbgcmi_cpu_features_mask(~MBGCMI_F_AVX512F);
    assert_false(tu_arch_supported(TU_ARCH("avx512")));
    if (best == TU_ARCH("avx512")) {
        assert_int_equal(tu_arch_best(), TU_ARCH("avx2"));
    }
    /* exactly the aesni features (a build with only generic has no aesni) */
    const int aesni = TU_ARCH("aesni");
    if (aesni != TU_ARCH_NONE) {
        mbgcmi_cpu_features_mask(tu_arch_requires(aesni));
        assert_int_equal(mbgcmi_cpu_features(), full & tu_arch_requires(aesni));
        assert_int_equal(tu_arch_best(), best >= aesni ? aesni : TU_ARCH("generic"));
        assert_false(tu_arch_supported(TU_ARCH("avx2")));
        if (best >= aesni) {
            assert_int_equal(mbgcm_key_init(&after, raw, 32), MBGCM_OK);
            TU_MEM_EQ(&after, &before, sizeof after, "key_init under the aesni mask");
        }
    }

    mbgcmi_cpu_features_mask(~0u);
    assert_int_equal(mbgcmi_cpu_features(), full);
    assert_int_equal(tu_arch_best(), best);
    mbgcm_key_wipe(&before);
    mbgcm_key_wipe(&after);
}

static void oneshot_hook(void **state)
{
    (void)state;
    uint8_t raw[16] = {9}, iv[12] = {0}, out[16], tag[16];
    mbgcm_key k;
    assert_int_equal(mbgcm_key_init(&k, raw, 16), MBGCM_OK);
    for (int a = 0; a < tu_arch_count(); a++) {
        if (!tu_arch_supported(a)) {
            continue;
        }
        tu_set_oneshot_arch(a);
        assert_int_equal(tu_oneshot_arch(), a);
        assert_int_equal(mbgcm_encrypt(&k, iv, 12, NULL, 0, raw, 16, out, tag, 16), MBGCM_OK);
        assert_non_null(tu_arch(a)->ops);
    }
    tu_set_oneshot_arch(TU_ARCH_NONE);
    assert_int_equal(tu_oneshot_arch(), TU_ARCH_NONE);
    memset(out, 0x3C, sizeof out);
    memset(tag, 0x3C, sizeof tag);
    assert_int_equal(mbgcm_encrypt(&k, iv, 12, NULL, 0, raw, 16, out, tag, 16),
                     MBGCM_ERR_UNSUPPORTED);
    assert_int_equal(mbgcm_decrypt(&k, iv, 12, NULL, 0, raw, 16, out, tag, 16),
                     MBGCM_ERR_UNSUPPORTED);
    assert_true(tu_all_byte(out, 16, 0x3C) && tu_all_byte(tag, 16, 0x3C));
    tu_set_oneshot_arch(tu_arch_best());
    mbgcm_key_wipe(&k);
}

/* the CPU identity: vendor and family as /proc/cpuinfo reports them */
static void cpu_identity(void **state)
{
    (void)state;
    struct mbgcmi_cpu_id id;
    mbgcmi_cpu_id(&id);
    print_message("CPU %s family 0x%x model 0x%x\n", id.vendor[0] ? id.vendor : "(none)",
                  id.family, id.model);
    if (mbgcmi_cpu_features() == 0) { /* portable build: no CPUID */
        assert_string_equal(id.vendor, "");
        return;
    }
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512], vendor[64] = "";
    unsigned family = ~0u;
    while (fgets(line, sizeof line, f) != NULL && (vendor[0] == '\0' || family == ~0u)) {
        if (sscanf(line, "vendor_id : %63s", vendor) == 1) {
            continue;
        }
        (void)sscanf(line, "cpu family : %u", &family);
    }
    fclose(f);
    if (vendor[0] != '\0') {
        assert_string_equal(id.vendor, vendor);
    }
    if (family != ~0u) {
        assert_int_equal(id.family, family);
    }
}

/* every arch's variants: the registry entry first, unique names, the same arch otherwise */
static void variants_agree(void **state)
{
    (void)state;
    for (unsigned i = 0; i < mbgcmi_narches; i++) {
        const struct mbgcmi_arch *base = mbgcmi_arches[i];
        if (base->nvariants == 0) {
            assert_null(base->variants);
            continue;
        }
        assert_non_null(base->variants);
        assert_non_null(base->choose);
        assert_ptr_equal(base->variants[0], base);
        for (unsigned v = 0; v < base->nvariants; v++) {
            const struct mbgcmi_arch *x = base->variants[v];
            assert_non_null(x->variant);
            assert_string_equal(x->name, base->name);
            assert_int_equal(x->requires, base->requires);
            assert_int_equal(x->portable, base->portable);
            assert_ptr_equal(x->key_expand, base->key_expand);
            assert_ptr_equal(x->lanes, base->lanes);
            assert_ptr_equal(x->short_jobs, base->short_jobs);
            assert_true(x->single_min_len == base->single_min_len);
            assert_non_null(x->ops);
            assert_int_equal(mbgcmi_arch_index(x), (int)i);
            assert_ptr_equal(mbgcmi_arch_variant(x, x->variant), x);
            assert_int_equal(mbgcmi_arch_nvariants(x), base->nvariants);
            for (unsigned w = 0; w < v; w++) {
                assert_true(strcmp(base->variants[w]->variant, x->variant) != 0);
                assert_true(base->variants[w]->ops != x->ops);
            }
        }
        assert_null(mbgcmi_arch_variant(base, "no-such-variant"));
    }
}

/* the choosers (docs/design.md, "Variants"): avx512 gives by32h on AMD family 0x19, by32 on
   0x1A and later, by16 on Intel and older AMD; the model number never matters */
static void variant_choice(void **state)
{
    (void)state;
    static const struct {
        const char *arch, *vendor;
        unsigned family;
        const char *want;
    } cases[] = {
        {"avx512", "GenuineIntel", 6, "by16"},     {"avx512", "AuthenticAMD", 0x17, "by16"},
        {"avx512", "AuthenticAMD", 0x19, "by32h"}, {"avx512", "AuthenticAMD", 0x1A, "by32"},
        {"avx512", "AuthenticAMD", 0x1B, "by32"},  {"avx512", "HygonGenuine", 0x18, "by16"},
        {"avx512", "", 0, "by16"},
    };
    unsigned checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int a = TU_ARCH(cases[c].arch);
        if (a == TU_ARCH_NONE) {
            continue; /* portable build */
        }
        const struct mbgcmi_arch *base = mbgcmi_arches[a];
        assert_non_null(base->choose);
        for (unsigned model = 0; model < 256; model += 17) {
            struct mbgcmi_cpu_id id = {.family = cases[c].family, .model = model};
            snprintf(id.vendor, sizeof id.vendor, "%s", cases[c].vendor);
            const unsigned v = base->choose(&id, mbgcmi_cpu_features());
            assert_true(v < base->nvariants);
            TU_CHECK(strcmp(base->variants[v]->variant, cases[c].want) == 0,
                     "%s: %s family 0x%x model 0x%x: %s, want %s", cases[c].arch,
                     cases[c].vendor, cases[c].family, model, base->variants[v]->variant,
                     cases[c].want);
        }
        checked++;
    }
    if (checked == 0) {
        skip();
    }
}

/* the test hook: every lookup gives the forced variant, NULL restores the choice */
static void variant_hook(void **state)
{
    (void)state;
    for (unsigned i = 0; i < mbgcmi_narches; i++) {
        const struct mbgcmi_arch *base = mbgcmi_arches[i];
        if (base->nvariants == 0) {
            assert_int_equal(mbgcmi_arch_set_variant(base, "by16"), -1);
            assert_ptr_equal(mbgcmi_arch_at(i), base);
            continue;
        }
        const struct mbgcmi_arch *chosen = mbgcmi_arch_at(i);
        for (unsigned v = 0; v < base->nvariants; v++) {
            const struct mbgcmi_arch *x = base->variants[v];
            assert_int_equal(mbgcmi_arch_set_variant(base, x->variant), 0);
            assert_ptr_equal(mbgcmi_arch_at(i), x);
            assert_ptr_equal(mbgcmi_arch_find(base->name), x);
            assert_ptr_equal(mbgcmi_arch_parse(base->name), x);
            if (mbgcmi_arch_supported(x)) {
                mbgcm_mgr *m = NULL;
                mbgcm_config cfg = {.arch = base->name};
                assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
                assert_string_equal(mbgcm_mgr_arch(m), base->name);
                mbgcm_mgr_free(m);
            }
        }
        assert_int_equal(mbgcmi_arch_set_variant(base, "no-such-variant"), -1);
        assert_ptr_equal(mbgcmi_arch_at(i), base->variants[base->nvariants - 1]);
        assert_int_equal(mbgcmi_arch_set_variant(base, NULL), 0);
        assert_ptr_equal(mbgcmi_arch_at(i), chosen);
    }
}

/* Routing per avx512 variant (docs/design.md, "Variants"), bursts and the ring: a variant's
   short-job limits (short_msg_below for the ring: by16 and by32 1, by32h 161;
   burst_short_msg_below: by16 113, by32 none; burst_short_dec_below, decrypts: by32 145) send
   jobs with that much message or more to the single-message kernels and keep shorter ones and
   GMAC jobs of up to 256 bytes of AAD on the short-job kernel (by16's and by32's ring: GMAC
   jobs too go single-stream); by32's bursts keep every short encrypt of up to 256 bytes on
   it. One burst, or the same jobs through the ring, per variant holds each kind on both sides
   of every limit, in both directions, with a failed tag on each route; every job's output,
   tag, status and canaries are checked, and
   stats.single_stream must count exactly the jobs routed single-stream (tu_goes_single_burst,
   tu_goes_single). Through the ring also behind a |lead| job that waits in the lanes until the
   flush (a 16-byte IV), so that every job meets a ring that is not empty: submit's general
   path, where an empty ring's quick path would take by16's jobs. */
static const struct {
    int dir;
    size_t aad, len;
    int tamper;
} route_kinds[] = {
    {MBGCM_ENCRYPT, 16, 160, 0}, {MBGCM_DECRYPT, 16, 160, 0}, {MBGCM_DECRYPT, 0, 150, 1},
    {MBGCM_ENCRYPT, 16, 161, 0}, {MBGCM_DECRYPT, 0, 192, 0},  {MBGCM_DECRYPT, 16, 200, 1},
    {MBGCM_ENCRYPT, 16, 256, 0}, {MBGCM_DECRYPT, 16, 256, 0}, {MBGCM_ENCRYPT, 200, 0, 0},
    {MBGCM_DECRYPT, 256, 0, 0},  {MBGCM_ENCRYPT, 16, 64, 0},  {MBGCM_ENCRYPT, 16, 257, 0},
    {MBGCM_ENCRYPT, 16, 144, 0}, {MBGCM_DECRYPT, 16, 144, 1}, {MBGCM_ENCRYPT, 0, 145, 0},
    {MBGCM_DECRYPT, 16, 145, 1}, {MBGCM_ENCRYPT, 16, 112, 0}, {MBGCM_DECRYPT, 0, 113, 0},
    {MBGCM_ENCRYPT, 0, 120, 0},  {MBGCM_DECRYPT, 16, 128, 1}, {MBGCM_ENCRYPT, 16, 1, 0},
    {MBGCM_DECRYPT, 16, 16, 1},  {MBGCM_ENCRYPT, 0, 32, 0},   {MBGCM_DECRYPT, 16, 0, 0},
};
#define NROUTE (sizeof route_kinds / sizeof route_kinds[0])

static void avx512_routing(int burst, int two_keys, int lead)
{
    const int a = TU_ARCH("avx512");
    if (a == TU_ARCH_NONE || !tu_arch_supported(a)) {
        skip();
    }
    const struct mbgcmi_arch *base = mbgcmi_arches[a];
    tu_rng r;
    tu_rng_init(&r, burst ? "avx512_burst_routing" : "avx512_ring_routing");
    tu_key key, key2;
    tu_key_random(&r, &key, 0);
    tu_key_random(&r, &key2, 0);
    for (unsigned v = 0; v < base->nvariants; v++) {
        const char *name = base->variants[v]->variant;
        assert_int_equal(mbgcmi_arch_set_variant(base, name), 0);
        const mbgcm_config cfg = {.arch = "avx512"};
        mbgcm_mgr *m = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
        tu_tjob *t[NROUTE];
        mbgcm_job jobs[NROUTE];
        unsigned want_ok = 0;
        uint64_t want_single = 0;
        for (unsigned i = 0; i < NROUTE; i++) {
            const tu_jspec sp = {.key = two_keys && i % 2 ? &key2 : &key,
                                 .dir = route_kinds[i].dir, .iv_len = 12,
                                 .aad_len = route_kinds[i].aad, .len = route_kinds[i].len,
                                 .tag_len = 16, .tamper = route_kinds[i].tamper};
            t[i] = tu_tjob_new(&r, &sp);
            tu_tjob_load(t[i], &jobs[i], NULL, &r);
            want_ok += !route_kinds[i].tamper;
        }
        const int short_on = tu_burst_short_on(m, jobs, NROUTE);
        const tu_jspec lsp = {.key = &key, .dir = MBGCM_ENCRYPT, .iv_len = 16, .aad_len = 16,
                              .len = 64, .tag_len = 16};
        tu_tjob *tl = lead ? tu_tjob_new(&r, &lsp) : NULL;
        if (lead) {
            want_single += tu_goes_single(m, m->single_min_len, &lsp);
        }
        for (unsigned i = 0; i < NROUTE; i++) {
            want_single += burst ? tu_goes_single_burst(m, m->single_min_len, &t[i]->sp, short_on)
                                 : tu_goes_single(m, m->single_min_len, &t[i]->sp);
        }
        char ctx[80];
        if (burst) {
            assert_int_equal(mbgcm_submit_burst(m, jobs, NROUTE), want_ok);
        } else {
            mbgcm_job ret[NROUTE + 1];
            unsigned back = 0;
            if (lead) {
                tu_tjob_load(tl, mbgcm_get_next_job(m), NULL, &r);
                assert_null(mbgcm_submit_job(m)); /* it waits for its lanes */
            }
            for (unsigned i = 0; i < NROUTE; i++) {
                mbgcm_job *j = mbgcm_get_next_job(m);
                *j = jobs[i];
                for (mbgcm_job *x = mbgcm_submit_job(m); x != NULL;
                     x = mbgcm_get_completed_job(m)) {
                    ret[back++] = *x;
                }
            }
            for (mbgcm_job *x = mbgcm_flush_job(m); x != NULL; x = mbgcm_flush_job(m)) {
                ret[back++] = *x;
            }
            /* returned in order: the lead job first, then jobs[i] is job i again */
            assert_int_equal(back, NROUTE + (lead != 0));
            if (lead) {
                tu_tjob_check(tl, &ret[0], "ring, the lead job");
                tu_tjob_free(tl);
            }
            memcpy(jobs, ret + (lead != 0), sizeof jobs);
        }
        const char *api = burst ? "burst" : lead ? "ring behind a lead job" : "ring";
        for (unsigned i = 0; i < NROUTE; i++) {
            snprintf(ctx, sizeof ctx, "%s, variant %s, job %u", api, name, i);
            tu_tjob_check(t[i], &jobs[i], ctx);
            tu_tjob_free(t[i]);
        }
        mbgcm_stats st;
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        TU_CHECK(st.single_stream == want_single, "%s, variant %s: stats.single_stream %llu, "
                 "expected %llu", api, name,
                 (unsigned long long)st.single_stream, (unsigned long long)want_single);
        assert_int_equal(st.jobs, NROUTE + (lead != 0));
        mbgcm_mgr_free(m);
    }
    assert_int_equal(mbgcmi_arch_set_variant(base, NULL), 0);
    mbgcm_key_wipe(&key.key);
    mbgcm_key_wipe(&key2.key);
}

static void avx512_burst_routing(void **state)
{
    (void)state;
    avx512_routing(1, 0, 0);
    avx512_routing(1, 1, 0); /* two keys alternating: by16 keeps short jobs off the lanes */
}

static void avx512_ring_routing(void **state)
{
    (void)state;
    avx512_routing(0, 0, 0);
    avx512_routing(0, 0, 1);
}

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features_vs_independent_probe),
        cmocka_unit_test(arch_names),
        cmocka_unit_test(arch_support_and_best),
        cmocka_unit_test(feature_mask_hook),
        cmocka_unit_test(oneshot_hook),
        cmocka_unit_test(cpu_identity),
        cmocka_unit_test(variants_agree),
        cmocka_unit_test(variant_choice),
        cmocka_unit_test(avx512_burst_routing),
        cmocka_unit_test(avx512_ring_routing),
        cmocka_unit_test(variant_hook),
    };
    return cmocka_run_group_tests_name("dispatch", tests, NULL, NULL) ? 1 : 0;
}
