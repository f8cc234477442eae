/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer_api.h — the C interface between mbgcm-bench and an ipsec-mb peer adapter.
 *
 * Debian's intel-ipsec-mb 1.3 and current versions export the same symbol names, so one
 * process cannot link two of them. Each version gets its own adapter, a small shared object
 * compiled from peer_imb.c against that version's header and linked (with an rpath) to that
 * version's libIPSec_MB; mbgcm-bench links no ipsec-mb at all and dlopen()s every adapter
 * with RTLD_LOCAL, so each adapter's references bind to its own library. The adapter exports
 * one symbol, mbgcm_bench_peer_ops, and nothing here uses an ipsec-mb type.
 */
#ifndef MBGCM_BENCH_PEER_API_H
#define MBGCM_BENCH_PEER_API_H

#include "msgs.h"

#define BENCH_PEER_ABI 1
#define BENCH_PEER_SYMBOL "mbgcm_bench_peer_ops"

/* The APIs a user of ipsec-mb could choose for AES-GCM. */
enum bench_peer_api {
    PEER_DIRECT = 0, /* IMB_AES128/256_GCM_ENC/DEC, one call per message */
    PEER_JOB,        /* IMB_GET_NEXT_JOB / IMB_SUBMIT_JOB / IMB_GET_COMPLETED_JOB / IMB_FLUSH_JOB */
    PEER_BURST,      /* IMB_GET_NEXT_BURST / IMB_SUBMIT_BURST / IMB_FLUSH_BURST */
    PEER_QUIC,       /* imb_quic_aes_gcm: arrays of packets sharing one key */
    PEER_NAPI
};

struct bench_peer_info {
    const char *label;          /* the adapter's name (PEER_NAME at build time) */
    const char *built_against;  /* IMB_VERSION_STR of the header the adapter was compiled with */
    const char *version;        /* imb_get_version_str() of the library actually loaded */
    unsigned version_num;       /* imb_get_version() */
    char library[512];          /* file of the loaded libIPSec_MB */
    unsigned apis;              /* 1 << PEER_*: the APIs this version has and accepts GCM on */
    char api_notes[PEER_NAPI][160]; /* why an API is missing, or how it is called */
    char aead_burst[160];       /* what IMB_SUBMIT_AEAD_BURST does with IMB_CIPHER_GCM */
};

struct bench_peer_ops {
    unsigned abi; /* BENCH_PEER_ABI */
    /* A manager from init_mb_mgr_|arch| ("auto", "sse", "avx2", "avx512", "avx10"), or NULL
       with the reason in err. */
    void *(*create)(const char *arch, char *err, size_t errlen);
    void (*destroy)(void *ctx);
    /* The arch of the manager's code path ("avx512", ...). */
    const char *(*arch)(void *ctx);
    /* Fills |info|, probing the burst calls with GCM on |ctx|'s manager. */
    void (*probe)(void *ctx, struct bench_peer_info *info);
    /* Key schedules (IMB_AES*_GCM_PRE) for m->nkeys keys of m->bits. */
    void (*set_keys)(void *ctx, const struct bench_msgs *m);
    /* |n| messages from slot *pos on, round-robin, through |api|; nothing left in flight.
       Returns the number that failed (decrypt: computed tag differs). |burst|: jobs per
       burst call and packets per QUIC call. */
    unsigned (*run)(void *ctx, int api, const struct bench_msgs *m, int dir, uint64_t n,
                    unsigned *pos, unsigned burst);
    /* Job API, one encryption at a time (latency mode): submit slot |slot| as |id|, report
       whatever completes; poll takes completed jobs, or flushes when |flush|. */
    void (*submit)(void *ctx, const struct bench_msgs *m, unsigned slot, uint64_t id,
                   bench_done_fn done, void *dctx);
    void (*poll)(void *ctx, int flush, bench_done_fn done, void *dctx);
};

typedef const struct bench_peer_ops *(*bench_peer_entry_fn)(void);

#endif /* MBGCM_BENCH_PEER_API_H */
