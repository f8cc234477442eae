/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm-rates.c — this CPU's instruction rates for AES-GCM, and the port floor they imply.
 *
 * Prints, in core cycles:
 *   - the CPU (CPUID vendor, family/model/stepping, brand string, GCM-relevant features with
 *     the OS's register-state support from XGETBV) and the core clock;
 *   - throughput (instructions per cycle over 12 independent chains) and latency (cycles per
 *     instruction of one dependent chain) of AES rounds and carry-less multiplies at every
 *     width, and of the zmm helpers a GCM kernel uses;
 *   - interleaved mixes (AES with CLMUL at several ratios, AES and CLMUL with shuffles and
 *     three-way xors): the cycles of the mix against the sum of its parts' own costs;
 *   - the port floor (floor.h) per message size for AES-128 and AES-256, with the AES/CLMUL
 *     overlap measured at each shape's own ratio of the two;
 *   - mbgcm's one-shot calls at the same sizes in core cycles, against that floor (--no-kernel
 *     leaves them out).
 *
 * Cycles: each sample times a loop in thread CPU time between two runs of a dependent add
 * chain (one core cycle per add), each as long as the loop and timed the same way; their mean
 * rate is the core clock of that sample, so clock changes between samples cancel. The figure
 * is the median of many short samples, with their quartiles. The TSC is not used (it ticks at
 * a fixed rate).
 *
 * Rows whose instructions this CPU or OS lacks are skipped (CPUID + XGETBV), so the program
 * never executes an unsupported instruction. Exit status 77 when even AES-NI and PCLMULQDQ
 * are missing (nothing to measure).
 */
#define _GNU_SOURCE
#define BENCH_PROG "mbgcm-rates"
#include <cpuid.h>
#include <getopt.h>
#include <math.h>

#include "../bench_util.h"
#include "floor.h"
#include "mbgcm.h"

/* ---- the loops (rates_x86.asm) --------------------------------------------------------- */
typedef void (*loop_fn)(uint64_t iters, void *buf);

struct mix_desc {
    uint32_t reps;
    char pattern[];
};

extern const uint32_t mbr_body_len, mbr_tput_chains;

#define LOOP_PAIR(n) void mbr_##n##_t(uint64_t, void *); void mbr_##n##_l(uint64_t, void *);
LOOP_PAIR(aesenc_sse) LOOP_PAIR(aesenclast_sse) LOOP_PAIR(vaesenc_x) LOOP_PAIR(vaesenclast_x)
LOOP_PAIR(vaesenc_y) LOOP_PAIR(vaesenclast_y) LOOP_PAIR(vaesenc_z) LOOP_PAIR(vaesenclast_z)
LOOP_PAIR(pclmul_sse_00)
LOOP_PAIR(vpclmul_x_00) LOOP_PAIR(vpclmul_x_11) LOOP_PAIR(vpclmul_x_01)
LOOP_PAIR(vpclmul_y_00) LOOP_PAIR(vpclmul_y_11) LOOP_PAIR(vpclmul_y_01)
LOOP_PAIR(vpclmul_z_00) LOOP_PAIR(vpclmul_z_11) LOOP_PAIR(vpclmul_z_01)
LOOP_PAIR(vpxord) LOOP_PAIR(vpternlogd) LOOP_PAIR(vpshufb) LOOP_PAIR(vshufi64x2)
LOOP_PAIR(vpalignr) LOOP_PAIR(vinserti32x4_r) LOOP_PAIR(vinserti32x4_m) LOOP_PAIR(vpshufd)
#undef LOOP_PAIR
void mbr_vbroadcasti32x4_t(uint64_t, void *);
void mbr_growm_t(uint64_t, void *);
void mbr_growh_t(uint64_t, void *);
void mbr_vmovdqu8_kz_t(uint64_t, void *);
void mbr_vmovdqu64_ld_t(uint64_t, void *);
void mbr_vmovdqu64_st_t(uint64_t, void *);
void mbr_vmovdqu8_kst_x_t(uint64_t, void *);
void mbr_vmovdqu8_kst_y_t(uint64_t, void *);
void mbr_vmovdqu8_kst_z_t(uint64_t, void *);
void mbr_ref_add(uint64_t, void *);
void mbr_ref_add_zmm(uint64_t, void *);
#define MIX_DECL(n) void mbr_mix_##n(uint64_t, void *); extern const struct mix_desc mbr_mix_##n##_desc;
MIX_DECL(ac11) MIX_DECL(ac21) MIX_DECL(ac41) MIX_DECL(ac72) MIX_DECL(ast) MIX_DECL(axt)
MIX_DECL(cst) MIX_DECL(aak) MIX_DECL(aap) MIX_DECL(aab) MIX_DECL(aal) MIX_DECL(aam)
MIX_DECL(aah) MIX_DECL(g128) MIX_DECL(g256) MIX_DECL(aat) MIX_DECL(aas) MIX_DECL(aaw)
MIX_DECL(aax) MIX_DECL(g128t)
#undef MIX_DECL

/* ---- CPU identification ---------------------------------------------------------------- */
enum {
    F_AES = 1u << 0,
    F_PCLMUL = 1u << 1,
    F_AVX = 1u << 2,      /* with OS support for ymm state */
    F_AVX2 = 1u << 3,
    F_VAES = 1u << 4,
    F_VPCLMUL = 1u << 5,
    F_AVX512F = 1u << 6,  /* with OS support for opmask and zmm state */
    F_AVX512BW = 1u << 7,
    F_AVX512VL = 1u << 8,
    F_GFNI = 1u << 9,
};

struct cpu {
    char vendor[13], brand[49], hv_vendor[13];
    unsigned family, model, stepping;
    unsigned feat;
    int hypervisor, os_ymm, os_zmm;
    uint64_t xcr0;
};

static void cpu_identify(struct cpu *c)
{
    unsigned a, b, cx, d;
    memset(c, 0, sizeof *c);
    const unsigned max = __get_cpuid_max(0, NULL);
    __cpuid(0, a, b, cx, d);
    memcpy(c->vendor, &b, 4);
    memcpy(c->vendor + 4, &d, 4);
    memcpy(c->vendor + 8, &cx, 4);

    unsigned ecx1 = 0, ebx7 = 0, ecx7 = 0;
    if (max >= 1) {
        __cpuid(1, a, b, cx, d);
        ecx1 = cx;
        const unsigned base_fam = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
        c->stepping = a & 0xf;
        c->family = base_fam == 0xf ? base_fam + ((a >> 20) & 0xff) : base_fam;
        c->model = (base_fam == 0x6 || base_fam == 0xf) ? base_model | (((a >> 16) & 0xf) << 4)
                                                         : base_model;
        c->hypervisor = (cx >> 31) & 1;
    }
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, cx, d);
        ebx7 = b;
        ecx7 = cx;
    }
    if ((ecx1 >> 27) & 1) { /* OSXSAVE: XGETBV is available */
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        c->xcr0 = ((uint64_t)hi << 32) | lo;
    }
    c->os_ymm = (c->xcr0 & 0x6) == 0x6;             /* SSE + AVX state */
    c->os_zmm = c->os_ymm && (c->xcr0 & 0xe0) == 0xe0; /* opmask, ZMM_Hi256, Hi16_ZMM */

    if ((ecx1 >> 25) & 1) c->feat |= F_AES;
    if ((ecx1 >> 1) & 1) c->feat |= F_PCLMUL;
    if (((ecx1 >> 28) & 1) && c->os_ymm) c->feat |= F_AVX;
    if (c->feat & F_AVX) {
        if ((ebx7 >> 5) & 1) c->feat |= F_AVX2;
        if ((ecx7 >> 9) & 1) c->feat |= F_VAES;
        if ((ecx7 >> 10) & 1) c->feat |= F_VPCLMUL;
        if (((ebx7 >> 16) & 1) && c->os_zmm) {
            c->feat |= F_AVX512F;
            if ((ebx7 >> 30) & 1) c->feat |= F_AVX512BW;
            if ((ebx7 >> 31) & 1) c->feat |= F_AVX512VL;
        }
    }
    if ((ecx7 >> 8) & 1) c->feat |= F_GFNI;

    if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
        unsigned *w = (unsigned *)(void *)c->brand;
        for (unsigned i = 0; i < 3; i++) {
            __cpuid(0x80000002 + i, w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
        }
        c->brand[48] = '\0';
        /* brand strings are often padded with leading blanks */
        const char *p = c->brand;
        while (*p == ' ') p++;
        memmove(c->brand, p, strlen(p) + 1);
        for (size_t n = strlen(c->brand); n > 0 && c->brand[n - 1] == ' '; n--) c->brand[n - 1] = '\0';
    } else {
        snprintf(c->brand, sizeof c->brand, "(no brand string)");
    }
    if (c->hypervisor) {
        __cpuid(0x40000000, a, b, cx, d);
        memcpy(c->hv_vendor, &b, 4);
        memcpy(c->hv_vendor + 4, &cx, 4);
        memcpy(c->hv_vendor + 8, &d, 4);
        for (int i = 0; i < 12; i++) {
            if (c->hv_vendor[i] != '\0' && (c->hv_vendor[i] < 32 || c->hv_vendor[i] > 126)) c->hv_vendor[i] = '?';
        }
        for (size_t n = strlen(c->hv_vendor); n > 0 && c->hv_vendor[n - 1] == ' '; n--) c->hv_vendor[n - 1] = '\0';
    }
}

static void feature_names(unsigned f, char *out, size_t n)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {F_AES, "AES"},         {F_PCLMUL, "PCLMUL"},     {F_AVX, "AVX"},
        {F_AVX2, "AVX2"},       {F_VAES, "VAES"},         {F_VPCLMUL, "VPCLMULQDQ"},
        {F_AVX512F, "AVX512F"}, {F_AVX512BW, "AVX512BW"}, {F_AVX512VL, "AVX512VL"},
        {F_GFNI, "GFNI"},
    };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if ((f & names[i].bit) && used + strlen(names[i].name) + 2 < n) {
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "", names[i].name);
        }
    }
}

/* ---- measurement ----------------------------------------------------------------------- */
struct stat3 {
    double med, q1, q3; /* median and quartiles of the samples */
};

static void *g_buf;
#define MAX_SAMPLES 255
static unsigned g_samples = 17;
static double g_sample_ms = 2.0; /* the timed loop per sample, and each clock reference */
static uint64_t g_ref_iters;
static double g_ghz_seen[8192];
static unsigned g_nghz;

static uint64_t time_loop(loop_fn fn, uint64_t iters)
{
    const uint64_t t0 = cpu_ns();
    fn(iters, g_buf);
    return cpu_ns() - t0;
}

/* Iterations that make |fn| take about |target_ns|: grow until a run takes 0.3 ms, then scale.
   The growing runs also warm the vector units up (some cores run 512-bit work at a reduced
   rate for a while after it starts). */
static uint64_t calibrate(loop_fn fn, double target_ns)
{
    uint64_t it = 8, dt;
    for (;;) {
        dt = time_loop(fn, it);
        if (dt >= 300000 || it >= (1ull << 40)) {
            break;
        }
        it *= 4;
    }
    const double scaled = (double)it * target_ns / (double)(dt ? dt : 1);
    return scaled < 1 ? 1 : (uint64_t)scaled;
}

/* Median and quartiles of v[0..n) (sorts v). */
static struct stat3 quartiles(double *v, unsigned n)
{
    struct stat3 st;
    st.med = median(v, n);
    st.q1 = v[(n - 1) / 4];
    st.q3 = v[n - 1 - (n - 1) / 4];
    return st;
}

/* Core cycles per iteration of |fn| over the samples. A sample times the loop between two
   runs of the clock reference and takes their mean rate as the clock. The references last as
   long as the loop: interrupts (timer ticks, costly in a guest) are charged to the thread's
   CPU time, so a shorter reference would see fewer of them and read a faster clock (5% on a
   KVM/bhyve guest for a reference a quarter as long), and the faster of two runs would favour
   the quiet one (2-4%). Host preemption can still land in any run: the median of many samples. */
static struct stat3 measure(loop_fn fn)
{
    const uint64_t iters = calibrate(fn, g_sample_ms * 1e6);
    double cyc[MAX_SAMPLES];
    const unsigned n = g_samples;
    for (unsigned s = 0; s < n; s++) {
        const uint64_t r1 = time_loop(mbr_ref_add, g_ref_iters);
        const uint64_t t = time_loop(fn, iters);
        const uint64_t r2 = time_loop(mbr_ref_add, g_ref_iters);
        const double ghz = 2.0 * (double)g_ref_iters * mbr_body_len / (double)(r1 + r2);
        if (g_nghz < sizeof g_ghz_seen / sizeof g_ghz_seen[0]) {
            g_ghz_seen[g_nghz++] = ghz;
        }
        cyc[s] = (double)t * ghz / (double)iters;
    }
    return quartiles(cyc, n);
}

/* ---- the rows -------------------------------------------------------------------------- */
enum kind { K_AES, K_CLMUL, K_HELPER };

struct row {
    const char *id;    /* CSV item and mix reference */
    const char *name;
    const char *width; /* xmm ymm zmm */
    const char *enc;   /* SSE VEX EVEX */
    unsigned req;
    enum kind kind;
    double units;      /* blocks or 64x64 products per instruction */
    loop_fn tput, lat; /* lat NULL: loads and stores, throughput only */
    /* results: cycles per instruction */
    int done;
    struct stat3 cpi_t, cpi_l;
};

#define AESX (F_AES)
#define AESV (F_AES | F_AVX)
#define VAESY (F_VAES | F_AVX)
#define VAESZ (F_VAES | F_AVX512F)
#define CLX (F_PCLMUL)
#define CLV (F_PCLMUL | F_AVX)
#define CLY (F_VPCLMUL | F_AVX)
#define CLZ (F_VPCLMUL | F_AVX512F)
#define HZ (F_AVX512F | F_AVX512BW)
#define ROW(i, n, w, e, r, k, u, t, l) \
    {.id = i, .name = n, .width = w, .enc = e, .req = r, .kind = k, .units = u, .tput = t, .lat = l}

static struct row g_rows[] = {
    ROW("aesenc_xmm_sse", "AESENC", "xmm", "SSE", AESX, K_AES, 1, mbr_aesenc_sse_t, mbr_aesenc_sse_l),
    ROW("aesenc_xmm", "VAESENC", "xmm", "VEX", AESV, K_AES, 1, mbr_vaesenc_x_t, mbr_vaesenc_x_l),
    ROW("aesenc_ymm", "VAESENC", "ymm", "VEX", VAESY, K_AES, 2, mbr_vaesenc_y_t, mbr_vaesenc_y_l),
    ROW("aesenc_zmm", "VAESENC", "zmm", "EVEX", VAESZ, K_AES, 4, mbr_vaesenc_z_t, mbr_vaesenc_z_l),
    ROW("aesenclast_xmm_sse", "AESENCLAST", "xmm", "SSE", AESX, K_AES, 1, mbr_aesenclast_sse_t, mbr_aesenclast_sse_l),
    ROW("aesenclast_xmm", "VAESENCLAST", "xmm", "VEX", AESV, K_AES, 1, mbr_vaesenclast_x_t, mbr_vaesenclast_x_l),
    ROW("aesenclast_ymm", "VAESENCLAST", "ymm", "VEX", VAESY, K_AES, 2, mbr_vaesenclast_y_t, mbr_vaesenclast_y_l),
    ROW("aesenclast_zmm", "VAESENCLAST", "zmm", "EVEX", VAESZ, K_AES, 4, mbr_vaesenclast_z_t, mbr_vaesenclast_z_l),
    ROW("clmul00_xmm_sse", "PCLMULQDQ 0x00", "xmm", "SSE", CLX, K_CLMUL, 1, mbr_pclmul_sse_00_t, mbr_pclmul_sse_00_l),
    ROW("clmul00_xmm", "VPCLMULQDQ 0x00", "xmm", "VEX", CLV, K_CLMUL, 1, mbr_vpclmul_x_00_t, mbr_vpclmul_x_00_l),
    ROW("clmul11_xmm", "VPCLMULQDQ 0x11", "xmm", "VEX", CLV, K_CLMUL, 1, mbr_vpclmul_x_11_t, mbr_vpclmul_x_11_l),
    ROW("clmul01_xmm", "VPCLMULQDQ 0x01", "xmm", "VEX", CLV, K_CLMUL, 1, mbr_vpclmul_x_01_t, mbr_vpclmul_x_01_l),
    ROW("clmul00_ymm", "VPCLMULQDQ 0x00", "ymm", "VEX", CLY, K_CLMUL, 2, mbr_vpclmul_y_00_t, mbr_vpclmul_y_00_l),
    ROW("clmul11_ymm", "VPCLMULQDQ 0x11", "ymm", "VEX", CLY, K_CLMUL, 2, mbr_vpclmul_y_11_t, mbr_vpclmul_y_11_l),
    ROW("clmul01_ymm", "VPCLMULQDQ 0x01", "ymm", "VEX", CLY, K_CLMUL, 2, mbr_vpclmul_y_01_t, mbr_vpclmul_y_01_l),
    ROW("clmul00_zmm", "VPCLMULQDQ 0x00", "zmm", "EVEX", CLZ, K_CLMUL, 4, mbr_vpclmul_z_00_t, mbr_vpclmul_z_00_l),
    ROW("clmul11_zmm", "VPCLMULQDQ 0x11", "zmm", "EVEX", CLZ, K_CLMUL, 4, mbr_vpclmul_z_11_t, mbr_vpclmul_z_11_l),
    ROW("clmul01_zmm", "VPCLMULQDQ 0x01", "zmm", "EVEX", CLZ, K_CLMUL, 4, mbr_vpclmul_z_01_t, mbr_vpclmul_z_01_l),
    ROW("vpxord", "VPXORD", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vpxord_t, mbr_vpxord_l),
    ROW("vpternlogd", "VPTERNLOGD", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vpternlogd_t, mbr_vpternlogd_l),
    ROW("vpshufb", "VPSHUFB", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vpshufb_t, mbr_vpshufb_l),
    ROW("vpshufd", "VPSHUFD", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vpshufd_t, mbr_vpshufd_l),
    ROW("vshufi64x2", "VSHUFI64X2", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vshufi64x2_t, mbr_vshufi64x2_l),
    ROW("vpalignr", "VPALIGNR", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vpalignr_t, mbr_vpalignr_l),
    ROW("vinserti32x4_reg", "VINSERTI32X4 reg", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vinserti32x4_r_t, mbr_vinserti32x4_r_l),
    ROW("vinserti32x4_mem", "VINSERTI32X4 mem", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vinserti32x4_m_t, mbr_vinserti32x4_m_l),
    ROW("vbroadcasti32x4_mem", "VBROADCASTI32X4 mem", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vbroadcasti32x4_t, NULL),
    ROW("row4_merged", "4-key row, merged", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_growm_t, NULL),
    ROW("row4_halves", "4-key row, halves", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_growh_t, NULL),
    ROW("vmovdqu8_kz_load", "VMOVDQU8 {k}{z} load", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu8_kz_t, NULL),
    ROW("vmovdqu64_load", "VMOVDQU64 load", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu64_ld_t, NULL),
    ROW("vmovdqu64_store", "VMOVDQU64 store", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu64_st_t, NULL),
    ROW("vmovdqu8_k_store_xmm", "VMOVDQU8 {k} store", "xmm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu8_kst_x_t, NULL),
    ROW("vmovdqu8_k_store_ymm", "VMOVDQU8 {k} store", "ymm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu8_kst_y_t, NULL),
    ROW("vmovdqu8_k_store_zmm", "VMOVDQU8 {k} store", "zmm", "EVEX", HZ, K_HELPER, 0, mbr_vmovdqu8_kst_z_t, NULL),
};
#define NROWS (sizeof g_rows / sizeof g_rows[0])

static struct row *row_by_id(const char *id)
{
    for (size_t i = 0; i < NROWS; i++) {
        if (strcmp(g_rows[i].id, id) == 0) {
            return &g_rows[i];
        }
    }
    return NULL;
}

/* Mix letters and the rows whose throughput prices them alone. */
static const struct {
    char letter;
    const char *row;
} g_letters[] = {
    {'A', "aesenc_zmm"}, {'C', "clmul00_zmm"}, {'S', "vpshufb"}, {'X', "vshufi64x2"}, {'T', "vpternlogd"},
    {'W', "vpshufd"},
    {'K', "vmovdqu8_k_store_zmm"}, {'P', "vmovdqu64_store"}, {'B', "vbroadcasti32x4_mem"},
    {'L', "vmovdqu64_load"}, {'M', "row4_merged"}, {'H', "row4_halves"},
};

struct mix {
    const char *id, *what;
    loop_fn fn;
    const struct mix_desc *desc;
    int done;
    struct stat3 cyc;          /* per pattern group */
    double sum_parts, max_part; /* per group, from the rows' throughput */
    double overlap;            /* (sum - mix) / (sum - max); NAN when undefined */
};

#define M(n, w) {.id = #n, .what = w, .fn = mbr_mix_##n, .desc = &mbr_mix_##n##_desc}
static struct mix g_mixes[] = {
    M(ac11, "VAESENC:VPCLMULQDQ 1:1"),
    M(ac21, "VAESENC:VPCLMULQDQ 2:1"),
    M(ac41, "VAESENC:VPCLMULQDQ 4:1"),
    M(ac72, "VAESENC:VPCLMULQDQ 7:2"),
    M(g128, "VAESENC:VPCLMULQDQ 88:26"),
    M(g256, "VAESENC:VPCLMULQDQ 120:26"),
    M(aat, "VAESENC:VPTERNLOGD 2:1"),
    M(aas, "VAESENC:VPSHUFB 2:1"),
    M(aaw, "VAESENC:VPSHUFD 2:1"),
    M(aax, "VAESENC:VSHUFI64X2 2:1"),
    M(g128t, "VAESENC:VPCLMULQDQ:VPTERNLOGD 88:26:48"),
    M(ast, "VAESENC+VPSHUFB+VPTERNLOGD"),
    M(axt, "VAESENC+VSHUFI64X2+VPTERNLOGD"),
    M(cst, "VPCLMULQDQ+VPSHUFB+VPTERNLOGD"),
    M(aak, "VAESENC:masked zmm store 4:1"),
    M(aap, "VAESENC:plain zmm store 4:1"),
    M(aab, "VAESENC:VBROADCASTI32X4 mem 2:1"),
    M(aal, "VAESENC:zmm load 2:1"),
    M(aam, "VAESENC:4-key row merged 5:1"),
    M(aah, "VAESENC:4-key row halves 5:1"),
};
#undef M
#define NMIXES (sizeof g_mixes / sizeof g_mixes[0])

/* 1 when |m| mixes VAESENC and VPCLMULQDQ only; *ratio = VAESENC per VPCLMULQDQ */
static int ac_ratio(const struct mix *m, double *ratio)
{
    unsigned a = 0, c = 0;
    for (const char *p = m->desc->pattern; *p; p++) {
        if (*p == 'A') {
            a++;
        } else if (*p == 'C') {
            c++;
        } else {
            return 0;
        }
    }
    *ratio = c ? (double)a / c : 0;
    return a && c;
}

/* The AES/CLMUL overlap at |ratio| VAESENC per VPCLMULQDQ: linear between the two measured
   VAESENC:VPCLMULQDQ mixes whose ratios enclose it, the nearest one's outside their range, 1
   when none was measured. How far the two hide behind each other depends on the ratio (on Zen
   5 a 1:1 mix is serial, a kernel's 3-5:1 mostly parallel), so the floor of a message takes
   the overlap at its own ratio of rounds to products, not a mean over the mixes. */
static double overlap_at(double ratio)
{
    double lo_r = -1, lo_o = 1, hi_r = -1, hi_o = 1;
    for (size_t i = 0; i < NMIXES; i++) {
        double r;
        if (!g_mixes[i].done || isnan(g_mixes[i].overlap) || !ac_ratio(&g_mixes[i], &r)) {
            continue;
        }
        if (r <= ratio && (lo_r < 0 || r > lo_r)) {
            lo_r = r;
            lo_o = g_mixes[i].overlap;
        }
        if (r >= ratio && (hi_r < 0 || r < hi_r)) {
            hi_r = r;
            hi_o = g_mixes[i].overlap;
        }
    }
    double o = lo_r < 0   ? hi_o
               : hi_r < 0 ? lo_o
               : hi_r - lo_r > 1e-9 ? lo_o + (hi_o - lo_o) * (ratio - lo_r) / (hi_r - lo_r)
                                    : lo_o;
    return o < 0 ? 0 : o > 1 ? 1 : o;
}

/* The floor of |sh| with the overlap at its own AES:CLMUL ratio (rates' overlap ignored). */
static int floor_at(const gcm_floor_rates *rates, const gcm_floor_shape *sh, gcm_floor *f,
                    double *overlap)
{
    gcm_floor_rates r = *rates;
    r.overlap = 1;
    if (gcm_floor_compute(&r, sh, f) != 0) {
        return -1;
    }
    r.overlap = overlap_at(f->clmul_ops ? (double)f->aes_ops / (double)f->clmul_ops : 0);
    *overlap = r.overlap;
    return gcm_floor_compute(&r, sh, f);
}

/* ---- output helpers -------------------------------------------------------------------- */
static FILE *g_csv;

static void csv_num(const char *section, const char *item, const char *metric, double v,
                    const struct stat3 *range)
{
    if (g_csv == NULL) {
        return;
    }
    fprintf(g_csv, "%s,%s,%s,%.6g,", section, item, metric, v);
    if (range != NULL) {
        fprintf(g_csv, "%.6g,%.6g\n", range->q1, range->q3);
    } else {
        fputs(",\n", g_csv);
    }
}

static void csv_str(const char *section, const char *item, const char *metric, const char *v)
{
    if (g_csv == NULL) {
        return;
    }
    /* values are CPU strings: keep the file one field per comma */
    fprintf(g_csv, "%s,%s,%s,", section, item, metric);
    for (const char *p = v; *p; p++) {
        fputc(*p == ',' || *p == '\n' || *p == '"' ? ' ' : *p, g_csv);
    }
    fputs(",,\n", g_csv);
}

/* instructions per cycle from cycles per instruction (the range flips) */
static struct stat3 inverse(struct stat3 c)
{
    struct stat3 r = {1.0 / c.med, 1.0 / c.q3, 1.0 / c.q1};
    return r;
}

static struct stat3 scaled(struct stat3 c, double k)
{
    struct stat3 r = {c.med * k, c.q1 * k, c.q3 * k};
    return r;
}

static const char *skip_reason(unsigned req, unsigned have, char *buf, size_t n)
{
    feature_names(req & ~have, buf, n);
    return buf;
}

/* The 1-minute load average, or -1: other work on the machine is the main source of noise. */
static double loadavg(void)
{
    double v = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &v) != 1) {
            v = -1;
        }
        fclose(f);
    }
    return v;
}

/* ---- mbgcm's one-shot calls against the floor ------------------------------------------- */
static const unsigned g_floor_sizes[] = {16, 64, 256, 512, 1024, 1420, 4096, 16384};
#define NFLOOR_SIZES (sizeof g_floor_sizes / sizeof g_floor_sizes[0])
static const unsigned g_key_bits[2] = {128, 256}; /* the key sizes of the floor and the calls */
static double g_kfloor[2][NFLOOR_SIZES]; /* the Karatsuba floor of AES-128, AES-256, cycles */

/* Calls rotate over KSLOTS keys and message slots, as mbgcm-bench's default (64 keys): the
   keys' tables (1.5 KB each) and the slots stay in L2, as a gateway's recent SAs would. */
#define KSLOTS 64
#define KMAXLEN 16384
static struct {
    mbgcm_key *keys;
    uint8_t *pt, *ct, *out, *tag, *tag_out; /* KSLOTS slots each, stride apart (tags 16) */
    size_t len, stride;
    int dec;
} g_k;
static const uint8_t g_kiv[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                  0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
static const uint8_t g_kaad[16] = {0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
                                   1,    2,    3,    4,    5,    6,    7,    8};

/* |iters| one-shot calls of the length and direction in g_k, slot after slot */
static void kernel_loop(uint64_t iters, void *buf)
{
    (void)buf;
    unsigned s = 0;
    for (uint64_t i = 0; i < iters; i++) {
        const size_t off = s * g_k.stride;
        const int rc =
            g_k.dec ? mbgcm_decrypt(&g_k.keys[s], g_kiv, 12, g_kaad, 16, g_k.ct + off, g_k.len,
                                    g_k.out + off, g_k.tag + 16 * s, 16)
                    : mbgcm_encrypt(&g_k.keys[s], g_kiv, 12, g_kaad, 16, g_k.pt + off, g_k.len,
                                    g_k.out + off, g_k.tag_out + 16 * s, 16);
        if (rc != MBGCM_OK) {
            die("mbgcm_%s failed (%d)", g_k.dec ? "decrypt" : "encrypt", rc);
        }
        s = s + 1 == KSLOTS ? 0 : s + 1;
    }
}

static struct mix *mix_by_id(const char *id)
{
    for (size_t i = 0; i < NMIXES; i++) {
        if (strcmp(g_mixes[i].id, id) == 0) {
            return &g_mixes[i];
        }
    }
    return NULL;
}

/* Times mbgcm_encrypt / mbgcm_decrypt at the floor's sizes and prints them beside the
   Karatsuba floor (g_kfloor), then the single-stream kernel's steady state: the cycles one
   more 32-block group adds between 4096 and 16384 bytes, against the 88:26 / 120:26 mix (the
   group's rounds and products alone). Returns 1 when a figure is implausible (--check): a
   call below half its floor means the floor model or the timing is broken. */
static int kernel_section(double ghz)
{
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    char arch[32];
    snprintf(arch, sizeof arch, "%s", m != NULL ? mbgcm_mgr_arch(m) : "?");
    mbgcm_mgr_free(m);
    g_k.stride = KMAXLEN + 64;
    g_k.keys = xaligned(64, KSLOTS * sizeof(mbgcm_key));
    g_k.pt = xaligned(64, KSLOTS * g_k.stride);
    g_k.ct = xaligned(64, KSLOTS * g_k.stride);
    g_k.out = xaligned(64, KSLOTS * g_k.stride);
    g_k.tag = xaligned(64, KSLOTS * 16);
    g_k.tag_out = xaligned(64, KSLOTS * 16);
    for (size_t i = 0; i < KSLOTS * g_k.stride; i++) {
        g_k.pt[i] = (uint8_t)(i * 131u + 7u);
    }
    double cyc[2][2][NFLOOR_SIZES]; /* key size, direction, size */
    int bad = 0;
    for (size_t k = 0; k < 2; k++) {
        for (unsigned s = 0; s < KSLOTS; s++) {
            uint8_t raw[32];
            for (unsigned b = 0; b < sizeof raw; b++) {
                raw[b] = (uint8_t)(s * 29u + b * 7u + k);
            }
            if (mbgcm_key_init(&g_k.keys[s], raw, g_key_bits[k] / 8) != MBGCM_OK) {
                die("mbgcm_key_init failed");
            }
        }
        for (size_t z = 0; z < NFLOOR_SIZES; z++) {
            g_k.len = g_floor_sizes[z];
            for (unsigned s = 0; s < KSLOTS; s++) { /* the decrypts' input and tags */
                const size_t off = s * g_k.stride;
                if (mbgcm_encrypt(&g_k.keys[s], g_kiv, 12, g_kaad, 16, g_k.pt + off, g_k.len,
                                  g_k.ct + off, g_k.tag + 16 * s, 16) != MBGCM_OK) {
                    die("mbgcm_encrypt failed");
                }
            }
            for (int d = 0; d < 2; d++) {
                g_k.dec = d;
                cyc[k][d][z] = measure(kernel_loop).med;
                char item[64];
                snprintf(item, sizeof item, "aes%u/%u/%s", g_key_bits[k], g_floor_sizes[z],
                         d ? "dec" : "enc");
                csv_num("kernel", item, "cycles", cyc[k][d][z], NULL);
                csv_num("kernel", item, "of_floor", g_kfloor[k][z] / cyc[k][d][z], NULL);
                bad |= !(cyc[k][d][z] > 0 && g_kfloor[k][z] / cyc[k][d][z] < 2);
            }
        }
        for (unsigned s = 0; s < KSLOTS; s++) {
            mbgcm_key_wipe(&g_k.keys[s]);
        }
    }
    printf("\nmbgcm's one-shot calls against the Karatsuba floor (arch %s: MBGCM_ARCH or the "
           "CPU's best;\n64 keys and message slots, 16 B AAD, 12-byte IV, out of place): core "
           "cycles per call, and the\nfloor's share of them (1.00: at the floor)\n", arch);
    printf("%6s | %8s %5s %8s %5s | %8s %5s %8s %5s\n", "", "AES-128", "", "", "", "AES-256", "",
           "", "");
    printf("%6s | %8s %5s %8s %5s | %8s %5s %8s %5s\n", "bytes", "enc cyc", "floor", "dec cyc",
           "floor", "enc cyc", "floor", "dec cyc", "floor");
    for (size_t z = 0; z < NFLOOR_SIZES; z++) {
        printf("%6u | %8.1f %5.2f %8.1f %5.2f | %8.1f %5.2f %8.1f %5.2f\n", g_floor_sizes[z],
               cyc[0][0][z], g_kfloor[0][z] / cyc[0][0][z], cyc[0][1][z],
               g_kfloor[0][z] / cyc[0][1][z], cyc[1][0][z], g_kfloor[1][z] / cyc[1][0][z],
               cyc[1][1][z], g_kfloor[1][z] / cyc[1][1][z]);
    }
    /* the steady state: 4096 -> 16384 bytes is 24 more groups of 32 blocks */
    const size_t z4 = NFLOOR_SIZES - 2, z16 = NFLOOR_SIZES - 1;
    printf("steady state, core cycles per 32 blocks (16384 B less 4096 B, / 24), and the share "
           "of them\nthe group's rounds and products alone take (its mix above):\n");
    for (size_t k = 0; k < 2; k++) {
        const struct mix *g = mix_by_id(k ? "g256" : "g128");
        const double alone = g != NULL && g->done ? 2 * g->cyc.med : 0; /* a copy: half a group */
        printf("  AES-%u", g_key_bits[k]);
        for (int d = 0; d < 2; d++) {
            const double per = (cyc[k][d][z16] - cyc[k][d][z4]) / 24.0;
            char item[64];
            snprintf(item, sizeof item, "aes%u/group/%s", g_key_bits[k], d ? "dec" : "enc");
            csv_num("kernel", item, "cycles", per, NULL);
            printf(" %s %.1f", d ? "dec" : "enc", per);
            if (alone > 0) {
                printf(" (%.2f)", alone / per);
            }
        }
        if (alone > 0) {
            printf("; the %s mix %.1f", k ? "120:26" : "88:26", alone);
        }
        printf("\n");
    }
    printf("(ns = cycles / %.2f GHz)\n", ghz);
    free(g_k.keys);
    free(g_k.pt);
    free(g_k.ct);
    free(g_k.out);
    free(g_k.tag);
    free(g_k.tag_out);
    if (bad) {
        fprintf(stderr, "check: a one-shot call below half its floor: the floor or the timing "
                        "is off\n");
    }
    return bad;
}

/* ---- main -------------------------------------------------------------------------------- */
static void usage(FILE *f)
{
    fputs("usage: mbgcm-rates [--quick] [--csv FILE] [--samples N] [--ms MS] [--agg K]\n"
          "                   [--cpu N | --no-pin] [--no-kernel] [--check]\n"
          "  --quick       9 samples of 0.7 ms per figure (~2 s); default 17 of 2 ms (~7 s)\n"
          "  --csv FILE    also write every figure as CSV (section,item,metric,value,q1,q3)\n"
          "  --samples N   samples per figure (median and quartiles reported; 1..255)\n"
          "  --ms MS       timed loop per sample, in ms\n"
          "  --agg K       floor model: GHASH blocks per reduction (default 16; 0 = one per message)\n"
          "  --cpu N       pin to CPU N (default: the CPU it starts on); --no-pin: do not pin\n"
          "  --max-width W xmm or ymm: act as if the CPU had nothing wider (tests the skips)\n"
          "  --no-kernel   leave out mbgcm's one-shot calls against the floor\n"
          "  --check       exit 1 unless every measured figure is plausible (smoke test)\n",
          f);
}

int main(int argc, char **argv)
{
    const char *csv_path = NULL;
    int quick = 0, check = 0, pin = 1, cpu = -1, kernel = 1;
    unsigned agg = 16;
    int samples_set = 0, ms_set = 0, max_width = 512;
    static const struct option opts[] = {
        {"quick", no_argument, NULL, 'q'},   {"csv", required_argument, NULL, 'c'},
        {"samples", required_argument, NULL, 's'}, {"ms", required_argument, NULL, 'm'},
        {"agg", required_argument, NULL, 'k'}, {"cpu", required_argument, NULL, 'p'},
        {"no-pin", no_argument, NULL, 'n'},  {"check", no_argument, NULL, 'x'},
        {"max-width", required_argument, NULL, 'w'}, {"no-kernel", no_argument, NULL, 'K'},
        {"help", no_argument, NULL, 'h'},    {NULL, 0, NULL, 0},
    };
    for (int o; (o = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
        switch (o) {
        case 'q': quick = 1; break;
        case 'c': csv_path = optarg; break;
        case 's': g_samples = (unsigned)atoi(optarg); samples_set = 1; break;
        case 'm': g_sample_ms = atof(optarg); ms_set = 1; break;
        case 'k': agg = (unsigned)atoi(optarg); break;
        case 'p': cpu = atoi(optarg); break;
        case 'n': pin = 0; break;
        case 'x': check = 1; break;
        case 'K': kernel = 0; break;
        case 'w':
            if (strcmp(optarg, "xmm") == 0) {
                max_width = 128;
            } else if (strcmp(optarg, "ymm") == 0) {
                max_width = 256;
            } else if (strcmp(optarg, "zmm") != 0) {
                die("--max-width takes xmm, ymm or zmm");
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (quick) {
        if (!samples_set) g_samples = 9;
        if (!ms_set) g_sample_ms = 0.7;
    }
    if (g_samples < 1 || g_samples > MAX_SAMPLES || !(g_sample_ms > 0.05) || g_sample_ms > 10000) {
        die("--samples must be 1..%d and --ms 0.05..10000", MAX_SAMPLES);
    }

    struct cpu c;
    cpu_identify(&c);
    if (max_width < 512) {
        c.feat &= ~(unsigned)(F_AVX512F | F_AVX512BW | F_AVX512VL);
    }
    if (max_width < 256) {
        c.feat &= ~(unsigned)(F_AVX | F_AVX2 | F_VAES | F_VPCLMUL);
    }
    if (pin) {
        if (cpu < 0) {
            cpu = sched_getcpu();
        }
        if (cpu < 0 || pin_to(cpu) != 0) {
            fprintf(stderr, BENCH_PROG ": warning: could not pin to CPU %d\n", cpu);
            cpu = -1;
        }
    }
    if (csv_path != NULL) {
        g_csv = fopen(csv_path, "w");
        if (g_csv == NULL) {
            die("cannot write %s: %s", csv_path, strerror(errno));
        }
        fputs("section,item,metric,value,q1,q3\n", g_csv);
    }

    char feats[256], hv[64] = "";
    feature_names(c.feat, feats, sizeof feats);
    if (c.hypervisor) {
        snprintf(hv, sizeof hv, "; guest of %s (the model is the hypervisor's choice)",
                 c.hv_vendor[0] ? c.hv_vendor : "a hypervisor");
    }
    printf("mbgcm-rates: instruction rates for AES-GCM in core cycles, and the port floor\n\n");
    printf("CPU      %s, family %u (0x%x) model %u (0x%x) stepping %u%s\n", c.vendor, c.family,
           c.family, c.model, c.model, c.stepping, hv);
    printf("brand    %s\n", c.brand);
    printf("features %s (XCR0 0x%llx: OS saves ymm %s, zmm %s)%s\n", feats[0] ? feats : "none",
           (unsigned long long)c.xcr0, c.os_ymm ? "yes" : "no", c.os_zmm ? "yes" : "no",
           max_width < 512 ? (max_width < 256 ? "; --max-width xmm" : "; --max-width ymm") : "");
    fflush(stdout);
    csv_str("cpu", "vendor", "", c.vendor);
    csv_str("cpu", "brand", "", c.brand);
    csv_num("cpu", "family", "", c.family, NULL);
    csv_num("cpu", "model", "", c.model, NULL);
    csv_num("cpu", "stepping", "", c.stepping, NULL);
    csv_num("cpu", "hypervisor", "", c.hypervisor, NULL);
    csv_str("cpu", "features", "", feats);

    if ((c.feat & (F_AES | F_PCLMUL)) != (F_AES | F_PCLMUL)) {
        printf("\nthis CPU lacks AES-NI or PCLMULQDQ: nothing to measure\n");
        if (g_csv) fclose(g_csv);
        return 77;
    }

    g_buf = xaligned(64, 4096);
    for (unsigned i = 0; i < 4096; i++) {
        ((unsigned char *)g_buf)[i] = (unsigned char)(i * 167u + 13u);
    }

    const double ghz_start = measure_ghz(quick ? 3 : 5, quick ? 10 : 20);
    const double tsc_ghz = measure_tsc_ghz(quick ? 10 : 20);
    g_ref_iters = calibrate(mbr_ref_add, g_sample_ms * 1e6);
    const uint64_t t_run0 = now_ns();
    const double load0 = loadavg();

    /* does the reference still tick once per cycle while 512-bit units are busy? */
    struct stat3 zmm_clock = {0, 0, 0};
    const int have_zmm_clock = (c.feat & VAESZ) == VAESZ;
    if (have_zmm_clock) {
        zmm_clock = scaled(measure(mbr_ref_add_zmm), 1.0 / mbr_body_len);
    }

    /* rates */
    char why[128];
    for (size_t i = 0; i < NROWS; i++) {
        struct row *r = &g_rows[i];
        if ((r->req & c.feat) != r->req) {
            continue;
        }
        r->cpi_t = scaled(measure(r->tput), 1.0 / mbr_body_len);
        if (r->lat != NULL) {
            r->cpi_l = scaled(measure(r->lat), 1.0 / mbr_body_len);
        }
        r->done = 1;
    }
    /* mixes */
    for (size_t i = 0; i < NMIXES; i++) {
        struct mix *m = &g_mixes[i];
        double sum = 0, mx = 0;
        int ok = (c.feat & (F_VAES | F_VPCLMUL | HZ)) == (F_VAES | F_VPCLMUL | HZ);
        for (const char *p = m->desc->pattern; ok && *p; p++) {
            const struct row *r = NULL;
            for (size_t l = 0; l < sizeof g_letters / sizeof g_letters[0]; l++) {
                if (g_letters[l].letter == *p) r = row_by_id(g_letters[l].row);
            }
            if (r == NULL || !r->done) {
                ok = 0;
                break;
            }
            sum += r->cpi_t.med;
        }
        if (!ok) {
            continue;
        }
        /* the largest single class: the mix cannot run faster than its busiest unit alone */
        for (size_t l = 0; l < sizeof g_letters / sizeof g_letters[0]; l++) {
            unsigned cnt = 0;
            for (const char *p = m->desc->pattern; *p; p++) cnt += *p == g_letters[l].letter;
            if (cnt) {
                const double part = cnt * row_by_id(g_letters[l].row)->cpi_t.med;
                mx = part > mx ? part : mx;
            }
        }
        m->cyc = scaled(measure(m->fn), 1.0 / m->desc->reps);
        m->sum_parts = sum;
        m->max_part = mx;
        m->overlap = sum - mx > 1e-9 ? (sum - m->cyc.med) / (sum - mx) : NAN;
        m->done = 1;
    }
    const double run_s = (double)(now_ns() - t_run0) * 1e-9;
    const double ghz_end = measure_ghz(quick ? 3 : 5, quick ? 10 : 20);
    const struct stat3 ghz_q = quartiles(g_ghz_seen, g_nghz);
    const double ghz_med = ghz_q.med;

    printf("clock    core %.2f GHz during the samples [%.2f-%.2f], %.2f at the start, %.2f at the end\n"
           "         (dependent adds in thread CPU time); TSC %.2f GHz, not used\n",
           ghz_med, ghz_q.q1, ghz_q.q3, ghz_start, ghz_end, tsc_ghz);
    if (cpu >= 0) {
        printf("run      %u samples of %.1f ms per figure: median [quartiles]; pinned to CPU %d; %.1f s;\n",
               g_samples, g_sample_ms, cpu, run_s);
    } else {
        printf("run      %u samples of %.1f ms per figure: median [quartiles]; not pinned; %.1f s;\n",
               g_samples, g_sample_ms, run_s);
    }
    printf("         load average %.2f at the start, %.2f at the end\n", load0, loadavg());
    if (have_zmm_clock) {
        printf("check    the reference with zmm VAESENC beside it: %.3f [%.3f-%.3f] cycles per add\n"
               "         (1.000: 512-bit work leaves the core clock alone, so the cycles below hold)\n",
               zmm_clock.med, zmm_clock.q1, zmm_clock.q3);
        csv_num("cpu", "ref_add_with_zmm_aes", "cycles_per_add", zmm_clock.med, &zmm_clock);
    }
    csv_num("cpu", "core", "ghz", ghz_med, &ghz_q);
    csv_num("cpu", "core_start", "ghz", ghz_start, NULL);
    csv_num("cpu", "core_end", "ghz", ghz_end, NULL);
    csv_num("cpu", "tsc", "ghz", tsc_ghz, NULL);

    printf("\nThroughput (%u independent chains) and latency (one dependent chain)\n",
           mbr_tput_chains);
    printf("%-21s %-5s %-4s  %-20s  %-20s  %s\n", "instruction", "width", "enc",
           "instr/cycle", "latency (cycles)", "per cycle");
    for (size_t i = 0; i < NROWS; i++) {
        const struct row *r = &g_rows[i];
        if (!r->done) {
            printf("%-21s %-5s %-4s  skipped: needs %s\n", r->name, r->width, r->enc,
                   skip_reason(r->req, c.feat, why, sizeof why));
            continue;
        }
        const struct stat3 ipc = inverse(r->cpi_t);
        char t[32], l[32], u[40] = "";
        snprintf(t, sizeof t, "%5.2f [%.2f-%.2f]", ipc.med, ipc.q1, ipc.q3);
        if (r->lat != NULL) {
            snprintf(l, sizeof l, "%5.2f [%.2f-%.2f]", r->cpi_l.med, r->cpi_l.q1, r->cpi_l.q3);
        } else {
            snprintf(l, sizeof l, "    -");
        }
        if (r->kind == K_AES) {
            snprintf(u, sizeof u, "%5.2f blocks", ipc.med * r->units);
        } else if (r->kind == K_CLMUL) {
            snprintf(u, sizeof u, "%5.2f products", ipc.med * r->units);
        }
        printf("%-21s %-5s %-4s  %-20s  %-20s  %s\n", r->name, r->width, r->enc, t, l, u);
        csv_num("rate", r->id, "instr_per_cycle", ipc.med, &ipc);
        if (r->lat != NULL) {
            csv_num("rate", r->id, "latency_cycles", r->cpi_l.med, &r->cpi_l);
        }
        if (r->kind != K_HELPER) {
            const struct stat3 pu = scaled(ipc, r->units);
            csv_num("rate", r->id, r->kind == K_AES ? "blocks_per_cycle" : "products_per_cycle",
                    pu.med, &pu);
        }
    }
    printf("(blocks: 128-bit AES blocks through one round; products: 64x64 carry-less products)\n");

    int any_mix = 0;
    for (size_t i = 0; i < NMIXES; i++) any_mix |= g_mixes[i].done;
    if (any_mix) {
        printf("\nOverlap: interleaved zmm mixes, cycles per group against the parts' own costs\n");
        printf("%-30s %-10s %-20s %-8s %-8s %-7s %s\n", "mix", "group", "cycles/group",
               "sum", "max", "overlap", "verdict");
        for (size_t i = 0; i < NMIXES; i++) {
            const struct mix *m = &g_mixes[i];
            if (!m->done) continue;
            char cy[32], ov[16];
            snprintf(cy, sizeof cy, "%5.2f [%.2f-%.2f]", m->cyc.med, m->cyc.q1, m->cyc.q3);
            const char *verdict = "-";
            if (isnan(m->overlap)) {
                snprintf(ov, sizeof ov, "-");
            } else {
                snprintf(ov, sizeof ov, "%.2f", m->overlap);
                verdict = m->overlap >= 0.85 ? "parallel" : m->overlap <= 0.15 ? "serial" : "partial";
            }
            printf("%-30s %-10s %-20s %-8.2f %-8.2f %-7s %s\n", m->what, m->desc->pattern, cy,
                   m->sum_parts, m->max_part, ov, verdict);
            csv_num("mix", m->id, "cycles_per_group", m->cyc.med, &m->cyc);
            csv_num("mix", m->id, "sum_of_parts", m->sum_parts, NULL);
            csv_num("mix", m->id, "max_part", m->max_part, NULL);
            if (!isnan(m->overlap)) csv_num("mix", m->id, "overlap", m->overlap, NULL);
        }
        printf("(A=VAESENC C=VPCLMULQDQ S=VPSHUFB X=VSHUFI64X2 W=VPSHUFD T=VPTERNLOGD\n"
               " K/P=masked/plain store B=VBROADCASTI32X4 from memory L=64-byte load\n"
               " M/H=4-key row merged/halves;\n"
               " sum = every part at its own throughput one after another, max = the busiest\n"
               " class alone; overlap =\n"
               " (sum - mix) / (sum - max): 1 the classes issue in parallel, 0 they share ports)\n");
    }

    /* floor inputs: the best AES width, the best CLMUL width (its slowest imm), the overlap */
    gcm_floor_rates fr = {0, 0, 1};
    const char *aes_w = "", *cl_w = "";
    for (size_t i = 0; i < NROWS; i++) {
        const struct row *r = &g_rows[i];
        if (!r->done || r->kind != K_AES || strncmp(r->id, "aesenc_", 7) != 0) continue;
        const double v = r->units / r->cpi_t.med;
        if (v > fr.aes_block_rounds_per_cycle) {
            fr.aes_block_rounds_per_cycle = v;
            aes_w = r->width;
        }
    }
    for (size_t i = 0; i < NROWS; i++) {
        const struct row *r = &g_rows[i];
        if (!r->done || r->kind != K_CLMUL) continue;
        double worst = r->units / r->cpi_t.med;
        for (size_t j = 0; j < NROWS; j++) { /* same width and encoding, other imm */
            const struct row *q = &g_rows[j];
            if (q->done && q->kind == K_CLMUL && strcmp(q->width, r->width) == 0 &&
                strcmp(q->enc, r->enc) == 0 && q->units / q->cpi_t.med < worst) {
                worst = q->units / q->cpi_t.med;
            }
        }
        if (worst > fr.clmul_products_per_cycle) {
            fr.clmul_products_per_cycle = worst;
            cl_w = r->width;
        }
    }
    /* what the CSV's one overlap says: the overlap at one 32-block group's ratio (AES-128,
       88 rounds of zmm to 26 products); each floor row below uses its own */
    int ov_n = 0;
    for (size_t i = 0; i < NMIXES; i++) {
        double r;
        ov_n += g_mixes[i].done && !isnan(g_mixes[i].overlap) && ac_ratio(&g_mixes[i], &r);
    }
    fr.overlap = overlap_at(88.0 / 26.0);
    csv_num("floor_input", "aes", "block_rounds_per_cycle", fr.aes_block_rounds_per_cycle, NULL);
    csv_num("floor_input", "clmul", "products_per_cycle", fr.clmul_products_per_cycle, NULL);
    csv_num("floor_input", "overlap", "fraction", fr.overlap, NULL);
    csv_num("floor_input", "core", "ghz", ghz_med, NULL);
    csv_num("floor_input", "agg", "blocks", agg, NULL);

    printf("\nPort floor per message (floor.h): AES %.2f block-rounds/cycle (%s), CLMUL %.2f "
           "products/cycle (%s);\n", fr.aes_block_rounds_per_cycle, aes_w,
           fr.clmul_products_per_cycle, cl_w);
    if (ov_n) {
        printf("overlap (ovl): the VAESENC:VPCLMULQDQ mixes' at the row's own ratio of rounds to "
               "products;\n");
    } else {
        printf("overlap (ovl): not measured here (no zmm VAES and VPCLMULQDQ), taken as 1;\n");
    }
    printf("16 B AAD, 12-byte IV, ");
    if (agg) {
        printf("one reduction per %u GHASH blocks;\n", agg);
    } else {
        printf("one reduction per message;\n");
    }
    printf("ns at %.2f GHz. Only AES rounds and carry-less multiplies count: no kernel goes below.\n",
           ghz_med);
    for (size_t k = 0; k < 2; k++) {
        printf("\nAES-%u-GCM      %-48s %s\n", g_key_bits[k],
               "| schoolbook (4 products per block)", "| Karatsuba (3 products per block)");
        printf("%6s %7s %7s | %7s %4s %8s %6s %-5s %7s | %7s %4s %8s %6s %-5s %7s\n", "bytes",
               "AES op", "AES cyc", "CLMULop", "ovl", "floor", "cyc/B", "bound", "ns", "CLMULop",
               "ovl", "floor", "cyc/B", "bound", "ns");
        for (size_t s = 0; s < NFLOOR_SIZES; s++) {
            gcm_floor f[2];
            double ov[2];
            for (int kara = 0; kara < 2; kara++) {
                const gcm_floor_shape sh = {g_key_bits[k], g_floor_sizes[s], 16, agg, kara};
                if (floor_at(&fr, &sh, &f[kara], &ov[kara]) != 0) {
                    die("floor model rejected its inputs");
                }
                char item[64];
                snprintf(item, sizeof item, "aes%u/%u/%s", g_key_bits[k], g_floor_sizes[s],
                         kara ? "karatsuba" : "schoolbook");
                csv_num("floor", item, "cycles", f[kara].cycles, NULL);
                csv_num("floor", item, "cycles_per_byte", f[kara].cycles_per_byte, NULL);
                csv_num("floor", item, "ns", f[kara].cycles / ghz_med, NULL);
                csv_num("floor", item, "aes_cycles", f[kara].aes_cycles, NULL);
                csv_num("floor", item, "clmul_cycles", f[kara].clmul_cycles, NULL);
                csv_num("floor", item, "overlap", ov[kara], NULL);
                csv_str("floor", item, "bound", gcm_floor_bound_name(f[kara].bound));
                if (kara) {
                    g_kfloor[k][s] = f[kara].cycles;
                }
            }
            printf("%6u %7llu %7.1f | %7llu %4.2f %8.1f %6.3f %-5s %7.1f | %7llu %4.2f %8.1f %6.3f "
                   "%-5s %7.1f\n",
                   g_floor_sizes[s], (unsigned long long)f[0].aes_ops, f[0].aes_cycles,
                   (unsigned long long)f[0].clmul_ops, ov[0], f[0].cycles, f[0].cycles_per_byte,
                   gcm_floor_bound_name(f[0].bound), f[0].cycles / ghz_med,
                   (unsigned long long)f[1].clmul_ops, ov[1], f[1].cycles, f[1].cycles_per_byte,
                   gcm_floor_bound_name(f[1].bound), f[1].cycles / ghz_med);
        }
    }
    printf("(AES op: block-rounds; CLMULop: 64x64 products incl. reductions; ovl: the overlap "
           "used;\n floor in core cycles)\n");
    int kernel_bad = 0;
    if (kernel) {
        fflush(stdout);
        kernel_bad = kernel_section(ghz_med);
    }

    if (g_csv != NULL) {
        if (fclose(g_csv) != 0) {
            die("writing %s failed", csv_path);
        }
    }

    if (check) {
        int bad = 0;
        if (!(ghz_med > 0.2 && ghz_med < 10)) {
            fprintf(stderr, "check: core clock %.2f GHz is implausible\n", ghz_med);
            bad = 1;
        }
        for (size_t i = 0; i < NROWS; i++) {
            const struct row *r = &g_rows[i];
            if (!r->done) continue;
            const double ipc = 1.0 / r->cpi_t.med;
            if (!(ipc > 0.02 && ipc < 16)) {
                fprintf(stderr, "check: %s %s: %.3f instr/cycle is implausible\n", r->name, r->width, ipc);
                bad = 1;
            }
            /* 0.8, not 1: the clock can move between the reference and the loop */
            if (r->lat != NULL && !(r->cpi_l.med >= 0.8 && r->cpi_l.med < 100)) {
                fprintf(stderr, "check: %s %s: latency %.3f cycles is implausible\n", r->name,
                        r->width, r->cpi_l.med);
                bad = 1;
            }
        }
        for (size_t i = 0; i < NMIXES; i++) {
            const struct mix *m = &g_mixes[i];
            if (m->done && !(m->cyc.med > 0.1 && m->cyc.med < 1000)) {
                fprintf(stderr, "check: mix %s: %.3f cycles/group is implausible\n", m->id, m->cyc.med);
                bad = 1;
            }
        }
        bad |= kernel_bad;
        if (!g_rows[0].done) {
            fprintf(stderr, "check: AESENC was not measured\n");
            bad = 1;
        }
        printf("\ncheck: %s\n", bad ? "FAILED" : "ok");
        return bad;
    }
    return 0;
}
