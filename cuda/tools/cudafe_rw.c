/*
 * cudafe_rw.c: the rewrites of shmemu-cudafe (cudafe.h), over cudafe_lex.c's tokens.
 *
 * One walk over the tokens keeps a stack of braces (namespace, extern "C" block, other)
 * and collects edits: byte ranges of the input with their replacement text. The output
 * is the input with the edits applied in order; bytes outside them pass through unchanged.
 * Edits never overlap (a construct that would need overlapping ones is refused), and
 * an edit's replacement is preceded by as many newlines as the text it replaces held, so
 * that every line keeps its number; when the replaced text held directives (a line marker
 * or a #pragma inside a launch), they precede it, and a line marker saying where it is.
 *
 * The forms written, with E the kernel expression's tokens joined by single spaces:
 *
 *   launch   E<<<c1, c2[, c3[, c4]]>>>(a1, ..., an)  becomes
 *            ((void)::shmemu_cuda::launch(::shmemu_cuda::launch_config(c1, c2[, c3[, c4]]),
 *                "E", "file.cu", LINE, [=](auto &&...shmemu_a_) {
 *                E(static_cast<decltype(shmemu_a_) &&>(shmemu_a_)...); }, a1, ..., an))
 *            on one line (the config and the arguments keep their own bytes and lines).
 *            An argument that is a braced list {..} at position I (from 0) becomes
 *            ::shmemu_cuda::kernel_param_t<decltype(E), I>{..} (a pack cannot carry a braced
 *            list; the kernel's parameter type can), and an argument that is the literal
 *            0 or NULL becomes ::shmemu_cuda::literal_zero() (forwarded through a pack, 0
 *            would be an int and no longer convert to the pointer parameter it meant).
 *   extern   extern __shared__ [attrs] T name[];  becomes
 *            T *const name = ::shmemu_cuda::dynamic_shared<T>();   inside a function, and
 *            static ::shmemu_cuda::dynamic_shared_array<T> name;   at namespace scope
 *            (an object whose conversion to T * asks for the running block's memory).
 *            name[][N] gives T (*const name)[N] = ...dynamic_shared<T[N]>(); attributes are
 *            dropped (the layer aligns dynamic shared memory to 16 bytes at least).
 *   shared   __shared__  becomes  static thread_local  (thread_local if `static` is there):
 *            each block runs on a pthread of its own, its threads as fibers of it.
 *   noinline __noinline__  becomes  __attribute__((noinline))  (CUDA's macro), except
 *            inside an __attribute__((..)), where libstdc++ writes it itself.
 *   global   __global__  is blanked (spaces); a kernel defined at namespace scope, not a
 *            template, with a plain identifier N as its name, gets after its closing brace
 *            static const int shmemu_kreg_N_LINE_ = ::shmemu_cuda::register_kernel(N, "N");
 *            unless N names more than one kernel definition in its namespace (overloads:
 *            the registration could not tell them apart).
 *   device   __device__ and __host__  are blanked too (they reach the rewriter only in a .cu
 *            file that shmemu-nvcc preprocesses; shmemu_cuda/qualifiers.h), and never copied
 *            into a rewrite's text (a copy would be rewritten again).
 *
 * Device-only calls (cudafe.h says the rule): each `{` pushed on the scope stack is marked
 * code (a function's or lambda's body, or nested in one) and device (its head holds
 * __global__ or __device__, or it is nested in device code), with the enclosing function's
 * name for the message. A call `N(` of a device-only name (pgas/src/device_only_names.h) in
 * a user's file is refused in code that is not device code, and outside code in an
 * initializer without __device__. The check reads the input's qualifiers, so it runs on the
 * first rewrite only (CUDAFE_CHECK_DEVICE_ONLY): a rewritten output has none left.
 *
 * The kernel expression E is found by reading backward from `<<<` over a postfix
 * expression: identifiers joined by `::` (and `template`), template argument lists (a
 * `>>` closes two, a `>>>` three), calls, subscripts, `.` and `->`, and a parenthesized
 * primary such as (*fp). The configuration and the arguments are split at their top-level
 * commas: commas inside (), [], {} and inside a template argument list (an identifier,
 * `<`, a balanced `>` followed by `(`, `::`, `{`, `,`, `)`, `;` or the end) do not count.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudafe.h"
#include "../../pgas/src/device_only_names.h"

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1) {
            if (ncap > SIZE_MAX / 2) {
                b->oom = true;
                return;
            }
            ncap *= 2;
        }
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    if (n > 0)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) {
        b->oom = true;
        return;
    }
    sb_put(b, tmp, (size_t)k);
}

typedef struct {
    uint32_t start, end; /* replaced bytes [start, end); start == end inserts */
    size_t seq;          /* creation order: inserts at one offset keep it */
    char *text;          /* text_len bytes (a file name may hold a NUL) */
    size_t text_len;
} edit;

typedef enum { SCOPE_NAMESPACE, SCOPE_LINKAGE, SCOPE_OTHER } scope_kind;

typedef struct {
    scope_kind kind;
    char *name;  /* SCOPE_NAMESPACE: its name as written ("" when anonymous) */
    bool code;   /* a function's body, a lambda's, or a brace nested in one */
    bool device; /* code that is device code (see "device-only calls" above) */
    long fname;  /* code: the token of the enclosing function's name, -1 if none found */
} scope;

/* A kernel definition to register after its body, if its name is unique. */
typedef struct {
    char *key;        /* enclosing namespaces and the name */
    long name_tok;
    uint32_t at;      /* the offset just past the body's closing brace */
} kreg;

typedef struct {
    const char *s;
    size_t n;
    cudafe_lexed lx;
    const cudafe_tok *t;
    long nt;
    long *match; /* the matching bracket of each ( ) [ ] { }, else -1 */
    edit *edits;
    size_t nedits, cap_edits;
    scope *scopes;
    size_t nscopes, cap_scopes;
    kreg *kregs;
    size_t nkregs, cap_kregs;
    char *err;
    size_t errlen;
    bool failed;
} rw;

/* ---- helpers over tokens ---- */

static bool is_p(const rw *R, long i, cudafe_punct p)
{
    return i >= 0 && i < R->nt && R->t[i].kind == CUDAFE_PUNCT && R->t[i].punct == p;
}

static bool is_id(const rw *R, long i, const char *w)
{
    return i >= 0 && i < R->nt && cudafe_is_ident(R->s, &R->t[i], w);
}

/* An identifier that is not a keyword. */
static bool is_name(const rw *R, long i)
{
    return i >= 0 && i < R->nt && R->t[i].kind == CUDAFE_IDENT &&
           !cudafe_is_keyword(R->s, &R->t[i]);
}

static bool is_opener(const rw *R, long i)
{
    return is_p(R, i, CUDAFE_P_LPAREN) || is_p(R, i, CUDAFE_P_LBRACKET) ||
           is_p(R, i, CUDAFE_P_LBRACE);
}

static bool is_closer(const rw *R, long i)
{
    return is_p(R, i, CUDAFE_P_RPAREN) || is_p(R, i, CUDAFE_P_RBRACKET) ||
           is_p(R, i, CUDAFE_P_RBRACE);
}

/* How many `>` the token is: 1, 2 (>>), 3 (>>>), else 0. */
static int closes(const rw *R, long i)
{
    if (is_p(R, i, CUDAFE_P_GT))
        return 1;
    if (is_p(R, i, CUDAFE_P_SHR))
        return 2;
    if (is_p(R, i, CUDAFE_P_GT3))
        return 3;
    return 0;
}

static void fail(rw *R, long at, const char *fmt, ...)
{
    if (R->failed)
        return;
    R->failed = true;
    const cudafe_tok *t = at >= 0 && at < R->nt ? &R->t[at] : NULL;
    va_list ap;
    va_start(ap, fmt);
    cudafe_vmessage(R->err, R->errlen, &R->lx.files[t ? t->file : 0], t ? t->line : 1, fmt, ap);
    va_end(ap);
}

static void oom(rw *R)
{
    fail(R, -1, "out of memory");
}

static int grow(rw *R, void **arr, size_t *cap, size_t used, size_t elem)
{
    if (used < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *p = ncap <= SIZE_MAX / elem ? realloc(*arr, ncap * elem) : NULL;
    if (!p) {
        oom(R);
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Brackets ( [ { matched with a stack; a closer of another kind than the innermost open
 * bracket stays unmatched (and does not close it). */
static int match_brackets(rw *R)
{
    R->match = malloc(((size_t)R->nt + 1) * sizeof *R->match);
    long *stack = malloc(((size_t)R->nt + 1) * sizeof *stack);
    if (!R->match || !stack) {
        free(stack);
        oom(R);
        return -1;
    }
    long depth = 0;
    for (long i = 0; i < R->nt; i++) {
        R->match[i] = -1;
        if (is_opener(R, i)) {
            stack[depth++] = i;
        } else if (is_closer(R, i) && depth > 0) {
            long o = stack[depth - 1];
            cudafe_punct want = R->t[i].punct == CUDAFE_P_RPAREN     ? CUDAFE_P_LPAREN
                                : R->t[i].punct == CUDAFE_P_RBRACKET ? CUDAFE_P_LBRACKET
                                                                     : CUDAFE_P_LBRACE;
            if (R->t[o].punct == want) {
                R->match[i] = o;
                R->match[o] = i;
                depth--;
            }
        }
    }
    free(stack);
    return 0;
}

/* The tokens [a, b) joined by single spaces (newlines inside raw strings kept). */
static void put_tokens(rw *R, sbuf *b, long a, long e)
{
    for (long i = a; i < e; i++) {
        if (i > a)
            sb_put(b, " ", 1);
        sb_put(b, R->s + R->t[i].off, R->t[i].len);
    }
}

/* The same, as the inside of a C string literal. */
static void put_tokens_escaped(rw *R, sbuf *b, long a, long e)
{
    sbuf raw = { 0 };
    put_tokens(R, &raw, a, e);
    if (raw.oom) {
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < raw.len; i++) {
        unsigned char c = (unsigned char)raw.p[i];
        if (c == '"' || c == '\\') {
            char esc[2] = { '\\', (char)c };
            sb_put(b, esc, 2);
        } else if (c < 0x20 || c == 0x7f) {
            sb_printf(b, "\\%03o", c);
        } else {
            sb_put(b, (const char *)&c, 1);
        }
    }
    free(raw.p);
}

/* The line and file at the byte just past token i. */
static uint32_t line_after(const rw *R, long i)
{
    const cudafe_tok *t = &R->t[i];
    uint32_t line = t->line;
    for (uint32_t k = 0; k < t->len; k++)
        if (R->s[t->off + k] == '\n' && line < 0x7fffffffu)
            line++;
    return line;
}

static bool directive_in(const rw *R, uint32_t a, uint32_t e)
{
    for (size_t i = 0; i < R->lx.ndirs; i++)
        if (R->lx.dirs[i] >= a && R->lx.dirs[i] < e)
            return true;
    return false;
}

/* Adds an edit replacing the bytes from start to the end of token last_tok, or, with
 * last_tok < 0, inserting at start. Takes text's buffer. The replaced newlines go before
 * the replacement (a line marker when a directive was replaced), never after it: what
 * follows the edit stays on its line, never moved to the start of one (where a stray `#`
 * would become a directive). */
static void add_edit(rw *R, uint32_t start, long last_tok, sbuf *text)
{
    uint32_t end = last_tok >= 0 ? R->t[last_tok].off + R->t[last_tok].len : start;
    sbuf b = { 0 };
    if (last_tok >= 0 && directive_in(R, start, end)) {
        /* the directives themselves (a #pragma must not get lost), then where we are */
        for (size_t i = 0; i < R->lx.ndirs; i++) {
            uint32_t d = R->lx.dirs[i], e = d;
            if (d < start || d >= end)
                continue;
            while (e < R->n && !(R->s[e] == '\n' && R->s[e - 1] != '\\'))
                e++;
            sb_put(&b, "\n", 1);
            sb_put(&b, R->s + d, e - d);
        }
        const cudafe_file *f = &R->lx.files[R->t[last_tok].file];
        sb_printf(&b, "\n# %u \"", line_after(R, last_tok));
        sb_put(&b, f->name, f->name_len);
        sb_printf(&b, "\"%s%s\n", f->sys ? " 3" : "", f->sys && f->externc ? " 4" : "");
    } else {
        for (uint32_t k = start; k < end; k++)
            if (R->s[k] == '\n')
                sb_put(&b, "\n", 1);
    }
    if (text->p)
        sb_put(&b, text->p, text->len);
    bool lost = text->oom;
    free(text->p);
    *text = (sbuf){ 0 };
    if (lost || b.oom) {
        free(b.p);
        oom(R);
        return;
    }
    if (grow(R, (void **)&R->edits, &R->cap_edits, R->nedits, sizeof *R->edits) != 0) {
        free(b.p);
        return;
    }
    R->edits[R->nedits] = (edit){ .start = start, .end = end, .seq = R->nedits, .text = b.p,
                                  .text_len = b.len };
    R->nedits++;
}

static void replace_tokens(rw *R, long a, long e, const char *text)
{
    sbuf b = { 0 };
    sb_puts(&b, text);
    add_edit(R, R->t[a].off, e, &b);
}

/* ---- angle brackets ---- */

/* Reading backward from the `>`, `>>` or `>>>` at i: the `<` that opens the list it
 * closes, or -1. Brackets inside are skipped whole. */
static long angle_open_back(const rw *R, long i)
{
    long depth = closes(R, i);
    for (long j = i - 1; j >= 0; j--) {
        if (is_closer(R, j)) {
            if (R->match[j] < 0)
                return -1;
            j = R->match[j];
        } else if (is_opener(R, j) || is_p(R, j, CUDAFE_P_SEMI) ||
                   is_p(R, j, CUDAFE_P_LAUNCH_OPEN)) {
            return -1;
        } else if (closes(R, j)) {
            depth += closes(R, j);
        } else if (is_p(R, j, CUDAFE_P_LT)) {
            if (--depth == 0)
                return j;
        }
    }
    return -1;
}

/* Reading forward from a `<` at i, before limit: the token that closes the list it opens
 * (depth reaching exactly 0), or -1. */
static long angle_close(const rw *R, long i, long limit)
{
    long depth = 1;
    for (long j = i + 1; j < limit; j++) {
        if (is_opener(R, j)) {
            if (R->match[j] < 0 || R->match[j] >= limit)
                return -1;
            j = R->match[j];
        } else if (is_closer(R, j) || is_p(R, j, CUDAFE_P_SEMI) ||
                   is_p(R, j, CUDAFE_P_LAUNCH_OPEN)) {
            return -1;
        } else if (is_p(R, j, CUDAFE_P_LT)) {
            depth++;
        } else if (closes(R, j)) {
            depth -= closes(R, j);
            if (depth == 0)
                return j;
            if (depth < 0)
                return -1;
        }
    }
    return -1;
}

/* Whether the `<` at i opens a template argument list (in [.., limit)): it follows a name
 * and a balanced close is followed by what ends a template-id in an expression. */
static long template_close(const rw *R, long i, long limit)
{
    if (!is_name(R, i - 1))
        return -1;
    long c = angle_close(R, i, limit);
    if (c < 0)
        return -1;
    long nx = c + 1;
    if (nx >= limit || is_p(R, nx, CUDAFE_P_LPAREN) || is_p(R, nx, CUDAFE_P_SCOPE) ||
        is_p(R, nx, CUDAFE_P_LBRACE) || is_p(R, nx, CUDAFE_P_COMMA) ||
        is_p(R, nx, CUDAFE_P_RPAREN) || is_p(R, nx, CUDAFE_P_SEMI) || closes(R, nx))
        return c;
    return -1;
}

/* Splits the tokens [a, e) at top-level commas: *n ranges [first, last] (last < first:
 * empty). An empty range is zero arguments. Returns -1 (and fails) on a bracket that does
 * not close inside. */
static int split_args(rw *R, long a, long e, long **ranges, size_t *n)
{
    *ranges = NULL;
    *n = 0;
    if (a >= e)
        return 0;
    size_t cap = 0;
    long first = a;
    for (long j = a; j <= e; j++) {
        if (j == e || is_p(R, j, CUDAFE_P_COMMA)) {
            if (grow(R, (void **)ranges, &cap, *n + 1, 2 * sizeof **ranges) != 0)
                return -1;
            (*ranges)[2 * *n] = first;
            (*ranges)[2 * *n + 1] = j - 1;
            (*n)++;
            first = j + 1;
            continue;
        }
        if (is_opener(R, j)) {
            if (R->match[j] < 0 || R->match[j] >= e) {
                fail(R, j, "unbalanced '%.*s' in a kernel launch; close it before the "
                     "launch's end", (int)R->t[j].len, R->s + R->t[j].off);
                return -1;
            }
            j = R->match[j];
        } else if (is_p(R, j, CUDAFE_P_LT)) {
            long c = template_close(R, j, e);
            if (c >= 0)
                j = c;
        }
    }
    return 0;
}

/* ---- the kernel expression before <<< ---- */

/* Whether token i can end a postfix expression that a `(` after it calls. */
static bool ends_operand(const rw *R, long i)
{
    if (is_name(R, i) || is_id(R, i, "this"))
        return true;
    if (is_p(R, i, CUDAFE_P_RPAREN)) {
        long m = R->match[i];
        /* if (c) (*fp)<<<...: a keyword's parentheses end no operand */
        return m >= 0 && !(m > 0 && R->t[m - 1].kind == CUDAFE_IDENT &&
                           cudafe_is_keyword(R->s, &R->t[m - 1]) && !is_id(R, m - 1, "this"));
    }
    if (is_p(R, i, CUDAFE_P_RBRACKET))
        return R->match[i] >= 0;
    if (closes(R, i)) {
        long o = angle_open_back(R, i);
        return o > 0 && is_name(R, o - 1);
    }
    return false;
}

/* The first token of the kernel expression that ends just before the `<<<` at lt, or -1. */
static long kernel_start(const rw *R, long lt)
{
    long i = lt - 1;
    while (i >= 0) {
        if (is_p(R, i, CUDAFE_P_RPAREN) || is_p(R, i, CUDAFE_P_RBRACKET)) {
            long m = R->match[i];
            if (m < 0)
                return -1;
            if (m > 0 && ends_operand(R, m - 1)) {
                i = m - 1; /* a call or subscript: its operand comes before */
                continue;
            }
            return is_p(R, i, CUDAFE_P_RPAREN) ? m : -1; /* (*fp), ((K)p) */
        }
        if (closes(R, i)) {
            long o = angle_open_back(R, i);
            if (o <= 0 || !is_name(R, o - 1))
                return -1;
            i = o - 1;
            continue;
        }
        if (is_id(R, i, "this"))
            return i;
        if (!is_name(R, i))
            return -1;
        long start = i;
        if (is_id(R, i - 1, "template") &&
            (is_p(R, i - 2, CUDAFE_P_SCOPE) || is_p(R, i - 2, CUDAFE_P_DOT) ||
             is_p(R, i - 2, CUDAFE_P_ARROW)))
            start = --i;
        if (is_p(R, i - 1, CUDAFE_P_SCOPE)) {
            if (is_name(R, i - 2) || closes(R, i - 2)) {
                i -= 2;
                continue;
            }
            return i - 1; /* ::k */
        }
        if (is_p(R, i - 1, CUDAFE_P_DOT) || is_p(R, i - 1, CUDAFE_P_ARROW)) {
            if (i < 2)
                return -1;
            i -= 2;
            continue;
        }
        return start;
    }
    return -1;
}

static bool is_literal_zero(const rw *R, long a, long e)
{
    if (a != e)
        return false;
    const cudafe_tok *t = &R->t[a];
    return (t->kind == CUDAFE_NUMBER && t->len == 1 && R->s[t->off] == '0') ||
           is_id(R, a, "__null") || is_id(R, a, "NULL");
}

/* The launch whose `<<<` is at lt. */
static void launch(rw *R, long lt)
{
    long es = kernel_start(R, lt);
    if (es < 0) {
        fail(R, lt, "'<<<' with no kernel expression before it; write the kernel's name (or "
             "a parenthesized expression naming it) right before <<<");
        return;
    }
    long close = -1;
    for (long j = lt + 1; j < R->nt; j++) {
        if (is_opener(R, j)) {
            if (R->match[j] < 0) {
                fail(R, j, "unbalanced '%.*s' in a kernel launch's configuration; close it "
                     "before '>>>'", (int)R->t[j].len, R->s + R->t[j].off);
                return;
            }
            j = R->match[j];
        } else if (is_p(R, j, CUDAFE_P_GT3)) {
            close = j;
            break;
        } else if (is_closer(R, j) || is_p(R, j, CUDAFE_P_SEMI) ||
                   is_p(R, j, CUDAFE_P_LAUNCH_OPEN)) {
            break;
        }
    }
    if (close < 0) {
        fail(R, lt, "unterminated launch configuration: no '>>>' closes this '<<<'; write "
             "kernel<<<grid, block[, shared_bytes[, stream]]>>>(args)");
        return;
    }
    long lp = close + 1;
    if (!is_p(R, lp, CUDAFE_P_LPAREN)) {
        fail(R, close, "a launch's '>>>' must be followed by the kernel's arguments in "
             "parentheses, even none: kernel<<<grid, block>>>()");
        return;
    }
    long rp = R->match[lp];
    if (rp < 0) {
        fail(R, lp, "unbalanced parentheses in the kernel's arguments; close the '(' after "
             "'>>>'");
        return;
    }
    for (long j = es; j < lt; j++) {
        if (R->t[j].nl) {
            fail(R, j, "the kernel expression before '<<<' spans lines inside a token; name "
                 "the kernel on one line");
            return;
        }
    }
    long *cfg = NULL, *args = NULL;
    size_t ncfg, nargs;
    if (split_args(R, lt + 1, close, &cfg, &ncfg) != 0 ||
        split_args(R, lp + 1, rp, &args, &nargs) != 0)
        goto out;
    if (ncfg < 2 || ncfg > 4) {
        fail(R, lt, "a launch configuration has 2 to 4 parts (grid, block, shared bytes, "
             "stream), this one %zu; write kernel<<<grid, block[, bytes[, stream]]>>>(args)",
             ncfg);
        goto out;
    }
    for (size_t k = 0; k < ncfg; k++) {
        if (cfg[2 * k + 1] < cfg[2 * k]) {
            fail(R, lt, "part %zu of the launch configuration is empty; write "
                 "kernel<<<grid, block[, bytes[, stream]]>>>(args)", k + 1);
            goto out;
        }
    }
    for (size_t k = 0; k < nargs; k++) {
        if (args[2 * k + 1] < args[2 * k]) {
            fail(R, lp, "kernel argument %zu is empty; remove the extra comma", k + 1);
            goto out;
        }
    }
    const cudafe_tok *first = &R->t[es];
    const cudafe_file *f = &R->lx.files[first->file];
    sbuf b = { 0 };
    sb_puts(&b, "((void)::shmemu_cuda::launch(::shmemu_cuda::launch_config(");
    add_edit(R, first->off, lt, &b);
    sb_puts(&b, "), \"");
    put_tokens_escaped(R, &b, es, lt);
    sb_puts(&b, "\", \"");
    sb_put(&b, f->name, f->name_len);
    sb_printf(&b, "\", %u, [=](auto &&...shmemu_a_) { ", first->line);
    put_tokens(R, &b, es, lt);
    sb_puts(&b, "(static_cast<decltype(shmemu_a_) &&>(shmemu_a_)...); }");
    if (nargs > 0)
        sb_puts(&b, ", ");
    add_edit(R, R->t[close].off, lp, &b);
    for (size_t k = 0; k < nargs; k++) {
        long a = args[2 * k], e = args[2 * k + 1];
        if (is_p(R, a, CUDAFE_P_LBRACE) && R->match[a] == e) {
            sb_puts(&b, "::shmemu_cuda::kernel_param_t<decltype(");
            put_tokens(R, &b, es, lt);
            sb_printf(&b, "), %zu>", k);
            add_edit(R, R->t[a].off, -1, &b);
        } else if (is_literal_zero(R, a, e)) {
            replace_tokens(R, a, a, "::shmemu_cuda::literal_zero()");
        }
    }
    replace_tokens(R, rp, rp, "))");
out:
    free(cfg);
    free(args);
}

/* ---- scopes ---- */

static bool at_namespace_scope(const rw *R)
{
    for (size_t i = 0; i < R->nscopes; i++)
        if (R->scopes[i].kind == SCOPE_OTHER)
            return false;
    return true;
}

/* The kind of the `{` at i, and a namespace's name. */
static scope classify_brace(rw *R, long i)
{
    scope sc = { .kind = SCOPE_OTHER, .fname = -1 };
    if (i >= 2 && R->t[i - 1].kind == CUDAFE_STRING && is_id(R, i - 2, "extern")) {
        sc.kind = SCOPE_LINKAGE;
        return sc;
    }
    long j = i - 1;
    while (j >= 0) {
        if (is_p(R, j, CUDAFE_P_RPAREN) || is_p(R, j, CUDAFE_P_RBRACKET)) {
            if (R->match[j] < 0)
                return sc;
            j = R->match[j] - 1; /* an attribute's arguments */
        } else if (is_name(R, j) || is_p(R, j, CUDAFE_P_SCOPE)) {
            j--;
        } else {
            break;
        }
    }
    if (!is_id(R, j, "namespace"))
        return sc;
    sbuf name = { 0 };
    sb_puts(&name, "");
    for (long k = j + 1; k < i; k++) {
        if (is_opener(R, k)) {
            k = R->match[k];
        } else if ((is_name(R, k) || is_p(R, k, CUDAFE_P_SCOPE)) && !is_opener(R, k + 1) &&
                   !is_id(R, k, "__attribute__") && !is_id(R, k, "__attribute")) {
            sb_put(&name, R->s + R->t[k].off, R->t[k].len);
        }
    }
    if (name.oom) {
        free(name.p);
        oom(R);
        return sc;
    }
    sc.kind = SCOPE_NAMESPACE;
    sc.name = name.p;
    return sc;
}

/* What the head of the `{` at i says: its tokens back to the previous `;`, `{` or `}`, over
 * balanced groups, and across the unmatched `(` or `[` of a call that holds a lambda. */
typedef struct {
    bool device; /* __global__ or __device__ outside its groups */
    bool func;   /* it is a function's head (a `name(..)` and no `=` nor class key before
                    it) or a lambda's (`[..]` where no subscript nor attribute can be) */
    long fname;  /* a function's name (its `operator` for an operator), -1 for a lambda */
} head_info;

static bool is_attr_word(const rw *R, long i);
static long attr_end(const rw *R, long i);

/* If the `(` at o opens the parameters of an operator function (`operator()(`,
 * `operator+(`, `operator[](`): its `operator` token, else -1. */
static long operator_before(const rw *R, long o)
{
    if (is_id(R, o - 1, "operator"))
        return o - 1; /* operator( */
    if (is_closer(R, o - 1) && R->match[o - 1] >= 0 && R->match[o - 1] == o - 2 &&
        is_id(R, o - 3, "operator"))
        return o - 3; /* operator()( and operator[]( */
    if (o >= 2 && R->t[o - 1].kind == CUDAFE_PUNCT && is_id(R, o - 2, "operator"))
        return o - 2; /* operator+( */
    return -1;
}

static head_info read_head(const rw *R, long i)
{
    head_info h = { false, false, -1 };
    bool assign = false, record = false, lambda = false;
    for (long j = i - 1; j >= 0; j--) {
        if (is_p(R, j, CUDAFE_P_SEMI) || is_p(R, j, CUDAFE_P_LBRACE) ||
            is_p(R, j, CUDAFE_P_RBRACE))
            break;
        if (is_id(R, j, "__global__") || is_id(R, j, "__device__")) {
            h.device = true;
        } else if (is_id(R, j, "template")) {
            assign = false; /* default template arguments are not an initializer */
        } else if (is_p(R, j, CUDAFE_P_ASSIGN) && !is_id(R, j - 1, "operator")) {
            assign = true;
        } else if (is_id(R, j, "struct") || is_id(R, j, "class") || is_id(R, j, "union") ||
                   is_id(R, j, "enum") || is_id(R, j, "namespace")) {
            record = h.fname < 0; /* `struct S *f() {` returns a struct: a function */
        } else if ((is_p(R, j, CUDAFE_P_RPAREN) || is_p(R, j, CUDAFE_P_RBRACKET)) &&
                   R->match[j] >= 0) {
            long o = R->match[j];
            if (is_p(R, j, CUDAFE_P_RBRACKET) && attr_end(R, o) != j &&
                !(is_name(R, o - 1) || is_closer(R, o - 1) || closes(R, o - 1) > 0))
                lambda = true; /* [captures]: not a subscript nor an attribute [[..]] */
            long op = operator_before(R, o);
            if (is_p(R, j, CUDAFE_P_RPAREN) && op >= 0)
                h.fname = op;
            else if (is_p(R, j, CUDAFE_P_RPAREN) && is_name(R, o - 1) && !is_attr_word(R, o - 1))
                h.fname = o - 1; /* the earliest `name(` in the head is the function's */
            j = op >= 0 ? op : o;
        }
    }
    h.func = lambda || (!record && !assign && h.fname >= 0);
    if (lambda)
        h.fname = -1;
    return h;
}

static void push_scope(rw *R, long i)
{
    scope sc = classify_brace(R, i);
    const scope *up = R->nscopes > 0 ? &R->scopes[R->nscopes - 1] : NULL;
    if (sc.kind == SCOPE_OTHER) {
        head_info h = read_head(R, i);
        if (up && up->code) {
            sc.code = true;
            sc.device = up->device || h.device;
            sc.fname = up->fname;
        } else {
            sc.code = h.func;
            sc.device = h.func && h.device;
            sc.fname = h.func ? h.fname : -1;
        }
    } else {
        sc.fname = -1;
    }
    if (grow(R, (void **)&R->scopes, &R->cap_scopes, R->nscopes, sizeof *R->scopes) != 0) {
        free(sc.name);
        return;
    }
    R->scopes[R->nscopes++] = sc;
}

static void pop_scope(rw *R)
{
    if (R->nscopes > 0)
        free(R->scopes[--R->nscopes].name);
}

/* ---- __global__ ---- */

/* Whether the identifier at i starts an attribute with arguments: __attribute__((..)),
 * alignas(..), __declspec(..), and CUDA's __launch_bounds__(..) and __align__(..) in case
 * the layer left them as they are. */
static bool is_attr_word(const rw *R, long i)
{
    return is_id(R, i, "__attribute__") || is_id(R, i, "__attribute") ||
           is_id(R, i, "alignas") || is_id(R, i, "_Alignas") || is_id(R, i, "__declspec") ||
           is_id(R, i, "__launch_bounds__") || is_id(R, i, "__align__");
}

/* If an attribute starts at i (a word and its parentheses, or [[..]]): its last token. */
static long attr_end(const rw *R, long i)
{
    if (is_attr_word(R, i) && is_p(R, i + 1, CUDAFE_P_LPAREN))
        return R->match[i + 1] >= 0 ? R->match[i + 1] : -1;
    if (is_p(R, i, CUDAFE_P_LBRACKET) && is_p(R, i + 1, CUDAFE_P_LBRACKET))
        return R->match[i] >= 0 ? R->match[i] : -1;
    return -1;
}

/* The token at g becomes as many spaces (lines and columns stay). */
static void blank_token(rw *R, long g)
{
    sbuf blank = { 0 };
    for (uint32_t k = 0; k < R->t[g].len; k++)
        sb_put(&blank, " ", 1);
    add_edit(R, R->t[g].off, g, &blank);
}

static void global_kw(rw *R, long g)
{
    blank_token(R, g);
    if (!at_namespace_scope(R))
        return;
    for (long j = g - 1; j >= 0; j--) {
        if (is_p(R, j, CUDAFE_P_SEMI) || is_p(R, j, CUDAFE_P_LBRACE) ||
            is_p(R, j, CUDAFE_P_RBRACE))
            break;
        if (is_id(R, j, "template"))
            return;
        if ((is_p(R, j, CUDAFE_P_RPAREN) || is_p(R, j, CUDAFE_P_RBRACKET)) && R->match[j] >= 0)
            j = R->match[j];
    }
    long j = g + 1;
    for (; j < R->nt; j++) {
        long ae = attr_end(R, j);
        if (ae >= 0) {
            j = ae;
            continue;
        }
        if (is_p(R, j, CUDAFE_P_LPAREN))
            break;
        if (is_p(R, j, CUDAFE_P_SEMI) || is_opener(R, j) || is_closer(R, j) ||
            is_p(R, j, CUDAFE_P_ASSIGN))
            return;
    }
    long name = j - 1;
    if (j >= R->nt || name <= g || !is_name(R, name) || is_id(R, name, "__shared__") ||
        is_id(R, name, "__noinline__") || is_id(R, name, "__device__") ||
        is_id(R, name, "__host__") || is_p(R, name - 1, CUDAFE_P_SCOPE) ||
        is_p(R, name - 1, CUDAFE_P_TILDE) || R->match[j] < 0)
        return;
    long k = R->match[j] + 1;
    for (; k < R->nt; k++) {
        if (is_p(R, k, CUDAFE_P_LBRACE))
            break;
        if (is_p(R, k, CUDAFE_P_SEMI) || is_p(R, k, CUDAFE_P_ASSIGN) ||
            is_p(R, k, CUDAFE_P_COMMA) || is_closer(R, k) || is_id(R, k, "try"))
            return;
        if ((is_p(R, k, CUDAFE_P_LPAREN) || is_p(R, k, CUDAFE_P_LBRACKET)) && R->match[k] >= 0)
            k = R->match[k];
    }
    if (k >= R->nt || R->match[k] < 0)
        return;
    sbuf key = { 0 };
    for (size_t s = 0; s < R->nscopes; s++) {
        if (R->scopes[s].kind == SCOPE_NAMESPACE) {
            sb_puts(&key, R->scopes[s].name[0] ? R->scopes[s].name : "(anonymous)");
            sb_puts(&key, "::");
        }
    }
    sb_put(&key, R->s + R->t[name].off, R->t[name].len);
    if (key.oom || grow(R, (void **)&R->kregs, &R->cap_kregs, R->nkregs, sizeof *R->kregs) != 0) {
        free(key.p);
        if (key.oom)
            oom(R);
        return;
    }
    const cudafe_tok *close = &R->t[R->match[k]];
    R->kregs[R->nkregs++] = (kreg){ .key = key.p, .name_tok = name, .at = close->off + 1 };
}

/* The registrations of the kernels whose key is unique. */
static void register_kernels(rw *R)
{
    for (size_t i = 0; i < R->nkregs; i++) {
        bool unique = true;
        for (size_t j = 0; j < R->nkregs && unique; j++)
            unique = j == i || strcmp(R->kregs[i].key, R->kregs[j].key) != 0;
        if (!unique)
            continue;
        const cudafe_tok *nt = &R->t[R->kregs[i].name_tok];
        const char *name = R->s + nt->off;
        sbuf b = { 0 };
        sb_printf(&b, " static const int shmemu_kreg_%.*s_%u_ = ::shmemu_cuda::register_kernel(",
                  (int)nt->len, name, nt->line);
        sb_put(&b, name, nt->len);
        sb_puts(&b, ", \"");
        sb_put(&b, name, nt->len);
        sb_puts(&b, "\");");
        add_edit(R, R->kregs[i].at, -1, &b);
    }
}

/* ---- device-only calls ---- */

/* Whether the token's file is the user's: the .cu file or a header of the user's, not a
 * system header (line marker flag 3, /usr) nor one of shmemu's (the layer's and the
 * runtime's include folders, in the source tree or installed under include/shmemu/). */
static bool user_file(const rw *R, const cudafe_tok *t)
{
    const cudafe_file *f = &R->lx.files[t->file];
    if (f->sys || (f->name_len > 0 && f->name[0] == '<'))
        return false;
    static const char *const theirs[] = { "/usr/", "cuda/include/", "pgas/include/",
                                          "emu/include/", "include/shmemu/" };
    for (size_t k = 0; k < sizeof theirs / sizeof theirs[0]; k++) {
        size_t w = strlen(theirs[k]);
        for (size_t a = 0; a + w <= f->name_len; a++)
            if (memcmp(f->name + a, theirs[k], w) == 0 &&
                (a == 0 || theirs[k][0] == '/' || f->name[a - 1] == '/'))
                return false;
    }
    return true;
}

/* Outside any function body (namespace or class scope): whether the `name(` at i is in
 * host code that runs, that is an initializer (`= ... name(` since the statement's start)
 * of a declaration without __device__; a `name(` in a declaration declares it. */
static bool host_initializer(const rw *R, long i)
{
    bool assign = false;
    for (long j = i - 1; j >= 0; j--) {
        if (is_p(R, j, CUDAFE_P_SEMI) || is_p(R, j, CUDAFE_P_LBRACE) ||
            is_p(R, j, CUDAFE_P_RBRACE))
            break;
        if (is_id(R, j, "__global__") || is_id(R, j, "__device__"))
            return false;
        if (is_p(R, j, CUDAFE_P_ASSIGN) && !is_id(R, j - 1, "operator"))
            assign = true;
        if (is_closer(R, j) && R->match[j] >= 0)
            j = R->match[j];
    }
    return assign;
}

/* The identifier at i, followed by `(`: if it calls a device-only NVSHMEM name
 * (pgas/src/device_only_names.h) from host code of the user's, the rewrite fails with
 * nvcc's message. A member call (`.`, `->`), a qualified name other than `::name` and a
 * declaration (a type name before it) call something else. */
static void device_only_call(rw *R, long i)
{
    const cudafe_tok *t = &R->t[i];
    if (!shmemu_device_only_name(R->s + t->off, t->len) || !user_file(R, t))
        return;
    if (is_p(R, i - 1, CUDAFE_P_DOT) || is_p(R, i - 1, CUDAFE_P_ARROW) ||
        (is_p(R, i - 1, CUDAFE_P_SCOPE) && (is_name(R, i - 2) || closes(R, i - 2) > 0)))
        return;
    if (i > 0 && R->t[i - 1].kind == CUDAFE_IDENT && !is_id(R, i - 1, "return") &&
        !is_id(R, i - 1, "else") && !is_id(R, i - 1, "do") && !is_id(R, i - 1, "case") &&
        !is_id(R, i - 1, "throw") && !is_id(R, i - 1, "co_return") &&
        !is_id(R, i - 1, "co_await") && !is_id(R, i - 1, "co_yield") &&
        !is_id(R, i - 1, "and") && !is_id(R, i - 1, "or") && !is_id(R, i - 1, "not"))
        return;
    const scope *sc = R->nscopes > 0 ? &R->scopes[R->nscopes - 1] : NULL;
    long fname = -1;
    if (sc && sc->code) {
        if (sc->device)
            return;
        fname = sc->fname;
    } else if (!host_initializer(R, i)) {
        return;
    }
    char fn[128];
    if (fname < 0) {
        snprintf(fn, sizeof fn, "%s", sc && sc->code ? "operator()" : "<initializer>");
    } else if (is_id(R, fname, "operator")) {
        const cudafe_tok *o = &R->t[fname + 1];
        snprintf(fn, sizeof fn, "operator%.*s", is_p(R, fname + 1, CUDAFE_P_LPAREN) ? 2 :
                 is_p(R, fname + 1, CUDAFE_P_LBRACKET) ? 2 : (int)o->len,
                 is_opener(R, fname + 1) ? (is_p(R, fname + 1, CUDAFE_P_LPAREN) ? "()" : "[]")
                                         : R->s + o->off);
    } else {
        snprintf(fn, sizeof fn, "%.*s", (int)R->t[fname].len, R->s + R->t[fname].off);
    }
    uint32_t col = 1;
    for (uint32_t k = t->off; k > 0 && R->s[k - 1] != '\n'; k--)
        col++;
    const cudafe_file *f = &R->lx.files[t->file];
    R->failed = true;
    snprintf(R->err, R->errlen,
             "%.*s:%u:%u: error: calling a __device__ function(\"%.*s\") from a __host__ "
             "function(\"%s\") is not allowed\n"
             "%.*s:%u: shmemu-cudafe: NVSHMEM declares %.*s __device__ only, and nvcc refuses "
             "it in host code; call it in a kernel or a __device__ function, or use a host form "
             "(an *_on_stream call, nvshmem_putmem + nvshmemx_signal_op)",
             (int)f->name_len, f->name, t->line, col, (int)t->len, R->s + t->off, fn,
             (int)f->name_len, f->name, t->line, (int)t->len, R->s + t->off);
}

/* ---- __shared__ ---- */

/* One declarator of an extern __shared__ declaration, among the kept tokens keep[from..to)
 * (positions in keep): [ptr, name) pointer operators, keep[name] its name, [dims, to) its
 * brackets, the first of them empty. */
typedef struct {
    size_t ptr, name, dims;
} shared_decl;

static const char *parse_shared_decl(const rw *R, const long *keep, size_t from, size_t to,
                                     bool first, shared_decl *d)
{
    size_t k = to;
    while (k > from && is_p(R, keep[k - 1], CUDAFE_P_RBRACKET)) {
        long open = R->match[keep[k - 1]];
        size_t o = k - 1;
        while (o > from && keep[o] != open)
            o--;
        if (keep[o] != open)
            return "has unbalanced brackets";
        k = o;
    }
    if (k == to || k == from || !is_name(R, keep[k - 1]))
        return "is not an array";
    if (R->match[keep[k]] != keep[k] + 1)
        return "has a size: the size of dynamic shared memory is the launch's third argument";
    for (size_t j = from; j < to; j++) {
        if (R->t[keep[j]].nl)
            return "spans lines inside a token";
        if (is_id(R, keep[j], "__global__") || is_id(R, keep[j], "__shared__") ||
            is_id(R, keep[j], "__noinline__") || is_p(R, keep[j], CUDAFE_P_LAUNCH_OPEN))
            return "holds other CUDA syntax";
    }
    d->dims = k;
    d->name = k - 1;
    d->ptr = d->name;
    for (size_t j = from; j < d->name; j++) {
        if (is_p(R, keep[j], CUDAFE_P_STAR)) {
            d->ptr = j;
            break;
        }
    }
    if (!first && d->ptr != from)
        return "gives a later name a type of its own";
    for (size_t j = d->ptr; j < d->name; j++) {
        if (!is_p(R, keep[j], CUDAFE_P_STAR) && !is_id(R, keep[j], "const") &&
            !is_id(R, keep[j], "volatile") && !is_id(R, keep[j], "__restrict__") &&
            !is_id(R, keep[j], "__restrict"))
            return "is not an array of a type";
    }
    if (first) {
        if (d->ptr == from)
            return "has no element type";
        for (size_t j = from; j < d->ptr; j++) {
            const cudafe_tok *t = &R->t[keep[j]];
            /* names, numbers and the punctuators of a type (::, <>, *, &, commas) */
            if (t->kind == CUDAFE_STRING || t->kind == CUDAFE_CHAR || t->kind == CUDAFE_OTHER ||
                (t->kind == CUDAFE_PUNCT && t->punct != CUDAFE_P_SCOPE &&
                 t->punct != CUDAFE_P_LT && !closes(R, keep[j]) && t->punct != CUDAFE_P_STAR &&
                 t->punct != CUDAFE_P_AMP && t->punct != CUDAFE_P_COMMA))
                return "is not an array of a type";
        }
    }
    return NULL;
}

static void put_kept(const rw *R, sbuf *b, const long *keep, size_t a, size_t e)
{
    for (size_t k = a; k < e; k++) {
        if (k > a)
            sb_put(b, " ", 1);
        sb_put(b, R->s + R->t[keep[k]].off, R->t[keep[k]].len);
    }
}

/* The declaration of extern __shared__ from token b to the `;` at semi. */
static void extern_shared(rw *R, long b, long semi)
{
    /* the tokens that matter: all but extern, __shared__, attributes, and __device__ and
     * __host__ (removed everywhere: a copy of one would be rewritten again) */
    long *keep = malloc((size_t)(semi - b + 1) * sizeof *keep);
    if (!keep) {
        oom(R);
        return;
    }
    size_t nk = 0;
    for (long j = b; j < semi; j++) {
        long ae = attr_end(R, j);
        if (ae >= 0)
            j = ae;
        else if (!is_id(R, j, "extern") && !is_id(R, j, "__shared__") &&
                 !is_id(R, j, "__device__") && !is_id(R, j, "__host__"))
            keep[nk++] = j;
    }
    sbuf out = { 0 };
    const char *what = NULL;
    size_t from = 0, type_end = 0;
    bool ns = at_namespace_scope(R);
    while (from < nk || from == 0) {
        size_t to = from;
        while (to < nk && !is_p(R, keep[to], CUDAFE_P_COMMA)) {
            if (is_opener(R, keep[to])) {
                size_t q = to + 1;
                while (q < nk && keep[q] != R->match[keep[to]])
                    q++;
                if (q >= nk)
                    break; /* unbalanced: parse_shared_decl says so */
                to = q;
            }
            to++;
        }
        shared_decl d;
        what = parse_shared_decl(R, keep, from, to, from == 0, &d);
        if (what)
            break;
        if (from == 0)
            type_end = d.ptr;
        sbuf elem = { 0 }, dims = { 0 };
        put_kept(R, &elem, keep, 0, type_end);
        if (d.ptr < d.name)
            sb_put(&elem, " ", 1);
        put_kept(R, &elem, keep, d.ptr, d.name);
        for (size_t k = d.dims + 2; k < to; k++)
            sb_put(&dims, R->s + R->t[keep[k]].off, R->t[keep[k]].len);
        const cudafe_tok *nt = &R->t[keep[d.name]];
        const char *e = elem.p ? elem.p : "", *dm = dims.p ? dims.p : "";
        if (out.len)
            sb_put(&out, " ", 1);
        if (ns)
            sb_printf(&out, "static ::shmemu_cuda::dynamic_shared_array<%s%s> %.*s;", e, dm,
                      (int)nt->len, R->s + nt->off);
        else if (dims.len)
            sb_printf(&out, "%s (*const %.*s)%s = ::shmemu_cuda::dynamic_shared<%s%s>();", e,
                      (int)nt->len, R->s + nt->off, dm, e, dm);
        else
            sb_printf(&out, "%s *const %.*s = ::shmemu_cuda::dynamic_shared<%s>();", e,
                      (int)nt->len, R->s + nt->off, e);
        free(elem.p);
        free(dims.p);
        if (to >= nk)
            break;
        from = to + 1;
        if (from >= nk) {
            what = "ends in a comma";
            break;
        }
    }
    free(keep);
    if (what) {
        free(out.p);
        fail(R, b, "this extern __shared__ declaration %s; declare dynamic shared memory as "
             "an unsized array: extern __shared__ T name[];", what);
        return;
    }
    add_edit(R, R->t[b].off, semi, &out);
}

/* The `__shared__` at i; returns the last token it consumed. */
static long shared_kw(rw *R, long i)
{
    long b = i;
    for (long j = i - 1; j >= 0; j--) {
        if (is_p(R, j, CUDAFE_P_SEMI) || is_p(R, j, CUDAFE_P_LBRACE) ||
            is_p(R, j, CUDAFE_P_RBRACE) || is_p(R, j, CUDAFE_P_COLON) ||
            is_p(R, j, CUDAFE_P_LPAREN) || is_p(R, j, CUDAFE_P_LBRACKET))
            break;
        if (is_p(R, j, CUDAFE_P_RPAREN) || is_p(R, j, CUDAFE_P_RBRACKET)) {
            if (R->match[j] < 0)
                break;
            j = R->match[j];
        }
        b = j;
    }
    bool is_extern = false, is_static = false;
    for (long j = b; j < R->nt; j++) {
        if (j > i && (is_p(R, j, CUDAFE_P_SEMI) || is_p(R, j, CUDAFE_P_ASSIGN) ||
                      is_p(R, j, CUDAFE_P_COMMA) || is_p(R, j, CUDAFE_P_LBRACE) ||
                      is_p(R, j, CUDAFE_P_RBRACE) || is_p(R, j, CUDAFE_P_LBRACKET)))
            break;
        long ae = attr_end(R, j);
        if (ae >= 0) {
            j = ae;
            continue;
        }
        is_extern |= is_id(R, j, "extern");
        is_static |= is_id(R, j, "static");
    }
    if (!is_extern) {
        replace_tokens(R, i, i, is_static ? "thread_local" : "static thread_local");
        return i;
    }
    long semi = i + 1;
    for (; semi < R->nt; semi++) {
        if (is_p(R, semi, CUDAFE_P_SEMI))
            break;
        if ((is_p(R, semi, CUDAFE_P_LPAREN) || is_p(R, semi, CUDAFE_P_LBRACKET)) &&
            R->match[semi] >= 0) {
            semi = R->match[semi];
            continue;
        }
        if (is_opener(R, semi) || is_closer(R, semi) || is_p(R, semi, CUDAFE_P_ASSIGN))
            break;
    }
    if (!is_p(R, semi, CUDAFE_P_SEMI)) {
        fail(R, i, "this extern __shared__ declaration does not end in ';' (an initializer "
             "or a body?); declare dynamic shared memory as extern __shared__ T name[];");
        return i;
    }
    extern_shared(R, b, semi);
    return semi;
}

/* ---- the output ---- */

static int edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

static void write_output(rw *R, sbuf *out)
{
    if (R->nedits > 0)
        qsort(R->edits, R->nedits, sizeof *R->edits, edit_cmp);
    uint32_t pos = 0;
    for (size_t i = 0; i < R->nedits; i++) {
        const edit *e = &R->edits[i];
        if (e->start < pos) {
            long at = 0;
            for (long k = 0; k < R->nt; k++)
                if (R->t[k].off <= e->start)
                    at = k;
            fail(R, at, "two CUDA constructs overlap here (a launch inside a kernel "
                 "expression?); name the kernel in a variable and launch that");
            return;
        }
        sb_put(out, R->s + pos, e->start - pos);
        sb_put(out, e->text, e->text_len);
        pos = e->end;
    }
    sb_put(out, R->s + pos, R->n - pos);
}

static void rw_free(rw *R)
{
    for (size_t i = 0; i < R->nedits; i++)
        free(R->edits[i].text);
    free(R->edits);
    while (R->nscopes > 0)
        pop_scope(R);
    free(R->scopes);
    for (size_t i = 0; i < R->nkregs; i++)
        free(R->kregs[i].key);
    free(R->kregs);
    free(R->match);
    cudafe_lex_free(&R->lx);
}

int cudafe_rewrite(const char *src, size_t n, const char *name, unsigned flags, char **out,
                   size_t *out_len, char *err, size_t errlen)
{
    *out = NULL;
    *out_len = 0;
    rw R = { .s = src, .n = n, .err = err, .errlen = errlen };
    if (cudafe_lex(src, n, name, &R.lx, err, errlen) != 0) {
        cudafe_lex_free(&R.lx);
        return -1;
    }
    R.t = R.lx.toks;
    R.nt = (long)R.lx.ntoks;
    if (match_brackets(&R) == 0) {
        for (long i = 0; i < R.nt && !R.failed; i++) {
            if (is_p(&R, i, CUDAFE_P_LBRACE))
                push_scope(&R, i);
            else if (is_p(&R, i, CUDAFE_P_RBRACE))
                pop_scope(&R);
            else if (is_id(&R, i, "__global__"))
                global_kw(&R, i);
            else if (is_id(&R, i, "__shared__"))
                i = shared_kw(&R, i);
            else if (is_p(&R, i, CUDAFE_P_LAUNCH_OPEN))
                launch(&R, i);
            else if (is_id(&R, i, "__noinline__"))
                replace_tokens(&R, i, i, "__attribute__((noinline))");
            else if (is_id(&R, i, "__device__") || is_id(&R, i, "__host__"))
                blank_token(&R, i);
            else if ((is_id(&R, i, "__attribute__") || is_id(&R, i, "__attribute") ||
                      is_p(&R, i, CUDAFE_P_LBRACKET)) && attr_end(&R, i) >= 0)
                i = attr_end(&R, i); /* __attribute__((__noinline__)) is libstdc++'s own */
            else if ((flags & CUDAFE_CHECK_DEVICE_ONLY) && R.t[i].kind == CUDAFE_IDENT &&
                     is_p(&R, i + 1, CUDAFE_P_LPAREN))
                device_only_call(&R, i);
        }
    }
    if (!R.failed)
        register_kernels(&R);
    sbuf o = { 0 };
    if (!R.failed)
        write_output(&R, &o);
    if (!R.failed && o.oom)
        oom(&R);
    if (!R.failed && !o.p)
        sb_put(&o, "", 0);
    if (R.failed || o.oom) {
        free(o.p);
        rw_free(&R);
        return -1;
    }
    rw_free(&R);
    *out = o.p;
    *out_len = o.len;
    return 0;
}
