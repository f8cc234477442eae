/*
 * mbgcm_internal.h — internal interfaces shared by api/, jobs/, mb/ and the tests.
 *
 * Nothing here is exported from the shared library (it is built with hidden visibility and a
 * version script that exports only mbgcm_*). Internal symbols use the prefix mbgcmi_.
 * Tests link the static library and use this header to force arches, inject J0 and check the
 * key layout.
 */
#ifndef MBGCM_INTERNAL_H
#define MBGCM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mbgcm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Expanded key layout (overlays struct mbgcm_key; offsets are mirrored in asm/include/key.inc
 * and checked by test/test_layout.c).
 *
 * GHASH representation ("V form"): a 16-byte GCM block b[0..15] is read as the 128-bit
 * big-endian integer V = b[0]<<120 | ... | b[15]; V is stored as two little-endian qwords
 * {lo, hi} (so an xmm load after a byte reversal, or a plain load of the stored value, gives V).
 * Bit j of V is the coefficient of x^(127-j) of the GCM field element. Hash-key powers are
 * stored pre-multiplied for Montgomery reduction: hpow holds V(H^k) * y mod P', where
 * y = x^-1 in GCM's field (see mb/ghash_ct.c for the derivation), so that one Montgomery
 * product mont(V(a), hpow[H^k]) = V(a * H^k).
 * ------------------------------------------------------------------------------------------- */
#define MBGCMI_MAX_ROUNDS   14
#define MBGCMI_NPOWERS      32
#define MBGCMI_KEY_MAGIC    0x6b67626du /* "mbgk": set by key_init, cleared by key_wipe */

struct mbgcmi_key {
    uint8_t  rk[MBGCMI_MAX_ROUNDS + 1][16]; /*    0: encryption round keys rk[0..rounds]    */
    uint32_t rounds;                        /*  240: 10, 12 or 14                           */
    uint32_t key_len;                       /*  244: 16, 24 or 32                           */
    uint32_t magic;                         /*  248: MBGCMI_KEY_MAGIC when initialised      */
    uint32_t reserved0;                     /*  252                                         */
    /* 256: hpow[i] = H^(32-i) in Montgomery V form, {lo, hi}: highest power first, so a
       64-byte load at H^4 gives [H^4, H^3, H^2, H^1] (lane 0 = H^4). */
    uint64_t hpow[MBGCMI_NPOWERS][2];
    /* 768: hkar[i] = {k, k} with k = lo ^ hi of hpow[i] (Karatsuba middle operand). */
    uint64_t hkar[MBGCMI_NPOWERS][2];
    uint8_t  reserved[256];                 /* 1280..1535: room for later layouts           */
};

#define MBGCMI_OFF_RK      0
#define MBGCMI_OFF_ROUNDS  240
#define MBGCMI_OFF_HPOW    256
#define MBGCMI_OFF_HKAR    768
/* index into hpow/hkar of H^k, 1 <= k <= 32 */
#define MBGCMI_HIDX(k)     (MBGCMI_NPOWERS - (k))

_Static_assert(sizeof(struct mbgcmi_key) == MBGCM_KEY_SIZE, "key layout size");
_Static_assert(offsetof(struct mbgcmi_key, rounds) == MBGCMI_OFF_ROUNDS, "rounds offset");
_Static_assert(offsetof(struct mbgcmi_key, hpow) == MBGCMI_OFF_HPOW, "hpow offset");
_Static_assert(offsetof(struct mbgcmi_key, hkar) == MBGCMI_OFF_HKAR, "hkar offset");

/* The library is compiled with -fno-strict-aliasing, so this overlay is well defined. */
static inline const struct mbgcmi_key *mbgcmi_key_c(const mbgcm_key *k)
{
    return (const struct mbgcmi_key *)(const void *)k;
}
static inline struct mbgcmi_key *mbgcmi_key_w(mbgcm_key *k)
{
    return (struct mbgcmi_key *)(void *)k;
}
/* A key is usable when key_init set the magic and a valid round count (public values). */
static inline int mbgcmi_key_ok(const mbgcm_key *k)
{
    const struct mbgcmi_key *ik = mbgcmi_key_c(k);
    return ik->magic == MBGCMI_KEY_MAGIC &&
           (ik->rounds == 10 || ik->rounds == 12 || ik->rounds == 14);
}

/* ---------------------------------------------------------------------------------------------
 * Limits (SP 800-38D). All checks happen in api/ before memory is touched.
 * ------------------------------------------------------------------------------------------- */
#define MBGCMI_MAX_IV_LEN   ((UINT64_C(1) << 61) - 1)
#define MBGCMI_MAX_AAD_LEN  ((UINT64_C(1) << 61) - 1)
#define MBGCMI_MAX_TEXT_LEN ((UINT64_C(1) << 36) - 32)

static inline int mbgcmi_tag_len_ok(size_t t)
{
    return t == 4 || t == 8 || (t >= 12 && t <= 16);
}

/* ---------------------------------------------------------------------------------------------
 * Utilities (mb/util.c)
 * ------------------------------------------------------------------------------------------- */
/* Zero |n| bytes at |p| with a store the compiler may not remove. */
void mbgcmi_wipe(void *p, size_t n);
/* Zero MBGCMI_BURN_STACK bytes of stack right below the caller's frame, where the functions it
   called had theirs: the portable C paths call it after a step, because the compiler may keep
   key stream or hash-key values in spill slots that no named buffer covers (found by
   test/test_zeroize.c's stack scan; the asm kernels clear their own frames). */
#define MBGCMI_BURN_STACK 4096
void mbgcmi_burn_stack(void);
/* Constant-time equality of |n| bytes: 1 if equal, 0 otherwise; no data-dependent branch.
   The result is public (declassified). */
int mbgcmi_ct_equal(const void *a, const void *b, size_t n);
/* 1 if [a, a+alen) and [b, b+blen) share a byte; both non-empty. Written with
   subtractions so that no end pointer can wrap. */
static inline int mbgcmi_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa <= pb ? pb - pa < alen : pa - pb < blen;
}

/* Every allocation the library makes goes through these (mb/util.c): 64-byte aligned;
   mbgcmi_free takes the size, and callers wipe secrets before freeing. Tests install hooks to
   inject allocation failures and to check that memory is wiped before it is released. */
void *mbgcmi_alloc(size_t size);
void mbgcmi_free(void *p, size_t size);
typedef void *(*mbgcmi_alloc_fn)(size_t size);
typedef void (*mbgcmi_free_fn)(void *p, size_t size);
/* Test hook: NULL restores the defaults (aligned_alloc(64, ...) / free). */
void mbgcmi_set_alloc_hooks(mbgcmi_alloc_fn a, mbgcmi_free_fn f);

/* Constant-time checking (ctgrind, issue "Hardening"): with MBGCM_CTGRIND defined, secret
   inputs are marked undefined for valgrind memcheck and every value computed from them stays
   undefined; MBGCMI_DECLASSIFY marks a value defined again where it becomes public on purpose
   (a tag comparison result, whether a key changed). A no-op in normal builds. */
#if defined(MBGCM_CTGRIND)
#include <valgrind/memcheck.h>
#define MBGCMI_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define MBGCMI_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

/* GCM length block [bitlen(A)]_64 || [bitlen(C)]_64 in byte order. Returns 0, or -1 when a
   length exceeds its limit (the caller validated them; the check makes overflow impossible). */
int mbgcmi_len_block(uint64_t aad_len, uint64_t text_len, uint8_t blk[16]);

static inline uint64_t mbgcmi_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v); /* little-endian targets only (checked in CMake) */
}
static inline void mbgcmi_store_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
static inline uint64_t mbgcmi_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* x86-64 and every supported target are little-endian (checked in CMake) */
}
static inline void mbgcmi_store_le64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
/* GCM's inc32: add 1 to the last 4 bytes (big-endian) mod 2^32; the first 12 never change. */
static inline void mbgcmi_inc32(uint8_t ctr[16])
{
    uint32_t c;
    memcpy(&c, ctr + 12, 4);
    c = __builtin_bswap32(__builtin_bswap32(c) + 1u);
    memcpy(ctr + 12, &c, 4);
}

/* ---------------------------------------------------------------------------------------------
 * Portable constant-time primitives (mb/aes_ct.c, mb/ghash_ct.c)
 * ------------------------------------------------------------------------------------------- */
/* FIPS-197 key expansion; SubWord through the bitsliced S-box. */
void mbgcmi_aes_ct_expand(const uint8_t *raw, size_t key_len, uint8_t rk[][16]);
/* Encrypt four blocks, block b with its own key schedule: round key r of block b at
   rk[b] + r * stride (stride 16 for a key's rk[], 64 for a lane group's four-lane table), and
   rounds[b] rounds (keys and round counts may differ between blocks). */
void mbgcmi_aes_ct_encrypt4(const uint8_t *const rk[4], size_t stride,
                            const unsigned rounds[4], const uint8_t in[64], uint8_t out[64]);
/* AES S-box applied to 64 bytes in place (bitsliced; exposed for tests). */
void mbgcmi_aes_ct_sbox64(uint8_t b[64]);

/* Montgomery product in V form: r = a * b * y^-128 mod P' (see mb/ghash_ct.c). */
void mbgcmi_gf128_mont(uint64_t r[2], const uint64_t a[2], const uint64_t b[2]);
/* GHASH |nblocks| full blocks into |s| (V form) with the key's powers, portable C. */
void mbgcmi_ghash_ct(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                     size_t nblocks);
/* Same with the powers read from a table: H^k at h1 + (k-1)*stride and its Karatsuba operand
   at k1 + (k-1)*stride, for k = 1..8 (a key: stride -16; a lane group: stride 64). */
void mbgcmi_ghash_ct_tab(uint64_t s[2], const uint8_t *in, size_t nblocks, const uint8_t *h1,
                         const uint8_t *k1, ptrdiff_t stride);
/* V form of a 16-byte block, and back. */
void mbgcmi_block_to_v(const uint8_t b[16], uint64_t v[2]);
void mbgcmi_v_to_block(const uint64_t v[2], uint8_t b[16]);
/* Montgomery-form hash key V(H) * y mod P' from H = E_K(0^128) (bytes). */
void mbgcmi_hkey_from_h(const uint8_t h[16], uint64_t p[2]);
/* Fill hpow[H^2..H^32] and hkar[] of |k| from hpow[H^1] (already set). Portable C. */
void mbgcmi_hpowers_ct(struct mbgcmi_key *k);

/* Key setup with the primitives of |arch| (AES-NI/PCLMULQDQ when arch >= aesni and the CPU
   has them, portable C otherwise); every arch produces the same bytes. Arguments validated by
   the caller. mbgcm_key_init uses the best arch. */
void mbgcmi_key_expand(mbgcm_key *key, const uint8_t *raw, size_t raw_len, int arch);

/* ---------------------------------------------------------------------------------------------
 * CPU features and arch dispatch (mb/cpu.c, mb/dispatch.c)
 * ------------------------------------------------------------------------------------------- */
enum mbgcmi_arch {
    MBGCMI_ARCH_GENERIC = 0,
    MBGCMI_ARCH_AESNI = 1,
    MBGCMI_ARCH_AVX2 = 2,
    MBGCMI_ARCH_AVX512 = 3,
    MBGCMI_ARCH_COUNT = 4,
    MBGCMI_ARCH_NONE = -1 /* unknown name or unsupported here */
};

/* Feature bits, each set only when both the CPU reports it and (for AVX state) the OS
   enabled the register state in XCR0. */
#define MBGCMI_F_SSSE3      (1u << 0)
#define MBGCMI_F_SSE41      (1u << 1)
#define MBGCMI_F_AESNI      (1u << 2)
#define MBGCMI_F_PCLMUL     (1u << 3)
#define MBGCMI_F_AVX        (1u << 4)  /* CPUID.1:ECX.AVX and XCR0 & 0x6 == 0x6 */
#define MBGCMI_F_AVX2       (1u << 5)
#define MBGCMI_F_VAES       (1u << 6)
#define MBGCMI_F_VPCLMUL    (1u << 7)
#define MBGCMI_F_AVX512F    (1u << 8)  /* and XCR0 & 0xE6 == 0xE6 */
#define MBGCMI_F_AVX512BW   (1u << 9)
#define MBGCMI_F_AVX512VL   (1u << 10)
#define MBGCMI_F_BMI2       (1u << 11)
#define MBGCMI_F_BMI1       (1u << 12)

/* Features the running CPU and OS support (probed once; masked by the test hook). */
unsigned mbgcmi_cpu_features(void);
/* Test hook: pretend the CPU lacks every feature not in |mask| (call before anything else). */
void mbgcmi_cpu_features_mask(unsigned mask);
/* Features an arch requires. */
unsigned mbgcmi_arch_requires(int arch);
int mbgcmi_arch_supported(int arch);
/* Best supported arch (never MBGCMI_ARCH_NONE: generic is always supported). */
int mbgcmi_arch_best(void);
/* "generic", "aesni", "avx2", "avx512"; "auto" and NULL give the best arch; anything else,
   the empty string included, is unknown.
   Returns MBGCMI_ARCH_NONE for unknown names. Does not check support. */
int mbgcmi_arch_parse(const char *name);
const char *mbgcmi_arch_name(int arch);
/* Arch used by the one-shot API: MBGCM_ARCH read once, or auto. MBGCMI_ARCH_NONE when the
   variable names an unknown or unsupported arch. */
int mbgcmi_oneshot_arch(void);
/* Test hook: force the one-shot arch (MBGCMI_ARCH_NONE to simulate an unsupported one). */
void mbgcmi_set_oneshot_arch(int arch);

/* ---------------------------------------------------------------------------------------------
 * Single-message GCM (mb/gcm_single.c): one driver, one small op table per arch.
 * ------------------------------------------------------------------------------------------- */
struct mbgcmi_gcm_ops {
    /* out = E_K(in), one block */
    void (*block)(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);
    /* s = GHASH update of s (V form) over |nblocks| full blocks */
    void (*ghash)(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                  size_t nblocks);
    /* CTR over |nblocks| full blocks starting at counter block |ctr| (advanced by inc32 per
       block, left at the next unused value), GHASH of the ciphertext into |s|: for _enc the
       ciphertext is |out|, for _dec it is |in|. in == out allowed. */
    void (*ctr_enc)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                    const uint8_t *in, uint8_t *out, size_t nblocks);
    void (*ctr_dec)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                    const uint8_t *in, uint8_t *out, size_t nblocks);
    /* Optional: the whole message in one call given J0 (AAD, message, partial blocks, length
       block), writing the full 16-byte tag. NULL: the driver composes the four above. */
    void (*whole)(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                  size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16],
                  int decrypt);
    /* Optional: the whole one-shot operation for a 12-byte IV, tag included: encrypt writes
       tag_len bytes; decrypt reads tag_len bytes first and returns 1 when they do not match
       (the caller zeroes out). tag_len_dec = tag_len | decrypt << 8. */
    int (*whole12)(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                   size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
                   size_t tag_len_dec);
    /* Optional: n (1..MBGCMI_JOBS12_MAX) validated linear jobs with 12-byte IVs in one call,
       software-pipelined (a job's final GHASH rides in the next job's first AES pass).
       Returns the mask of decrypt jobs whose tag failed (the caller zeroes their dst). Jobs
       in one call must not write into each other's buffers. */
    uint64_t (*jobs12)(mbgcm_job *const *jobs, size_t n);
};
#define MBGCMI_JOBS12_MAX 64u

extern const struct mbgcmi_gcm_ops mbgcmi_gcm_ops_generic;
#if defined(MBGCM_HAVE_NASM)
extern const struct mbgcmi_gcm_ops mbgcmi_gcm_ops_aesni;
extern const struct mbgcmi_gcm_ops mbgcmi_gcm_ops_avx2;
extern const struct mbgcmi_gcm_ops mbgcmi_gcm_ops_vaes512;
#endif
/* Op table of the single-message kernels an arch uses (never NULL for a valid arch). */
const struct mbgcmi_gcm_ops *mbgcmi_gcm_ops_for(int arch);

/* J0 from the IV (12 bytes: IV || 0^31 || 1; else GHASH(IV padded || 0^64 || [ivbits]_64)). */
void mbgcmi_gcm_j0(const struct mbgcmi_gcm_ops *ops, const struct mbgcmi_key *k,
                   const uint8_t *iv, size_t iv_len, uint8_t j0[16]);
/* Full GCM given J0 (test hook for counter wrap, and the one-shot core): writes |len| bytes
   of output and the full 16-byte tag T = E_K(J0) ^ GHASH. |decrypt| selects which side is
   hashed. Arguments must already be validated. */
void mbgcmi_gcm_crypt_j0(const struct mbgcmi_gcm_ops *ops, const struct mbgcmi_key *k,
                         const uint8_t j0[16], const uint8_t *aad, size_t aad_len,
                         const uint8_t *in, size_t len, uint8_t *out, int decrypt,
                         uint8_t tag[16]);

/* Continue a message from mid-way: E_K(J0) known, GHASH state |s| (V form) and the next
   counter |ctr| as left by earlier blocks, |aad_left| AAD bytes and |text_left| message bytes
   to go (AAD first), and the message's length block. Writes the output and the full tag.
   mbgcmi_gcm_crypt_j0 is the special case of a fresh start; the manager uses it to finish a
   lone lane single-stream. |s| and |ctr| are updated. */
void mbgcmi_gcm_resume(const struct mbgcmi_gcm_ops *ops, const struct mbgcmi_key *k,
                       const uint8_t ek0[16], uint64_t s[2], uint8_t ctr[16],
                       const uint8_t *aad, size_t aad_left, const uint8_t *in, uint8_t *out,
                       size_t text_left, const uint8_t lenblk[16], int decrypt,
                       uint8_t tag[16]);

/* Whole one-shot operation on validated arguments: J0, GCM, then the tag written (encrypt)
   or compared in constant time with |out| zeroed on mismatch (decrypt). Returns MBGCM_OK or
   MBGCM_ERR_AUTH. */
int mbgcmi_gcm_oneshot(const struct mbgcmi_gcm_ops *ops, const struct mbgcmi_key *k,
                       const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                       const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
                       size_t tag_len, int decrypt);

/* n (1..MBGCMI_JOBS12_MAX) validated linear jobs with 12-byte IVs through ops->jobs12 (which
   must be set): statuses set, dst of failed decrypt jobs zeroed. Returns how many failed. */
unsigned mbgcmi_gcm_jobs12(const struct mbgcmi_gcm_ops *ops, mbgcm_job *const *jobs, unsigned n);

/* A message in pieces (mb/gcm_stream.c): init hashes the AAD; update takes pieces of any
   length (in == out allowed); tag pads the last partial block, adds the length block, writes
   the full tag and wipes the state. The caller checks lengths (total <= 2^36-32). */
struct mbgcmi_stream {
    const struct mbgcmi_key *key;
    const struct mbgcmi_gcm_ops *ops;
    uint64_t s[2];       /* GHASH state, V form */
    uint8_t ek0[16];     /* E_K(J0) */
    uint8_t ctr[16];     /* counter of the next block to encrypt */
    uint8_t ks[16];      /* key stream of the partial block in progress */
    uint8_t cbuf[16];    /* its ciphertext bytes so far, zero past |used| */
    uint64_t aad_len;
    uint64_t len;        /* message bytes so far */
    uint32_t used;       /* bytes of the partial block consumed, 0..15 */
    int decrypt;
};
void mbgcmi_stream_init(struct mbgcmi_stream *c, const struct mbgcmi_gcm_ops *ops,
                        const struct mbgcmi_key *k, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, int decrypt);
void mbgcmi_stream_update(struct mbgcmi_stream *c, const uint8_t *in, size_t len,
                          uint8_t *out);
void mbgcmi_stream_tag(struct mbgcmi_stream *c, uint8_t t[16]);

/* Argument checks shared by the one-shot calls and the job manager (jobs/validate.c), in
   the documented order: key, IV length, AAD/message length, tag length, NULL pointers,
   overlap. Returns MBGCM_OK or the error. */
int mbgcmi_check_args(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                      size_t aad_len, const void *in, size_t len, const void *out,
                      const void *tag, size_t tag_len);

#if defined(MBGCM_HAVE_NASM)
/* ---------------------------------------------------------------------------------------------
 * NASM entry points (contracts repeated from the .asm files)
 * ------------------------------------------------------------------------------------------- */
/* asm/cpu_x86.asm: CPUID leaf/subleaf into out[4] = {eax, ebx, ecx, edx}. */
void mbgcmi_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
/* asm/cpu_x86.asm: XGETBV(index); only call when CPUID.1:ECX.OSXSAVE is set. */
uint64_t mbgcmi_xgetbv(uint32_t index);

/* asm/aes_keyexp_aesni.asm: FIPS-197 key expansion with AESKEYGENASSIST; writes rk[0..Nr].
   Requires AES-NI + SSE4.1. */
void mbgcmi_aesni_expand128(const uint8_t *raw, uint8_t rk[][16]);
void mbgcmi_aesni_expand192(const uint8_t *raw, uint8_t rk[][16]);
void mbgcmi_aesni_expand256(const uint8_t *raw, uint8_t rk[][16]);

/* asm/gcm_aesni.asm: AES-NI + PCLMULQDQ single-stream kernels (SSE encoding, by-8, GHASH
   stitched into the AES rounds; whole-message call mbgcmi_aesni_gcm). */
void mbgcmi_aesni_block(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);
void mbgcmi_aesni_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                        size_t nblocks);
void mbgcmi_aesni_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                          const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_aesni_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                          const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_aesni_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                      size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                      uint8_t tag[16], int decrypt);
/* asm/gcm_aesni.asm: fill hpow[]/hkar[] from hpow[H^1] (already set), with PCLMULQDQ. */
void mbgcmi_pclmul_hpowers(struct mbgcmi_key *k);

/* asm/gcm_by16_avx2.asm: single-stream VAES/VPCLMULQDQ ymm kernels (AVX2, no AVX-512), 16
   blocks per iteration, partial blocks bounced through the stack (same contracts as the
   struct mbgcmi_gcm_ops members). */
void mbgcmi_avx2_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                       size_t nblocks);
void mbgcmi_avx2_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx2_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx2_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                     uint8_t tag[16], int decrypt);

/* asm/gcm_by16_avx512.asm: single-stream VAES/VPCLMULQDQ zmm kernels, 16 blocks per
   iteration (same contracts as the struct mbgcmi_gcm_ops members). */
void mbgcmi_vaes_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                       size_t nblocks);
void mbgcmi_vaes_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_vaes_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_vaes_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                     uint8_t tag[16], int decrypt);
uint64_t mbgcmi_vaes_gcm12_jobs(mbgcm_job *const *jobs, size_t n);
int mbgcmi_vaes_gcm12(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                      size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
                      size_t tag_len_dec);
#endif

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_INTERNAL_H */
