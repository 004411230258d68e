/*
 * cudafe_lex.c: the tokenizer of shmemu-cudafe (cudafe.h).
 *
 * C++ tokens as the host compiler's phase 3 sees them after preprocessing: identifiers,
 * pp-numbers (with C++14 digit separators), string and character literals with their
 * prefixes (u8, u, U, L) and raw strings (R"delim(...)delim"), comments (gone after -E,
 * but tolerated), and punctuators by longest match, digraphs included (`<::` is `<` `::`
 * unless `:` or `>` follows, as C++11 says). Two tokens are CUDA's: `<<<` (except right
 * after `operator`, where `operator<<<T>` is `operator<<` `<T>`) and `>>>`; the rewriter
 * decides whether `>>>` closes a launch or is three closing angle brackets.
 *
 * A line whose first non-blank byte is `#` is a directive: a GNU line marker
 * (`# 12 "a.cu" 1 3`) or `#line 12 "a.cu"` sets the user's file and line of the next line;
 * any other (`#pragma`, `#ident`) passes through. Directives are not tokens: the rewriter
 * never sees them, and a rewrite spanning one ends in a line marker (cudafe_rw.c).
 *
 * Lines count saturating at 2^31: a marker with a huge number is nonsense, never UB.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudafe.h"

#define LINE_MAX_VAL 0x7fffffffu

typedef struct {
    const char *s;
    size_t n, p;
    uint32_t line;
    uint32_t file;
    bool marked;          /* a line marker set the next line's number: marked_line */
    uint32_t marked_line;
    cudafe_lexed *lx;
    size_t cap_toks, cap_files, cap_dirs;
    char *err;
    size_t errlen;
} lexer;

void cudafe_vmessage(char *err, size_t errlen, const cudafe_file *f, uint32_t line,
                     const char *fmt, va_list ap)
{
    int k = snprintf(err, errlen, "%.*s:%u: shmemu-cudafe: ", (int)f->name_len, f->name, line);
    if (k >= 0 && (size_t)k < errlen)
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
}

static void lex_error(lexer *L, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cudafe_vmessage(L->err, L->errlen, &L->lx->files[L->file], line, fmt, ap);
    va_end(ap);
}

/* Grows *arr (of elem-sized items, *cap of them) to hold one more than used. */
static int grow(void **arr, size_t *cap, size_t used, size_t elem)
{
    if (used < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 256;
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

static void next_line(lexer *L)
{
    if (L->line < LINE_MAX_VAL)
        L->line++;
}

static bool is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hspace(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* A backslash-newline (or backslash-CR-LF) at p: its length, else 0. */
static size_t splice_at(const lexer *L, size_t p)
{
    if (p < L->n && L->s[p] == '\\') {
        if (p + 1 < L->n && L->s[p + 1] == '\n')
            return 2;
        if (p + 2 < L->n && L->s[p + 1] == '\r' && L->s[p + 2] == '\n')
            return 3;
    }
    return 0;
}

static int add_tok(lexer *L, size_t off, size_t len, uint32_t line, cudafe_kind kind,
                   cudafe_punct punct, bool nl)
{
    cudafe_lexed *lx = L->lx;
    if (grow((void **)&lx->toks, &L->cap_toks, lx->ntoks, sizeof *lx->toks) != 0) {
        lex_error(L, line, "out of memory; the input is too large");
        return -1;
    }
    lx->toks[lx->ntoks++] = (cudafe_tok){ .off = (uint32_t)off, .len = (uint32_t)len,
                                          .line = line, .file = L->file, .kind = (uint8_t)kind,
                                          .punct = (uint8_t)punct, .nl = nl };
    return 0;
}

/* Finds or adds the file of a line marker. */
static int set_file(lexer *L, const char *name, size_t len, bool sys, bool externc)
{
    cudafe_lexed *lx = L->lx;
    for (size_t i = 0; i < lx->nfiles; i++) {
        cudafe_file *f = &lx->files[i];
        if (f->name_len == len && memcmp(f->name, name, len) == 0 && f->sys == sys &&
            f->externc == externc) {
            L->file = (uint32_t)i;
            return 0;
        }
    }
    if (grow((void **)&lx->files, &L->cap_files, lx->nfiles, sizeof *lx->files) != 0)
        return -1;
    lx->files[lx->nfiles] = (cudafe_file){ .name = name, .name_len = (uint32_t)len,
                                           .sys = sys, .externc = externc };
    L->file = (uint32_t)lx->nfiles++;
    return 0;
}

/* The directive line s[b..e) (from its `#` to its newline, exclusive). A line marker or
 * #line sets the file and the line of the next line; the caller counts the newline. */
static int directive(lexer *L, size_t b, size_t e)
{
    cudafe_lexed *lx = L->lx;
    if (grow((void **)&lx->dirs, &L->cap_dirs, lx->ndirs, sizeof *lx->dirs) != 0)
        return -1;
    lx->dirs[lx->ndirs++] = (uint32_t)b;
    const char *s = L->s;
    size_t p = b + 1;
    while (p < e && is_hspace((unsigned char)s[p]))
        p++;
    if (e - p >= 4 && memcmp(s + p, "line", 4) == 0 &&
        (e - p == 4 || !is_ident_char((unsigned char)s[p + 4]))) {
        p += 4;
        while (p < e && is_hspace((unsigned char)s[p]))
            p++;
    }
    if (p >= e || !is_digit((unsigned char)s[p]))
        return 0; /* #pragma and the like */
    uint64_t num = 0;
    while (p < e && is_digit((unsigned char)s[p])) {
        num = num * 10 + (uint64_t)(s[p] - '0');
        if (num > LINE_MAX_VAL)
            num = LINE_MAX_VAL + 1ull;
        p++;
    }
    while (p < e && is_hspace((unsigned char)s[p]))
        p++;
    const char *name = NULL;
    size_t name_len = 0;
    bool sys = false, externc = false;
    if (p < e && s[p] == '"') {
        size_t q = p + 1;
        while (q < e && s[q] != '"') {
            if (s[q] == '\\' && q + 1 < e)
                q++;
            q++;
        }
        if (q >= e)
            return 0; /* no closing quote: not a marker we understand */
        name = s + p + 1;
        name_len = q - p - 1;
        p = q + 1;
        while (p < e) {
            if (s[p] == '3' && (p + 1 == e || !is_digit((unsigned char)s[p + 1])))
                sys = true;
            else if (s[p] == '4' && (p + 1 == e || !is_digit((unsigned char)s[p + 1])))
                externc = true;
            p++;
        }
    }
    /* the line after the marker is num (GCC writes "# 0" too): taken at the newline */
    L->marked = true;
    L->marked_line = num > LINE_MAX_VAL ? LINE_MAX_VAL : (uint32_t)num;
    if (name && set_file(L, name, name_len, sys, externc) != 0)
        return -1;
    return 0;
}

/* The end of a quoted literal whose opening quote is at p (q is '"' or '\''). */
static int quoted(lexer *L, size_t p, char q, size_t *end, bool *nl)
{
    size_t i = p + 1;
    while (i < L->n) {
        char c = L->s[i];
        if (c == q) {
            *end = i + 1;
            return 0;
        }
        if (c == '\n')
            break;
        if (c == '\\' && i + 1 < L->n) {
            if (L->s[i + 1] == '\n')
                *nl = true;
            i += 2;
            continue;
        }
        i++;
    }
    lex_error(L, L->line, "unterminated %s literal; close it on the line where it starts",
              q == '"' ? "string" : "character");
    return -1;
}

/* A raw string R"d(...)d" whose opening quote is at p. */
static int raw_string(lexer *L, size_t p, size_t *end, bool *nl)
{
    size_t d = p + 1, i = d;
    while (i < L->n && i - d <= 16) {
        char c = L->s[i];
        if (c == '(')
            break;
        if (c == ' ' || c == ')' || c == '\\' || c == '"' || (unsigned char)c < 0x20 ||
            c == 0x7f) {
            i = L->n;
            break;
        }
        i++;
    }
    if (i >= L->n || L->s[i] != '(') {
        lex_error(L, L->line, "bad raw string delimiter (at most 16 characters, no spaces, "
                  "parentheses or backslashes, then '('); fix the literal");
        return -1;
    }
    size_t dlen = i - d;
    for (size_t j = i + 1; j < L->n; j++) {
        if (L->s[j] == '\n')
            *nl = true;
        if (L->s[j] == ')' && L->n - j - 1 > dlen && memcmp(L->s + j + 1, L->s + d, dlen) == 0 &&
            L->s[j + 1 + dlen] == '"') {
            *end = j + 2 + dlen;
            return 0;
        }
    }
    lex_error(L, L->line, "unterminated raw string literal; end it with )%.*s\"", (int)dlen,
              L->s + d);
    return -1;
}

/* The length of a pp-number at p. */
static size_t pp_number(const lexer *L, size_t p)
{
    const char *s = L->s;
    size_t i = p + 1;
    while (i < L->n) {
        unsigned char c = (unsigned char)s[i];
        if ((c == '+' || c == '-') &&
            (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P')) {
            i++;
        } else if (c == '\'' && i + 1 < L->n && is_ident_char((unsigned char)s[i + 1])) {
            i += 2;
        } else if (is_ident_char(c) || c == '.') {
            i++;
        } else {
            break;
        }
    }
    return i - p;
}

typedef struct {
    const char *text;
    cudafe_punct p;
} punct_def;

/* Longest first within each leading byte: the first match wins. */
static const punct_def puncts[] = {
    { "<<<", CUDAFE_P_LAUNCH_OPEN }, { ">>>", CUDAFE_P_GT3 }, { "...", CUDAFE_P_OTHER },
    { "->*", CUDAFE_P_OTHER }, { "<=>", CUDAFE_P_OTHER }, { "<<=", CUDAFE_P_OTHER },
    { ">>=", CUDAFE_P_OTHER }, { "%:%:", CUDAFE_P_OTHER }, { "::", CUDAFE_P_SCOPE },
    { "->", CUDAFE_P_ARROW }, { ".*", CUDAFE_P_OTHER }, { "++", CUDAFE_P_OTHER },
    { "--", CUDAFE_P_OTHER }, { "<<", CUDAFE_P_SHL }, { ">>", CUDAFE_P_SHR },
    { "<=", CUDAFE_P_OTHER }, { ">=", CUDAFE_P_OTHER }, { "==", CUDAFE_P_OTHER },
    { "!=", CUDAFE_P_OTHER }, { "&&", CUDAFE_P_OTHER }, { "||", CUDAFE_P_OTHER },
    { "+=", CUDAFE_P_OTHER }, { "-=", CUDAFE_P_OTHER }, { "*=", CUDAFE_P_OTHER },
    { "/=", CUDAFE_P_OTHER }, { "%=", CUDAFE_P_OTHER }, { "&=", CUDAFE_P_OTHER },
    { "|=", CUDAFE_P_OTHER }, { "^=", CUDAFE_P_OTHER }, { "##", CUDAFE_P_OTHER },
    { "<:", CUDAFE_P_LBRACKET }, { ":>", CUDAFE_P_RBRACKET }, { "<%", CUDAFE_P_LBRACE },
    { "%>", CUDAFE_P_RBRACE }, { "%:", CUDAFE_P_OTHER },
    { "(", CUDAFE_P_LPAREN }, { ")", CUDAFE_P_RPAREN }, { "[", CUDAFE_P_LBRACKET },
    { "]", CUDAFE_P_RBRACKET }, { "{", CUDAFE_P_LBRACE }, { "}", CUDAFE_P_RBRACE },
    { "<", CUDAFE_P_LT }, { ">", CUDAFE_P_GT }, { ".", CUDAFE_P_DOT }, { ",", CUDAFE_P_COMMA },
    { ";", CUDAFE_P_SEMI }, { ":", CUDAFE_P_COLON }, { "=", CUDAFE_P_ASSIGN },
    { "*", CUDAFE_P_STAR }, { "&", CUDAFE_P_AMP }, { "~", CUDAFE_P_TILDE },
    { "+", CUDAFE_P_OTHER }, { "-", CUDAFE_P_OTHER }, { "/", CUDAFE_P_OTHER },
    { "%", CUDAFE_P_OTHER }, { "^", CUDAFE_P_OTHER }, { "|", CUDAFE_P_OTHER },
    { "!", CUDAFE_P_OTHER }, { "?", CUDAFE_P_OTHER }, { "#", CUDAFE_P_OTHER },
};

/* Whether the last token is the identifier `operator` (then `<<<` is `<<` `<`). */
static bool after_operator(const lexer *L)
{
    const cudafe_lexed *lx = L->lx;
    return lx->ntoks > 0 && cudafe_is_ident(L->s, &lx->toks[lx->ntoks - 1], "operator");
}

static int punct(lexer *L, size_t p)
{
    const char *s = L->s;
    size_t left = L->n - p;
    for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++) {
        size_t len = strlen(puncts[k].text);
        if (len > left || memcmp(s + p, puncts[k].text, len) != 0)
            continue;
        cudafe_punct id = puncts[k].p;
        if (id == CUDAFE_P_LAUNCH_OPEN && after_operator(L))
            continue; /* operator<< <T> */
        /* C++11 [lex.pptoken]: <:: is < :: unless followed by : or > */
        if (id == CUDAFE_P_LBRACKET && len == 2 && left >= 3 && s[p + 2] == ':' &&
            (left == 3 || (s[p + 3] != ':' && s[p + 3] != '>')))
            continue;
        return add_tok(L, p, len, L->line, CUDAFE_PUNCT, id, false) == 0 ? (int)len : -1;
    }
    return add_tok(L, p, 1, L->line, CUDAFE_OTHER, CUDAFE_P_OTHER, false) == 0 ? 1 : -1;
}

static bool is_prefix(const char *s, size_t len, const char *const *set)
{
    for (; *set; set++)
        if (strlen(*set) == len && memcmp(s, *set, len) == 0)
            return true;
    return false;
}

static const char *const str_prefixes[] = { "u8", "u", "U", "L", NULL };
static const char *const raw_prefixes[] = { "R", "u8R", "uR", "UR", "LR", NULL };

/* An identifier at p, or a literal with an identifier-like prefix. */
static int ident(lexer *L, size_t p)
{
    size_t i = p;
    while (i < L->n && is_ident_char((unsigned char)L->s[i]))
        i++;
    size_t len = i - p;
    uint32_t line = L->line;
    bool nl = false;
    size_t end;
    if (i < L->n && L->s[i] == '"' && is_prefix(L->s + p, len, raw_prefixes)) {
        if (raw_string(L, i, &end, &nl) != 0)
            return -1;
    } else if (i < L->n && (L->s[i] == '"' || L->s[i] == '\'') &&
               is_prefix(L->s + p, len, str_prefixes)) {
        if (quoted(L, i, L->s[i], &end, &nl) != 0)
            return -1;
    } else {
        return add_tok(L, p, len, line, CUDAFE_IDENT, CUDAFE_P_OTHER, false) == 0 ? (int)len : -1;
    }
    cudafe_kind k = L->s[i] == '\'' ? CUDAFE_CHAR : CUDAFE_STRING;
    if (add_tok(L, p, end - p, line, k, CUDAFE_P_OTHER, nl) != 0)
        return -1;
    for (size_t j = p; j < end; j++)
        if (L->s[j] == '\n')
            next_line(L);
    return (int)(end - p);
}

static int lex_all(lexer *L)
{
    const char *s = L->s;
    bool line_start = true;
    while (L->p < L->n) {
        size_t p = L->p;
        unsigned char c = (unsigned char)s[p];
        if (c == '\n') {
            if (L->marked)
                L->line = L->marked_line;
            else
                next_line(L);
            L->marked = false;
            line_start = true;
            L->p++;
            continue;
        }
        if (is_hspace(c)) {
            L->p++;
            continue;
        }
        size_t sp = splice_at(L, p);
        if (sp) {
            next_line(L);
            L->p += sp;
            continue;
        }
        if (line_start && c == '#') {
            size_t e = p;
            while (e < L->n && s[e] != '\n') {
                size_t k = splice_at(L, e);
                if (k) {
                    next_line(L);
                    e += k;
                } else {
                    e++;
                }
            }
            if (directive(L, p, e) != 0) {
                lex_error(L, L->line, "out of memory; the input is too large");
                return -1;
            }
            L->p = e; /* the newline is counted above */
            continue;
        }
        line_start = false;
        if (c == '/' && p + 1 < L->n && s[p + 1] == '/') {
            while (L->p < L->n && s[L->p] != '\n') {
                size_t k = splice_at(L, L->p);
                if (k) {
                    next_line(L);
                    L->p += k;
                } else {
                    L->p++;
                }
            }
            continue;
        }
        if (c == '/' && p + 1 < L->n && s[p + 1] == '*') {
            uint32_t line = L->line;
            size_t i = p + 2;
            while (i + 1 < L->n && !(s[i] == '*' && s[i + 1] == '/')) {
                if (s[i] == '\n')
                    next_line(L);
                i++;
            }
            if (i + 1 >= L->n) {
                lex_error(L, line, "unterminated /* comment; close it with */");
                return -1;
            }
            L->p = i + 2;
            continue;
        }
        int len;
        if (is_ident_start(c)) {
            len = ident(L, p);
        } else if (is_digit(c) || (c == '.' && p + 1 < L->n && is_digit((unsigned char)s[p + 1]))) {
            size_t k = pp_number(L, p);
            bool ok = add_tok(L, p, k, L->line, CUDAFE_NUMBER, CUDAFE_P_OTHER, false) == 0;
            len = ok ? (int)k : -1;
        } else if (c == '"' || c == '\'') {
            size_t end;
            bool nl = false;
            uint32_t line = L->line;
            if (quoted(L, p, (char)c, &end, &nl) != 0)
                return -1;
            len = add_tok(L, p, end - p, line, c == '"' ? CUDAFE_STRING : CUDAFE_CHAR,
                          CUDAFE_P_OTHER, nl) == 0 ? (int)(end - p) : -1;
            for (size_t j = p; j < end; j++)
                if (s[j] == '\n')
                    next_line(L);
        } else {
            len = punct(L, p);
        }
        if (len < 0)
            return -1;
        L->p += (size_t)len;
    }
    return 0;
}

static char *escape_name(const char *name)
{
    size_t n = strlen(name);
    char *out = malloc(4 * n + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '"' || c == '\\') {
            out[k++] = '\\';
            out[k++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            k += (size_t)sprintf(out + k, "\\%03o", c);
        } else {
            out[k++] = (char)c;
        }
    }
    out[k] = '\0';
    return out;
}

int cudafe_lex(const char *src, size_t n, const char *name, cudafe_lexed *lx, char *err,
               size_t errlen)
{
    memset(lx, 0, sizeof *lx);
    if (errlen)
        err[0] = '\0';
    lx->fallback = escape_name(name ? name : "<input>");
    lexer L = { .s = src, .n = n, .line = 1, .lx = lx, .err = err, .errlen = errlen };
    if (!lx->fallback ||
        set_file(&L, lx->fallback, strlen(lx->fallback), false, false) != 0) {
        snprintf(err, errlen, "%s:1: shmemu-cudafe: out of memory", name ? name : "<input>");
        return -1;
    }
    if (n >= UINT32_MAX) {
        lex_error(&L, 1, "the input is 4 GiB or more; split the translation unit");
        return -1;
    }
    return lex_all(&L);
}

void cudafe_lex_free(cudafe_lexed *lx)
{
    free(lx->toks);
    free(lx->files);
    free(lx->dirs);
    free(lx->fallback);
    memset(lx, 0, sizeof *lx);
}

int cudafe_is_ident(const char *src, const cudafe_tok *t, const char *word)
{
    size_t len = strlen(word);
    return t->kind == CUDAFE_IDENT && t->len == len && memcmp(src + t->off, word, len) == 0;
}

static const char *const keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", NULL
};

int cudafe_is_keyword(const char *src, const cudafe_tok *t)
{
    if (t->kind != CUDAFE_IDENT)
        return 0;
    for (const char *const *k = keywords; *k; k++)
        if (cudafe_is_ident(src, t, *k))
            return 1;
    return 0;
}
