/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_layout.c — the NASM views of the C structures agree with the C layout:
 * arch/x86/include/lane_state.inc against struct mbgcmi_group (core/group.h),
 * arch/x86/include/key.inc against struct mbgcmi_key (core/key.h) and arch/x86/include/job.inc
 * against mbgcm_job (api/mbgcm.h).
 *
 * Each .inc file is parsed (%define / %xdefine / %assign, object-like and one-parameter
 * function-like; values are integer expressions over numbers and earlier defines, evaluated
 * here) and every define is compared with offsetof()/sizeof on the C side. The test fails on a
 * mismatch, on a define it does not know (a new field must be added to the tables below), on
 * a known name missing from the file, and on a lane-state table that does not cover struct
 * mbgcmi_group without gaps (every C field must have its offset in lane_state.inc).
 */
#include <ctype.h>

#include "group.h"
#include "test_util.h"

#ifndef MBGCM_LANE_STATE_INC
#error "MBGCM_LANE_STATE_INC (path of arch/x86/include/lane_state.inc) is not defined"
#endif
#ifndef MBGCM_KEY_INC
#error "MBGCM_KEY_INC (path of arch/x86/include/key.inc) is not defined"
#endif
#ifndef MBGCM_JOB_INC
#error "MBGCM_JOB_INC (path of arch/x86/include/job.inc) is not defined"
#endif

/* ---- a tiny NASM %define reader --------------------------------------------------------------- */
#define MAXDEF 128
struct def {
    char name[64];
    char param[32]; /* "" for object-like */
    char body[256];
    int has_body;
    int checked;
};
struct defs {
    struct def d[MAXDEF];
    int n;
    char guard[64]; /* the %ifndef name */
    const char *file;
};

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    size_t i = 0;
    while (s[i] && isspace((unsigned char)s[i])) i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

static void parse_file(const char *path, struct defs *D)
{
    memset(D, 0, sizeof *D);
    D->file = path;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fail_msg("cannot open %s", path);
    }
    char line[512];
    int ln = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        ln++;
        char *semi = strchr(line, ';');
        if (semi) *semi = '\0';
        trim(line);
        if (line[0] != '%') continue;
        char dir[32] = {0};
        size_t i = 1, k = 0;
        while (line[i] && !isspace((unsigned char)line[i]) && k < sizeof dir - 1) dir[k++] = line[i++];
        char *rest = line + i;
        trim(rest);
        if (strcmp(dir, "ifndef") == 0) {
            if (strlen(rest) >= sizeof D->guard) fail_msg("%s:%d: name too long", path, ln);
            memcpy(D->guard, rest, strlen(rest) + 1);
            continue;
        }
        if (strcmp(dir, "define") != 0 && strcmp(dir, "xdefine") != 0 &&
            strcmp(dir, "assign") != 0 && strcmp(dir, "idefine") != 0 &&
            strcmp(dir, "xidefine") != 0) {
            if (strcmp(dir, "endif") != 0) {
                fail_msg("%s:%d: directive %%%s not understood by this test", path, ln, dir);
            }
            continue;
        }
        if (D->n == MAXDEF) fail_msg("%s: too many defines", path);
        struct def *d = &D->d[D->n++];
        k = 0;
        size_t j = 0;
        while (rest[j] && (isalnum((unsigned char)rest[j]) || rest[j] == '_') && k < sizeof d->name - 1)
            d->name[k++] = rest[j++];
        if (rest[j] == '(') {
            j++;
            k = 0;
            while (rest[j] && rest[j] != ')' && k < sizeof d->param - 1) d->param[k++] = rest[j++];
            if (rest[j] != ')') fail_msg("%s:%d: bad macro parameters", path, ln);
            j++;
            trim(d->param);
            if (strchr(d->param, ',')) fail_msg("%s:%d: more than one parameter", path, ln);
        }
        if (strlen(rest + j) >= sizeof d->body) fail_msg("%s:%d: define too long", path, ln);
        memcpy(d->body, rest + j, strlen(rest + j) + 1);
        trim(d->body);
        d->has_body = d->body[0] != '\0';
    }
    fclose(f);
}

static struct def *find(struct defs *D, const char *name)
{
    for (int i = 0; i < D->n; i++) {
        if (strcmp(D->d[i].name, name) == 0) return &D->d[i];
    }
    return NULL;
}

/* Recursive-descent evaluator: expr := term (('+'|'-'|'|'|'^') term)*, term := unary
   (('*'|'/'|'%'|'<<'|'>>'|'&') unary)*, unary := '-' unary | '(' expr ')' | number | name. */
struct ev {
    struct defs *D;
    const char *s;
    const char *param;
    int64_t arg;
    int depth;
    const char *what;
};
static int64_t ev_expr(struct ev *e);

static void ev_ws(struct ev *e)
{
    while (isspace((unsigned char)*e->s)) e->s++;
}

static int64_t ev_eval_string(struct defs *D, const char *body, const char *param, int64_t arg,
                              int depth, const char *what);

static int64_t ev_unary(struct ev *e)
{
    ev_ws(e);
    if (*e->s == '-') {
        e->s++;
        return -ev_unary(e);
    }
    if (*e->s == '(') {
        e->s++;
        const int64_t v = ev_expr(e);
        ev_ws(e);
        if (*e->s != ')') fail_msg("%s: ')' expected at \"%s\"", e->what, e->s);
        e->s++;
        return v;
    }
    if (isdigit((unsigned char)*e->s)) {
        char *end;
        const long long v = strtoll(e->s, &end, 0);
        e->s = end;
        return v;
    }
    if (isalpha((unsigned char)*e->s) || *e->s == '_') {
        char name[64];
        size_t k = 0;
        while ((isalnum((unsigned char)*e->s) || *e->s == '_') && k < sizeof name - 1) name[k++] = *e->s++;
        name[k] = '\0';
        if (e->param && strcmp(name, e->param) == 0) return e->arg;
        struct def *d = find(e->D, name);
        if (d == NULL || !d->has_body) fail_msg("%s: unknown name %s", e->what, name);
        if (d->param[0]) {
            ev_ws(e);
            if (*e->s != '(') fail_msg("%s: %s needs an argument", e->what, name);
            e->s++;
            const int64_t a = ev_expr(e);
            ev_ws(e);
            if (*e->s != ')') fail_msg("%s: ')' expected", e->what);
            e->s++;
            return ev_eval_string(e->D, d->body, d->param, a, e->depth + 1, e->what);
        }
        return ev_eval_string(e->D, d->body, NULL, 0, e->depth + 1, e->what);
    }
    fail_msg("%s: cannot parse \"%s\"", e->what, e->s);
    return 0;
}

static int64_t ev_term(struct ev *e)
{
    int64_t v = ev_unary(e);
    for (;;) {
        ev_ws(e);
        if (*e->s == '*') { e->s++; v *= ev_unary(e); }
        else if (*e->s == '/') { e->s++; const int64_t d = ev_unary(e); if (!d) fail_msg("%s: /0", e->what); v /= d; }
        else if (*e->s == '%') { e->s++; const int64_t d = ev_unary(e); if (!d) fail_msg("%s: %%0", e->what); v %= d; }
        else if (e->s[0] == '<' && e->s[1] == '<') { e->s += 2; v = (int64_t)((uint64_t)v << ev_unary(e)); }
        else if (e->s[0] == '>' && e->s[1] == '>') { e->s += 2; v >>= ev_unary(e); }
        else if (*e->s == '&') { e->s++; v &= ev_unary(e); }
        else return v;
    }
}

static int64_t ev_expr(struct ev *e)
{
    int64_t v = ev_term(e);
    for (;;) {
        ev_ws(e);
        if (*e->s == '+') { e->s++; v += ev_term(e); }
        else if (*e->s == '-') { e->s++; v -= ev_term(e); }
        else if (*e->s == '|') { e->s++; v |= ev_term(e); }
        else if (*e->s == '^') { e->s++; v ^= ev_term(e); }
        else return v;
    }
}

static int64_t ev_eval_string(struct defs *D, const char *body, const char *param, int64_t arg,
                              int depth, const char *what)
{
    if (depth > 20) fail_msg("%s: defines nest too deep", what);
    struct ev e = {D, body, param, arg, depth, what};
    const int64_t v = ev_expr(&e);
    ev_ws(&e);
    if (*e.s != '\0') fail_msg("%s: trailing text \"%s\"", what, e.s);
    return v;
}

/* Value of object-like define |name| (marks it checked). */
static int64_t value(struct defs *D, const char *name)
{
    struct def *d = find(D, name);
    if (d == NULL) fail_msg("%s: %s is not defined", D->file, name);
    if (d->param[0]) fail_msg("%s: %s takes a parameter", D->file, name);
    char what[160];
    snprintf(what, sizeof what, "%s: %s", D->file, name);
    d->checked = 1;
    return ev_eval_string(D, d->body, NULL, 0, 0, what);
}

static int64_t value_fn(struct defs *D, const char *name, int64_t arg)
{
    struct def *d = find(D, name);
    if (d == NULL) fail_msg("%s: %s is not defined", D->file, name);
    if (!d->param[0]) fail_msg("%s: %s takes no parameter", D->file, name);
    char what[160];
    snprintf(what, sizeof what, "%s: %s(%lld)", D->file, name, (long long)arg);
    d->checked = 1;
    return ev_eval_string(D, d->body, d->param, arg, 0, what);
}

static void all_checked(struct defs *D)
{
    int bad = 0;
    for (int i = 0; i < D->n; i++) {
        const struct def *d = &D->d[i];
        if (!d->checked && !(strcmp(d->name, D->guard) == 0 && !d->has_body)) {
            print_error("%s: %%define %s = %s is not checked against the C layout (add it to "
                        "test/test_layout.c)\n", D->file, d->name, d->body);
            bad = 1;
        }
    }
    if (bad) fail();
}

/* ---- lane state ------------------------------------------------------------------------------- */
#define GF(inc, field) {inc, #field, offsetof(struct mbgcmi_group, field), \
                        sizeof(((struct mbgcmi_group *)0)->field)}
struct gfield {
    const char *inc, *c;
    size_t off, size;
};
/* every field of struct mbgcmi_group, in order */
static const struct gfield group_fields[] = {
    GF("G_RK", rk),           GF("G_HP", hp),           GF("G_HK", hk),
    GF("G_EK0", ek0),         GF("G_CTR", ctr),         GF("G_S", s),
    GF("G_LENBLK", lenblk),   GF("G_ETAG", etag),       GF("G_SCRATCH", scratch),
    GF("G_AAD", aad),         GF("G_SRC", src),         GF("G_DST", dst),
    GF("G_TAG", tag),         GF("G_AADLEFT", aad_left), GF("G_TEXTLEFT", text_left),
    GF("G_ROUNDS", rounds),   GF("G_TAGLEN", tag_len),  GF("G_ACTIVE", active),
    GF("G_DECRYPT", decrypt), GF("G_INIT", init),       GF("G_AUTHFAIL", auth_fail),
    GF("G_TAGMASK", tagmask), GF("G_RMAX", rmax),       GF("G_K10Q", k10q),
    GF("G_K12Q", k12q),
};

static void lane_state_layout(void **state)
{
    (void)state;
    struct defs *D = tu_xmalloc(sizeof *D);
    parse_file(MBGCM_LANE_STATE_INC, D);
    print_message("%s: %d defines (guard %s)\n", MBGCM_LANE_STATE_INC, D->n, D->guard);
    int bad = 0;
    const size_t nf = sizeof group_fields / sizeof group_fields[0];
    for (size_t i = 0; i < nf; i++) {
        const struct gfield *f = &group_fields[i];
        const int64_t v = value(D, f->inc);
        if (v != (int64_t)f->off) {
            print_error("%s = %lld, but offsetof(struct mbgcmi_group, %s) = %zu\n", f->inc,
                        (long long)v, f->c, f->off);
            bad = 1;
        }
        /* no gaps: a C field without a define shows up here */
        const size_t next = i + 1 < nf ? group_fields[i + 1].off : sizeof(struct mbgcmi_group);
        if (f->off + f->size != next) {
            print_error("struct mbgcmi_group: %s ends at %zu but the next mirrored field starts "
                        "at %zu (a field missing from lane_state.inc or from this test?)\n",
                        f->c, f->off + f->size, next);
            bad = 1;
        }
    }
    const int64_t size = value(D, "G_SIZE");
    if (size != (int64_t)sizeof(struct mbgcmi_group)) {
        print_error("G_SIZE = %lld, but sizeof(struct mbgcmi_group) = %zu\n", (long long)size,
                    sizeof(struct mbgcmi_group));
        bad = 1;
    }
    if (size % 64 != 0) {
        print_error("G_SIZE = %lld is not a multiple of 64 (groups are 64-byte aligned)\n",
                    (long long)size);
        bad = 1;
    }
    all_checked(D);
    free(D);
    if (bad) fail();
}

/* ---- key ---------------------------------------------------------------------------------------- */
static void key_layout(void **state)
{
    (void)state;
    struct defs *D = tu_xmalloc(sizeof *D);
    parse_file(MBGCM_KEY_INC, D);
    print_message("%s: %d defines (guard %s)\n", MBGCM_KEY_INC, D->n, D->guard);
    int bad = 0;
#define KCHK(name, off)                                                                        \
    do {                                                                                       \
        const int64_t v_ = value(D, name);                                                     \
        if (v_ != (int64_t)(off)) {                                                            \
            print_error("%s = %lld, but the C layout says %zu (%s)\n", name, (long long)v_,    \
                        (size_t)(off), #off);                                                  \
            bad = 1;                                                                           \
        }                                                                                      \
    } while (0)
    KCHK("KEY_RK", offsetof(struct mbgcmi_key, rk));
    KCHK("KEY_ROUNDS", offsetof(struct mbgcmi_key, rounds));
    KCHK("KEY_HPOW", offsetof(struct mbgcmi_key, hpow));
    KCHK("KEY_HKAR", offsetof(struct mbgcmi_key, hkar));
#undef KCHK
    for (int k = 1; k <= MBGCMI_NPOWERS; k++) {
        const int64_t hp = value_fn(D, "HPOW", k), hk = value_fn(D, "HKAR", k);
        const size_t chp = offsetof(struct mbgcmi_key, hpow) + (size_t)MBGCMI_HIDX(k) * 16;
        const size_t chk = offsetof(struct mbgcmi_key, hkar) + (size_t)MBGCMI_HIDX(k) * 16;
        if (hp != (int64_t)chp || hk != (int64_t)chk) {
            print_error("HPOW(%d) = %lld / HKAR(%d) = %lld, but the C layout (hpow/hkar "
                        "[MBGCMI_HIDX(%d)]) gives %zu / %zu\n", k, (long long)hp, k,
                        (long long)hk, k, chp, chk);
            bad = 1;
        }
    }
    /* the C side's own constants agree with the C layout too */
    if (offsetof(struct mbgcmi_key, rk) != MBGCMI_OFF_RK ||
        offsetof(struct mbgcmi_key, rounds) != MBGCMI_OFF_ROUNDS ||
        offsetof(struct mbgcmi_key, hpow) != MBGCMI_OFF_HPOW ||
        offsetof(struct mbgcmi_key, hkar) != MBGCMI_OFF_HKAR ||
        sizeof(struct mbgcmi_key) != MBGCM_KEY_SIZE || sizeof(mbgcm_key) != MBGCM_KEY_SIZE) {
        print_error("MBGCMI_OFF_* / MBGCM_KEY_SIZE disagree with struct mbgcmi_key\n");
        bad = 1;
    }
    all_checked(D);
    free(D);
    if (bad) fail();
}

/* ---- job ---------------------------------------------------------------------------------------- */
static void job_layout(void **state)
{
    (void)state;
    struct defs *D = tu_xmalloc(sizeof *D);
    parse_file(MBGCM_JOB_INC, D);
    print_message("%s: %d defines (guard %s)\n", MBGCM_JOB_INC, D->n, D->guard);
    static const struct {
        const char *inc;
        size_t off;
    } jf[] = {
        {"J_KEY", offsetof(mbgcm_job, key)},         {"J_DIR", offsetof(mbgcm_job, dir)},
        {"J_IV", offsetof(mbgcm_job, iv)},           {"J_IVLEN", offsetof(mbgcm_job, iv_len)},
        {"J_AAD", offsetof(mbgcm_job, aad)},         {"J_AADLEN", offsetof(mbgcm_job, aad_len)},
        {"J_SRC", offsetof(mbgcm_job, src)},         {"J_DST", offsetof(mbgcm_job, dst)},
        {"J_LEN", offsetof(mbgcm_job, len)},         {"J_TAG", offsetof(mbgcm_job, tag)},
        {"J_TAGLEN", offsetof(mbgcm_job, tag_len)},  {"J_STATUS", offsetof(mbgcm_job, status)},
        {"J_SRCSGL", offsetof(mbgcm_job, src_sgl)},  {"J_DSTSGL", offsetof(mbgcm_job, dst_sgl)},
        {"J_RESERVED", offsetof(mbgcm_job, reserved_)}, {"J_SIZE", sizeof(mbgcm_job)},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof jf / sizeof jf[0]; i++) {
        const int64_t v = value(D, jf[i].inc);
        if (v != (int64_t)jf[i].off) {
            print_error("%s = %lld, but the C layout of mbgcm_job says %zu\n", jf[i].inc,
                        (long long)v, jf[i].off);
            bad = 1;
        }
    }
    all_checked(D);
    free(D);
    if (bad) fail();
}

/* The reader itself: a known file text gives the known values. */
static void reader_self_check(void **state)
{
    (void)state;
    char path[] = "/tmp/mbgcm_layout_selfcheck_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("; comment\n%ifndef X_INC\n%define X_INC\n%define A 0x40 ; c\n%define B (A + 2*8)\n"
          "%define F(k) (B + (4 - (k)) * 16)\n%assign C B - -1\n%endif\n", f);
    fclose(f);
    struct defs *D = tu_xmalloc(sizeof *D);
    parse_file(path, D);
    remove(path);
    assert_string_equal(D->guard, "X_INC");
    assert_int_equal(value(D, "A"), 64);
    assert_int_equal(value(D, "B"), 80);
    assert_int_equal(value(D, "C"), 81);
    assert_int_equal(value_fn(D, "F", 1), 128);
    assert_int_equal(value_fn(D, "F", 4), 80);
    all_checked(D);
    free(D);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reader_self_check),
        cmocka_unit_test(lane_state_layout),
        cmocka_unit_test(key_layout),
        cmocka_unit_test(job_layout),
    };
    return cmocka_run_group_tests_name("layout", tests, NULL, NULL) ? 1 : 0;
}
