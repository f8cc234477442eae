/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dispatch_env.c — the MBGCM_ARCH environment variable, read once per process by the
 * one-shot API. ctest registers this program several times with different environments
 * (test/CMakeLists.txt); the argument says what to expect:
 *   unsupported  MBGCM_ARCH names no arch (e.g. "bogus"): encrypt and decrypt return
 *                MBGCM_ERR_UNSUPPORTED and write nothing; key setup still works
 *   generic      MBGCM_ARCH=generic: the generic arch runs and gives correct results
 *   best         MBGCM_ARCH=auto or unset: the best supported arch
 *   named        MBGCM_ARCH names an arch: that arch when supported, else UNSUPPORTED
 *   mask-avx512  MBGCM_ARCH=avx512 with AVX-512 hidden through the feature-mask hook before
 *                first use: UNSUPPORTED (never a crash, never a silent fallback)
 * Every mode then changes MBGCM_ARCH and checks that the choice did not move.
 *   variant      MBGCM_AVX512_VARIANT names a variant (MBGCM_ARCH unset), or
 *                MBGCM_AVX2_VARIANT does (MBGCM_ARCH=avx2): the one-shot calls and managers
 *                of that arch run it; a variant the arch lacks makes them UNSUPPORTED
 *                (managers of other arches still work); read once per process
 */
#include "test_util.h"

static const char *mode;

static const uint8_t raw[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
static const uint8_t iv[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad,
                               0xde, 0xca, 0xf8, 0x88};

/* Encrypt/decrypt 100 bytes; with want_ok they must match OpenSSL, else return
   UNSUPPORTED and leave every output byte alone. */
static void exercise(int want_ok, const char *ctx)
{
    mbgcm_key k;
    assert_int_equal(mbgcm_key_init(&k, raw, sizeof raw), MBGCM_OK); /* never arch-gated */
    uint8_t pt[100], ct[100], tag[16], rct[100], rtag[16], out[100];
    uint8_t aad[7] = {1, 2, 3, 4, 5, 6, 7};
    for (int i = 0; i < 100; i++) pt[i] = (uint8_t)(3 * i);
    tu_ossl_gcm_encrypt(raw, 16, iv, 12, aad, 7, pt, 100, rct, rtag, 16);
    memset(ct, 0x77, sizeof ct);
    memset(tag, 0x77, sizeof tag);
    int s = mbgcm_encrypt(&k, iv, 12, aad, 7, pt, 100, ct, tag, 16);
    if (want_ok) {
        TU_CHECK(s == MBGCM_OK, "%s: encrypt status %d", ctx, s);
        TU_MEM_EQ(ct, rct, 100, "%s: ciphertext", ctx);
        TU_MEM_EQ(tag, rtag, 16, "%s: tag", ctx);
    } else {
        TU_CHECK(s == MBGCM_ERR_UNSUPPORTED, "%s: encrypt status %d (%s)", ctx, s,
                 mbgcm_strerror(s));
        TU_CHECK(tu_all_byte(ct, 100, 0x77) && tu_all_byte(tag, 16, 0x77), "%s: wrote", ctx);
    }
    memset(out, 0x77, sizeof out);
    s = mbgcm_decrypt(&k, iv, 12, aad, 7, rct, 100, out, rtag, 16);
    if (want_ok) {
        TU_CHECK(s == MBGCM_OK, "%s: decrypt status %d", ctx, s);
        TU_MEM_EQ(out, pt, 100, "%s: plaintext", ctx);
    } else {
        TU_CHECK(s == MBGCM_ERR_UNSUPPORTED, "%s: decrypt status %d (%s)", ctx, s,
                 mbgcm_strerror(s));
        TU_CHECK(tu_all_byte(out, 100, 0x77), "%s: decrypt wrote", ctx);
    }
    mbgcm_key_wipe(&k);
}

static void env_arch(void **state)
{
    (void)state;
    const char *env = getenv("MBGCM_ARCH");
    print_message("mode %s, MBGCM_ARCH=%s%s%s, best arch here %s\n", mode, env ? "\"" : "",
                  env ? env : "(unset)", env ? "\"" : "", tu_arch_name(tu_arch_best()));
    int want; /* expected one-shot arch, TU_ARCH_NONE for unsupported */
    if (strcmp(mode, "unsupported") == 0) {
        assert_non_null(env);
        assert_int_equal(tu_arch_parse(env), TU_ARCH_NONE); /* registration sanity */
        want = TU_ARCH_NONE;
    } else if (strcmp(mode, "generic") == 0) {
        assert_non_null(env);
        assert_string_equal(env, "generic");
        want = TU_ARCH("generic");
    } else if (strcmp(mode, "best") == 0) {
        assert_true(env == NULL || strcmp(env, "auto") == 0 || env[0] == '\0');
        want = tu_arch_best();
    } else if (strcmp(mode, "named") == 0) {
        assert_non_null(env);
        const int a = tu_arch_parse(env);
        if (a == TU_ARCH_NONE) { /* not in this build's registry (portable build): unknown */
            want = TU_ARCH_NONE;
        } else {
            assert_true(a < tu_arch_count());
            assert_string_equal(tu_arch_name(a), env);
            want = tu_arch_supported(a) ? a : TU_ARCH_NONE;
        }
    } else if (strcmp(mode, "mask-avx512") == 0) {
        assert_non_null(env);
        assert_string_equal(env, "avx512");
        /* hide AVX-512 before anything reads the arch */
        mbgcmi_cpu_features_mask(~(MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW | MBGCMI_F_AVX512VL));
        assert_false(tu_arch_supported(TU_ARCH("avx512")));
        want = TU_ARCH_NONE;
    } else {
        fail_msg("unknown mode %s", mode);
        return;
    }
    print_message("expecting the one-shot arch to be %s\n", tu_arch_name(want));

    /* the first one-shot call reads MBGCM_ARCH */
    exercise(want != TU_ARCH_NONE, "first calls");
    assert_int_equal(tu_oneshot_arch(), want);

    /* read once: changing the variable now changes nothing */
    setenv("MBGCM_ARCH", want == TU_ARCH_NONE ? "generic" : "bogus", 1);
    exercise(want != TU_ARCH_NONE, "after setenv");
    assert_int_equal(tu_oneshot_arch(), want);
    unsetenv("MBGCM_ARCH");
    assert_int_equal(tu_oneshot_arch(), want);
}

static void env_variant(void **state)
{
    (void)state;
    /* MBGCM_AVX512_VARIANT with MBGCM_ARCH unset (avx512 is the best arch where it runs), or
       MBGCM_AVX2_VARIANT with MBGCM_ARCH=avx2 */
    const char *arch = getenv("MBGCM_AVX2_VARIANT") != NULL ? "avx2" : "avx512";
    const char *var = strcmp(arch, "avx2") == 0 ? "MBGCM_AVX2_VARIANT" : "MBGCM_AVX512_VARIANT";
    const char *other = strcmp(arch, "avx2") == 0 ? "aesni" : "avx2";
    const char *env = getenv(var);
    assert_non_null(env);
    const char *env_arch = getenv("MBGCM_ARCH");
    if (strcmp(arch, "avx2") == 0) {
        assert_non_null(env_arch);
        assert_string_equal(env_arch, "avx2");
    } else {
        assert_null(env_arch);
    }
    const int a = TU_ARCH(arch);
    if (a == TU_ARCH_NONE || !tu_arch_supported(a)) {
        print_message("no %s here: the variable must change nothing\n", arch);
        exercise(env_arch == NULL, "arch not here");
        return;
    }
    const struct mbgcmi_arch *base = mbgcmi_arches[a];
    const struct mbgcmi_arch *v = mbgcmi_arch_variant(base, env);
    print_message("%s=%s: %s\n", var, env, v ? "a variant" : "no such variant");
    mbgcm_mgr *m = NULL;
    mbgcm_config cfg = {.arch = arch};
    if (v != NULL) {
        assert_ptr_equal(mbgcmi_arch_parse(arch), v);
        assert_ptr_equal(mbgcmi_arch_parse(env_arch), v);
        exercise(1, "variant");
        assert_ptr_equal(mbgcmi_oneshot_arch(), v);
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
        mbgcm_mgr_free(m);
    } else {
        assert_null(mbgcmi_arch_parse(arch));
        assert_null(mbgcmi_arch_parse(env_arch));
        exercise(0, "unknown variant");
        assert_null(mbgcmi_oneshot_arch());
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_ERR_UNSUPPORTED);
        assert_int_equal(mbgcm_mgr_create(&m, NULL), MBGCM_ERR_UNSUPPORTED);
        cfg.arch = other;
        if (tu_arch_supported(TU_ARCH(other))) {
            assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
            mbgcm_mgr_free(m);
        }
    }
    /* read once: changing the variable now changes nothing */
    setenv(var, v != NULL ? "bogus" : base->variant, 1);
    assert_ptr_equal(mbgcmi_arch_parse(arch), v);
    unsetenv(var);
    assert_ptr_equal(mbgcmi_arch_parse(arch), v);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s unsupported|generic|best|named|mask-avx512|variant\n",
                argv[0]);
        return 2;
    }
    mode = argv[1];
    const struct CMUnitTest arch_tests[] = {
        cmocka_unit_test(env_arch),
    };
    const struct CMUnitTest variant_tests[] = {
        cmocka_unit_test(env_variant),
    };
    if (strcmp(mode, "variant") == 0) {
        return cmocka_run_group_tests_name("dispatch_env", variant_tests, NULL, NULL) ? 1 : 0;
    }
    return cmocka_run_group_tests_name("dispatch_env", arch_tests, NULL, NULL) ? 1 : 0;
}
