/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_misuse.c — every error path of the public key and one-shot API (api/mbgcm.h).
 *
 * Each bad call carries exactly one fault, so exactly one status is correct whatever order
 * the library checks in; the only ordering asserted is the documented one: every argument is
 * checked before any memory is touched, so an argument error beats an authentication failure
 * and leaves |out| alone. "Nothing written" is checked by prefilling outputs with a pattern.
 * Calls that succeed run once per supported arch.
 */
#include <limits.h>

#include "test_util.h"
#include "validate.h"

#define PAT 0xC3
#define TEXT 64
#define AADN 20

static const size_t bad_key_lens[] = {0, 1, 15, 17, 23, 25, 31, 33, 64};
static const size_t bad_tag_lens[] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32, SIZE_MAX};

/* Shared fixture: a valid key and message with its OpenSSL ciphertext and tag. */
static struct {
    uint8_t raw[16], iv[12], aad[AADN], pt[TEXT], ct[TEXT], tag[16];
    mbgcm_key key;
} fx;

static int setup(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "api_misuse");
    tu_rng_fill(&r, fx.raw, sizeof fx.raw);
    tu_rng_fill(&r, fx.iv, sizeof fx.iv);
    tu_rng_fill(&r, fx.aad, sizeof fx.aad);
    tu_rng_fill(&r, fx.pt, sizeof fx.pt);
    tu_ossl_gcm_encrypt(fx.raw, 16, fx.iv, 12, fx.aad, AADN, fx.pt, TEXT, fx.ct, fx.tag, 16);
    if (mbgcm_key_init(&fx.key, fx.raw, 16) != MBGCM_OK) {
        return -1;
    }
    tu_set_oneshot_arch(tu_arch_best());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mbgcm_key_wipe(&fx.key);
    return 0;
}

/* Encrypt and decrypt with the given arguments; both must return |want| and write nothing
   (out and tag buffers keep their pattern). |in| NULL means the fixture's pt/ct. */
static void both_fail(int want, const mbgcm_key *k, const void *iv, size_t ivl, const void *aad,
                      size_t adl, size_t len, size_t tl, int null_in, int null_out, int null_tag,
                      const char *what)
{
    uint8_t out[TEXT], tag[16], in[TEXT];
    memcpy(in, fx.pt, TEXT);
    memset(out, PAT, sizeof out);
    memset(tag, PAT, sizeof tag);
    int s = mbgcm_encrypt(k, iv, ivl, aad, adl, null_in ? NULL : in, len, null_out ? NULL : out,
                          null_tag ? NULL : tag, tl);
    TU_CHECK(s == want, "encrypt, %s: status %d (%s), expected %d", what, s, mbgcm_strerror(s),
             want);
    TU_CHECK(tu_all_byte(out, sizeof out, PAT) && tu_all_byte(tag, sizeof tag, PAT),
             "encrypt, %s: wrote output on error", what);
    TU_MEM_EQ(in, fx.pt, TEXT, "encrypt, %s: input modified", what);

    memcpy(in, fx.ct, TEXT);
    uint8_t rtag[16];
    memcpy(rtag, fx.tag, 16);
    s = mbgcm_decrypt(k, iv, ivl, aad, adl, null_in ? NULL : in, len, null_out ? NULL : out,
                      null_tag ? NULL : rtag, tl);
    TU_CHECK(s == want, "decrypt, %s: status %d (%s), expected %d", what, s, mbgcm_strerror(s),
             want);
    TU_CHECK(tu_all_byte(out, sizeof out, PAT), "decrypt, %s: wrote output on error", what);
    TU_MEM_EQ(in, fx.ct, TEXT, "decrypt, %s: input modified", what);
}

/* ---- keys ---------------------------------------------------------------------------------- */
static void key_invalid_for_calls(void **state)
{
    (void)state;
    both_fail(MBGCM_ERR_INVALID, NULL, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0, "NULL key");

    /* misaligned: a valid key image at 64-byte alignment + off */
    static unsigned char space[MBGCM_KEY_SIZE + 128] __attribute__((aligned(64)));
    static const size_t offs[] = {1, 8, 16, 32, 48};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        memcpy(space + offs[i], &fx.key, sizeof fx.key);
        const mbgcm_key *mk = (const mbgcm_key *)(const void *)(space + offs[i]);
        char what[64];
        snprintf(what, sizeof what, "key misaligned by %zu", offs[i]);
        both_fail(MBGCM_ERR_INVALID, mk, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0, what);
    }

    /* never initialised: zeros, and random bytes */
    mbgcm_key k;
    memset(&k, 0, sizeof k);
    both_fail(MBGCM_ERR_INVALID, &k, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0, "zeroed key");
    tu_rng r;
    tu_rng_init(&r, "garbage key");
    for (int i = 0; i < 16; i++) {
        tu_rng_fill(&r, &k, sizeof k);
        if (mbgcmi_key_c(&k)->magic == MBGCMI_KEY_MAGIC) {
            continue;
        }
        both_fail(MBGCM_ERR_INVALID, &k, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0,
                  "random-bytes key");
    }
    /* a valid key whose round count was damaged (the library's usability rule) */
    memcpy(&k, &fx.key, sizeof k);
    mbgcmi_key_w(&k)->rounds = 11;
    both_fail(MBGCM_ERR_INVALID, &k, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "key with rounds 11");
    /* and one whose round count is fine but whose magic is not (an image of a key's bytes
       that key_init did not make) */
    memcpy(&k, &fx.key, sizeof k);
    mbgcmi_key_w(&k)->magic ^= 1;
    both_fail(MBGCM_ERR_INVALID, &k, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "key with a damaged magic");

    /* wiped: all zero bytes afterwards, and unusable */
    assert_int_equal(mbgcm_key_init(&k, fx.raw, 16), MBGCM_OK);
    mbgcm_key_wipe(&k);
    assert_true(tu_all_byte(&k, sizeof k, 0));
    both_fail(MBGCM_ERR_INVALID, &k, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0, "wiped key");
    /* and it can be initialised again */
    assert_int_equal(mbgcm_key_init(&k, fx.raw, 16), MBGCM_OK);
    TU_MEM_EQ(&k, &fx.key, sizeof k, "re-initialised key");
    /* over an AES-256 key, or over garbage: every byte as a fresh init (no stale round keys
       past AES-128's last, nothing left in the reserved bytes) */
    uint8_t raw32[32];
    tu_rng_fill(&r, raw32, sizeof raw32);
    assert_int_equal(mbgcm_key_init(&k, raw32, 32), MBGCM_OK);
    assert_int_equal(mbgcm_key_init(&k, fx.raw, 16), MBGCM_OK);
    TU_MEM_EQ(&k, &fx.key, sizeof k, "AES-128 key initialised over an AES-256 key");
    memset(&k, 0xA5, sizeof k);
    assert_int_equal(mbgcm_key_init(&k, fx.raw, 16), MBGCM_OK);
    TU_MEM_EQ(&k, &fx.key, sizeof k, "key initialised over garbage");
    mbgcm_key_wipe(NULL); /* accepted and ignored */
    mbgcm_key_wipe(&k);
}

static void key_init_errors(void **state)
{
    (void)state;
    uint8_t raw[64];
    memset(raw, 0x42, sizeof raw);
    mbgcm_key k, snap;
    memset(&k, PAT, sizeof k);
    memcpy(&snap, &k, sizeof k);

    assert_int_equal(mbgcm_key_init(&k, NULL, 16), MBGCM_ERR_INVALID);
    TU_MEM_EQ(&k, &snap, sizeof k, "key_init(raw NULL) modified the key");
    assert_int_equal(mbgcm_key_init(NULL, raw, 16), MBGCM_ERR_INVALID);

    static unsigned char space[MBGCM_KEY_SIZE + 128] __attribute__((aligned(64)));
    static const size_t offs[] = {1, 8, 16, 32, 48};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        memset(space, PAT, sizeof space);
        mbgcm_key *mk = (mbgcm_key *)(void *)(space + offs[i]);
        assert_int_equal(mbgcm_key_init(mk, raw, 16), MBGCM_ERR_INVALID);
        TU_CHECK(tu_all_byte(space, sizeof space, PAT), "misaligned key_init wrote (off %zu)",
                 offs[i]);
    }

    for (size_t i = 0; i < sizeof bad_key_lens / sizeof bad_key_lens[0]; i++) {
        const int s = mbgcm_key_init(&k, raw, bad_key_lens[i]);
        TU_CHECK(s == MBGCM_ERR_KEY_LEN, "key_init(len %zu): status %d", bad_key_lens[i], s);
        TU_MEM_EQ(&k, &snap, sizeof k, "key_init(len %zu) modified the key", bad_key_lens[i]);
    }
    /* an initialised key is not touched by a failing re-init either */
    assert_int_equal(mbgcm_key_init(&k, raw, 24), MBGCM_OK);
    memcpy(&snap, &k, sizeof k);
    assert_int_equal(mbgcm_key_init(&k, raw, 17), MBGCM_ERR_KEY_LEN);
    assert_int_equal(mbgcm_key_init(&k, NULL, 32), MBGCM_ERR_INVALID);
    TU_MEM_EQ(&k, &snap, sizeof k, "failing re-init modified an initialised key");

    static const size_t good[] = {16, 24, 32};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mbgcm_key_init(&k, raw, good[i]), MBGCM_OK);
        assert_true(mbgcmi_key_ok(&k));
        assert_int_equal(mbgcmi_key_c(&k)->rounds, good[i] / 4 + 6);
    }
    mbgcm_key_wipe(&k);
}

/* ---- lengths ---------------------------------------------------------------------------------- */
static void iv_len_errors(void **state)
{
    (void)state;
    const size_t two61 = (size_t)1 << 61;
    both_fail(MBGCM_ERR_IV_LEN, &fx.key, fx.iv, 0, fx.aad, AADN, TEXT, 16, 0, 0, 0, "iv_len 0");
    both_fail(MBGCM_ERR_IV_LEN, &fx.key, fx.iv, two61, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "iv_len 2^61");
    both_fail(MBGCM_ERR_IV_LEN, &fx.key, fx.iv, two61 + 1, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "iv_len 2^61+1");
    both_fail(MBGCM_ERR_IV_LEN, &fx.key, fx.iv, SIZE_MAX, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "iv_len SIZE_MAX");
    /* 2^61-1 is a legal length: with one other fault, that fault is reported (never hashed) */
    both_fail(MBGCM_ERR_TAG_LEN, &fx.key, fx.iv, two61 - 1, fx.aad, AADN, TEXT, 3, 0, 0, 0,
              "iv_len 2^61-1 with tag_len 3");
    both_fail(MBGCM_ERR_INVALID, &fx.key, NULL, two61 - 1, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "iv_len 2^61-1 with iv NULL");
}

static void length_errors(void **state)
{
    (void)state;
    const size_t two61 = (size_t)1 << 61, two36 = (size_t)1 << 36;
    both_fail(MBGCM_ERR_LEN, &fx.key, fx.iv, 12, fx.aad, two61, TEXT, 16, 0, 0, 0,
              "aad_len 2^61");
    both_fail(MBGCM_ERR_LEN, &fx.key, fx.iv, 12, fx.aad, SIZE_MAX, TEXT, 16, 0, 0, 0,
              "aad_len SIZE_MAX");
    both_fail(MBGCM_ERR_TAG_LEN, &fx.key, fx.iv, 12, fx.aad, two61 - 1, TEXT, 5, 0, 0, 0,
              "aad_len 2^61-1 (legal) with tag_len 5");

    /* message too long: tiny real buffers, in place (no overlap question) and, when the two
       buffers are far apart, out of place */
    static const size_t bad_len[] = {((size_t)1 << 36) - 31, (size_t)1 << 36, SIZE_MAX};
    uint8_t tag[16];
    for (int i = 0; i < 3; i++) {
        uint8_t buf[32];
        memset(buf, PAT, sizeof buf);
        memset(tag, PAT, sizeof tag);
        int s = mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, bad_len[i], buf, tag, 16);
        TU_CHECK(s == MBGCM_ERR_LEN, "encrypt len %zu: status %d", bad_len[i], s);
        TU_CHECK(tu_all_byte(buf, sizeof buf, PAT) && tu_all_byte(tag, 16, PAT),
                 "encrypt len %zu wrote", bad_len[i]);
        memcpy(tag, fx.tag, 16);
        s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, bad_len[i], buf, tag, 16);
        TU_CHECK(s == MBGCM_ERR_LEN, "decrypt len %zu: status %d", bad_len[i], s);
        TU_CHECK(tu_all_byte(buf, sizeof buf, PAT), "decrypt len %zu wrote", bad_len[i]);

        uint8_t *heap = tu_xmalloc(32);
        memset(heap, PAT, 32);
        const uintptr_t a = (uintptr_t)buf, b = (uintptr_t)heap;
        if (bad_len[i] < two36 + 64 && (a > b ? a - b : b - a) > two36 + 64) {
            memset(tag, PAT, sizeof tag);
            s = mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, bad_len[i], heap, tag, 16);
            TU_CHECK(s == MBGCM_ERR_LEN, "encrypt len %zu out of place: status %d", bad_len[i],
                     s);
            memcpy(tag, fx.tag, 16);
            s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, bad_len[i], heap, tag, 16);
            TU_CHECK(s == MBGCM_ERR_LEN, "decrypt len %zu out of place: status %d", bad_len[i],
                     s);
            TU_CHECK(tu_all_byte(heap, 32, PAT) && tu_all_byte(buf, sizeof buf, PAT),
                     "len %zu out of place wrote", bad_len[i]);
        }
        free(heap);
    }
    /* 2^36-32 is legal: in place with a bad tag length gives TAG_LEN */
    uint8_t buf[32];
    memset(buf, PAT, sizeof buf);
    int s = mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, two36 - 32, buf, tag, 9);
    TU_CHECK(s == MBGCM_ERR_TAG_LEN, "len 2^36-32 with tag_len 9: status %d", s);
    s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, two36 - 32, buf, fx.tag, 9);
    TU_CHECK(s == MBGCM_ERR_TAG_LEN, "decrypt len 2^36-32 with tag_len 9: status %d", s);
    TU_CHECK(tu_all_byte(buf, sizeof buf, PAT), "wrote");
}

static void tag_len_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_tag_lens / sizeof bad_tag_lens[0]; i++) {
        char what[48];
        snprintf(what, sizeof what, "tag_len %zu", bad_tag_lens[i]);
        both_fail(MBGCM_ERR_TAG_LEN, &fx.key, fx.iv, 12, fx.aad, AADN, TEXT, bad_tag_lens[i], 0,
                  0, 0, what);
    }
}

/* ---- pointers ------------------------------------------------------------------------------ */
static void null_pointer_errors(void **state)
{
    (void)state;
    both_fail(MBGCM_ERR_INVALID, &fx.key, NULL, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0, "iv NULL");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 1,
              "tag NULL");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, NULL, AADN, TEXT, 16, 0, 0, 0,
              "aad NULL, aad_len 20");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, NULL, 1, TEXT, 16, 0, 0, 0,
              "aad NULL, aad_len 1");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, fx.aad, AADN, TEXT, 16, 1, 0, 0,
              "in NULL, len 64");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 1, 0,
              "out NULL, len 64");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, fx.aad, AADN, 1, 16, 1, 1, 0,
              "in and out NULL, len 1");
    both_fail(MBGCM_ERR_INVALID, &fx.key, NULL, 12, NULL, 0, 0, 16, 1, 1, 0,
              "iv NULL, everything else empty");
    both_fail(MBGCM_ERR_INVALID, &fx.key, fx.iv, 12, NULL, 0, 0, 16, 1, 1, 1,
              "tag NULL, everything else empty");
}

static void null_allowed_when_empty(void **state)
{
    (void)state;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    uint8_t rtag_a[16], rtag_b[16], rtag_c[16], ct[TEXT], out[TEXT];
    tu_ossl_gcm_encrypt(fx.raw, 16, fx.iv, 12, NULL, 0, NULL, 0, NULL, rtag_a, 16);
    tu_ossl_gcm_encrypt(fx.raw, 16, fx.iv, 12, NULL, 0, fx.pt, TEXT, ct, rtag_b, 16);
    tu_ossl_gcm_encrypt(fx.raw, 16, fx.iv, 12, fx.aad, AADN, NULL, 0, NULL, rtag_c, 16);
    for (int i = 0; i < na; i++) {
        tu_set_oneshot_arch(arches[i]);
        const char *an = tu_arch_name(arches[i]);
        uint8_t tag[16];
        /* all empty: GMAC of nothing */
        assert_int_equal(mbgcm_encrypt(&fx.key, fx.iv, 12, NULL, 0, NULL, 0, NULL, tag, 16),
                         MBGCM_OK);
        TU_MEM_EQ(tag, rtag_a, 16, "%s: tag of empty message", an);
        assert_int_equal(mbgcm_decrypt(&fx.key, fx.iv, 12, NULL, 0, NULL, 0, NULL, rtag_a, 16),
                         MBGCM_OK);
        /* NULL aad with aad_len 0, real text */
        assert_int_equal(mbgcm_encrypt(&fx.key, fx.iv, 12, NULL, 0, fx.pt, TEXT, out, tag, 16),
                         MBGCM_OK);
        TU_MEM_EQ(out, ct, TEXT, "%s: ciphertext, NULL aad", an);
        TU_MEM_EQ(tag, rtag_b, 16, "%s: tag, NULL aad", an);
        memset(out, PAT, sizeof out);
        assert_int_equal(mbgcm_decrypt(&fx.key, fx.iv, 12, NULL, 0, ct, TEXT, out, rtag_b, 16),
                         MBGCM_OK);
        TU_MEM_EQ(out, fx.pt, TEXT, "%s: plaintext, NULL aad", an);
        /* NULL in/out with len 0, real aad; also non-NULL in with NULL out and vice versa */
        assert_int_equal(
            mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, NULL, 0, NULL, tag, 16), MBGCM_OK);
        TU_MEM_EQ(tag, rtag_c, 16, "%s: tag, NULL text", an);
        assert_int_equal(
            mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.pt, 0, NULL, tag, 16), MBGCM_OK);
        TU_MEM_EQ(tag, rtag_c, 16, "%s: tag, NULL out", an);
        assert_int_equal(
            mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, NULL, 0, NULL, rtag_c, 16),
            MBGCM_OK);
        assert_int_equal(
            mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, NULL, 0, out, rtag_c, 16),
            MBGCM_OK);
        /* a wrong tag on an empty message: AUTH, nothing to zero */
        uint8_t bad[16];
        memcpy(bad, rtag_c, 16);
        bad[7] ^= 0x10;
        assert_int_equal(mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, NULL, 0, NULL, bad, 16),
                         MBGCM_ERR_AUTH);
    }
    tu_set_oneshot_arch(tu_arch_best());
}

static void overlap_errors(void **state)
{
    (void)state;
    uint8_t big[TEXT * 3];
    static const long offs[] = {1, 15, -1, -15, 16, -16, TEXT - 1, -(TEXT - 1)};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        uint8_t *in = big + TEXT, *out = in + offs[i];
        uint8_t snap[sizeof big], tag[16];
        memset(big, PAT, sizeof big);
        memcpy(in, fx.pt, TEXT);
        memcpy(snap, big, sizeof big);
        memset(tag, PAT, 16);
        int s = mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, in, TEXT, out, tag, 16);
        TU_CHECK(s == MBGCM_ERR_INVALID, "encrypt, out = in %+ld: status %d", offs[i], s);
        TU_MEM_EQ(big, snap, sizeof big, "encrypt, out = in %+ld wrote", offs[i]);
        TU_CHECK(tu_all_byte(tag, 16, PAT), "encrypt, out = in %+ld wrote the tag", offs[i]);
        memcpy(in, fx.ct, TEXT);
        memcpy(snap, big, sizeof big);
        s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, in, TEXT, out, fx.tag, 16);
        TU_CHECK(s == MBGCM_ERR_INVALID, "decrypt, out = in %+ld: status %d", offs[i], s);
        TU_MEM_EQ(big, snap, sizeof big, "decrypt, out = in %+ld wrote", offs[i]);
        /* a wrong tag as well: the argument error still wins and nothing is zeroed */
        uint8_t bad[16];
        memcpy(bad, fx.tag, 16);
        bad[0] ^= 1;
        s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, in, TEXT, out, bad, 16);
        TU_CHECK(s == MBGCM_ERR_INVALID, "decrypt (bad tag), out = in %+ld: status %d", offs[i],
                 s);
        TU_MEM_EQ(big, snap, sizeof big, "decrypt (bad tag), out = in %+ld wrote", offs[i]);
    }

    /* adjacent buffers do not overlap; in == out is in-place; per arch */
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    for (int a = 0; a < na; a++) {
        tu_set_oneshot_arch(arches[a]);
        const char *an = tu_arch_name(arches[a]);
        static const long adj[] = {TEXT, -TEXT, 0};
        for (int j = 0; j < 3; j++) {
            uint8_t *in = big + TEXT, *out = in + adj[j], tag[16];
            memset(big, PAT, sizeof big);
            memcpy(in, fx.pt, TEXT);
            int s = mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, in, TEXT, out, tag, 16);
            TU_CHECK(s == MBGCM_OK, "%s: encrypt, out = in %+ld: status %d", an, adj[j], s);
            TU_MEM_EQ(out, fx.ct, TEXT, "%s: out = in %+ld ciphertext", an, adj[j]);
            TU_MEM_EQ(tag, fx.tag, 16, "%s: out = in %+ld tag", an, adj[j]);
            if (adj[j] != 0) {
                TU_MEM_EQ(in, fx.pt, TEXT, "%s: out = in %+ld: input changed", an, adj[j]);
            }
            memcpy(in, fx.ct, TEXT);
            s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, in, TEXT, out, fx.tag, 16);
            TU_CHECK(s == MBGCM_OK, "%s: decrypt, out = in %+ld: status %d", an, adj[j], s);
            TU_MEM_EQ(out, fx.pt, TEXT, "%s: out = in %+ld plaintext", an, adj[j]);
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
}

/* ---- authentication ------------------------------------------------------------------------ */
static void auth_failure_zeroes(void **state)
{
    (void)state;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    static const size_t tls[] = {4, 8, 12, 16};
    for (int a = 0; a < na; a++) {
        tu_set_oneshot_arch(arches[a]);
        const char *an = tu_arch_name(arches[a]);
        for (int t = 0; t < 4; t++) {
            for (int bit = 0; bit < 8 * (int)tls[t]; bit += 5) {
                uint8_t bad[16], out[TEXT], buf[TEXT];
                memcpy(bad, fx.tag, 16);
                bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                memset(out, PAT, sizeof out);
                int s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.ct, TEXT, out, bad,
                                      tls[t]);
                TU_CHECK(s == MBGCM_ERR_AUTH, "%s: tag_len %zu bit %d: status %d", an, tls[t],
                         bit, s);
                TU_CHECK(tu_all_byte(out, TEXT, 0), "%s: out not zeroed", an);
                memcpy(buf, fx.ct, TEXT);
                s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, buf, TEXT, buf, bad, tls[t]);
                TU_CHECK(s == MBGCM_ERR_AUTH, "%s: in place tag_len %zu bit %d: status %d", an,
                         tls[t], bit, s);
                TU_CHECK(tu_all_byte(buf, TEXT, 0), "%s: in-place buffer not zeroed", an);
            }
        }
        /* the documented order: argument errors are reported before authentication, and
           nothing is zeroed then */
        uint8_t bad[16], out[TEXT];
        memcpy(bad, fx.tag, 16);
        bad[3] ^= 4;
        memset(out, PAT, sizeof out);
        assert_int_equal(mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.ct, TEXT, out, bad, 7),
                         MBGCM_ERR_TAG_LEN);
        assert_int_equal(mbgcm_decrypt(&fx.key, fx.iv, 0, fx.aad, AADN, fx.ct, TEXT, out, bad, 16),
                         MBGCM_ERR_IV_LEN);
        assert_int_equal(mbgcm_decrypt(&fx.key, NULL, 12, fx.aad, AADN, fx.ct, TEXT, out, bad, 16),
                         MBGCM_ERR_INVALID);
        assert_true(tu_all_byte(out, TEXT, PAT));
    }
    tu_set_oneshot_arch(tu_arch_best());
}

/* mbgcm_decrypt reads the tag first, so it may live inside |out|. */
static void decrypt_tag_inside_out(void **state)
{
    (void)state;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    static const size_t pos[] = {0, 1, 24, TEXT - 16};
    static const size_t tls[] = {16, 12, 4};
    for (int a = 0; a < na; a++) {
        tu_set_oneshot_arch(arches[a]);
        const char *an = tu_arch_name(arches[a]);
        for (size_t p = 0; p < sizeof pos / sizeof pos[0]; p++) {
            for (int t = 0; t < 3; t++) {
                uint8_t out[TEXT];
                memset(out, PAT, sizeof out);
                memcpy(out + pos[p], fx.tag, tls[t]);
                int s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.ct, TEXT, out,
                                      out + pos[p], tls[t]);
                TU_CHECK(s == MBGCM_OK, "%s: tag at out+%zu (tag_len %zu): status %d", an,
                         pos[p], tls[t], s);
                TU_MEM_EQ(out, fx.pt, TEXT, "%s: tag at out+%zu: plaintext", an, pos[p]);
                /* a wrong tag inside out: AUTH, and out is all zero */
                memset(out, PAT, sizeof out);
                memcpy(out + pos[p], fx.tag, tls[t]);
                out[pos[p] + tls[t] - 1] ^= 0x80;
                s = mbgcm_decrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.ct, TEXT, out,
                                  out + pos[p], tls[t]);
                TU_CHECK(s == MBGCM_ERR_AUTH, "%s: bad tag at out+%zu: status %d", an, pos[p],
                         s);
                TU_CHECK(tu_all_byte(out, TEXT, 0), "%s: bad tag at out+%zu: not zeroed", an,
                         pos[p]);
            }
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
}

static void unsupported_arch(void **state)
{
    (void)state;
    tu_set_oneshot_arch(TU_ARCH_NONE);
    both_fail(MBGCM_ERR_UNSUPPORTED, &fx.key, fx.iv, 12, fx.aad, AADN, TEXT, 16, 0, 0, 0,
              "arch none");
    tu_set_oneshot_arch(tu_arch_best());
    uint8_t out[TEXT], tag[16];
    assert_int_equal(mbgcm_encrypt(&fx.key, fx.iv, 12, fx.aad, AADN, fx.pt, TEXT, out, tag, 16),
                     MBGCM_OK);
}

/* jobs/validate.h documents the order of mbgcmi_check_args (shared by the one-shot calls
   and the job manager): key, IV length, AAD/message length, tag length, NULL pointers,
   overlap. Every combination of those faults must report the first one. */
static void check_args_documented_order(void **state)
{
    (void)state;
    static const int code[6] = {MBGCM_ERR_INVALID, MBGCM_ERR_IV_LEN, MBGCM_ERR_LEN,
                                MBGCM_ERR_TAG_LEN, MBGCM_ERR_INVALID, MBGCM_ERR_INVALID};
    uint8_t big[3 * TEXT], tag[16];
    for (unsigned set = 0; set < 64; set++) {
        const mbgcm_key *k = (set & 1) ? NULL : &fx.key;
        const size_t ivl = (set & 2) ? 0 : 12;
        const size_t adl = (set & 4) ? ((size_t)1 << 61) : AADN;
        const size_t tl = (set & 8) ? 3 : 16;
        const void *iv = (set & 16) ? NULL : fx.iv;
        uint8_t *in = big + TEXT;
        uint8_t *out = (set & 32) ? in + 1 : in; /* in place: no overlap fault */
        int want = MBGCM_OK;
        for (int f = 0; f < 6; f++) {
            if (set & (1u << f)) {
                want = code[f];
                break;
            }
        }
        memset(big, PAT, sizeof big);
        memset(tag, PAT, sizeof tag);
        const int s = mbgcmi_check_args(k, iv, ivl, fx.aad, adl, in, TEXT, out, tag, tl);
        TU_CHECK(s == want, "faults 0x%02x: status %d, expected %d", set, s, want);
        TU_CHECK(tu_all_byte(big, sizeof big, PAT) && tu_all_byte(tag, 16, PAT),
                 "check_args wrote");
    }
}

/* ---- strings ----------------------------------------------------------------------------------- */
static void strerror_texts(void **state)
{
    (void)state;
    static const int codes[] = {MBGCM_OK,          MBGCM_ERR_AUTH,    MBGCM_ERR_INVALID,
                                MBGCM_ERR_KEY_LEN, MBGCM_ERR_IV_LEN,  MBGCM_ERR_TAG_LEN,
                                MBGCM_ERR_LEN,     MBGCM_ERR_NOMEM,   MBGCM_ERR_UNSUPPORTED,
                                MBGCM_PENDING};
    const size_t n = sizeof codes / sizeof codes[0];
    /* the values are ABI */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(codes[i], (int)i);
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = mbgcm_strerror(codes[i]);
        assert_non_null(s);
        assert_true(s[0] != '\0');
        assert_string_not_equal(s, "unknown status");
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(s, mbgcm_strerror(codes[j]));
        }
        print_message("%d: %s\n", codes[i], s);
    }
    static const int unknown[] = {-1, 10, 1000, INT_MIN, INT_MAX, -9};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_string_equal(mbgcm_strerror(unknown[i]), "unknown status");
    }
}

static void version_string(void **state)
{
    (void)state;
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", MBGCM_VERSION_MAJOR, MBGCM_VERSION_MINOR,
             MBGCM_VERSION_PATCH);
    assert_non_null(mbgcm_version());
    assert_string_equal(mbgcm_version(), want);
    print_message("version %s\n", mbgcm_version());
}

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_invalid_for_calls),
        cmocka_unit_test(key_init_errors),
        cmocka_unit_test(iv_len_errors),
        cmocka_unit_test(length_errors),
        cmocka_unit_test(tag_len_errors),
        cmocka_unit_test(null_pointer_errors),
        cmocka_unit_test(null_allowed_when_empty),
        cmocka_unit_test(overlap_errors),
        cmocka_unit_test(auth_failure_zeroes),
        cmocka_unit_test(decrypt_tag_inside_out),
        cmocka_unit_test(unsupported_arch),
        cmocka_unit_test(check_args_documented_order),
        cmocka_unit_test(strerror_texts),
        cmocka_unit_test(version_string),
    };
    return cmocka_run_group_tests_name("api_misuse", tests, setup, teardown) ? 1 : 0;
}
