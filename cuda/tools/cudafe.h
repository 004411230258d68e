/*
 * cudafe.h: shmemu-cudafe, the source rewriter of shmemu-nvcc (docs/cuda.md).
 *
 * Input: C++ that the host compiler has preprocessed (g++ -E: macros expanded, GNU line
 * markers `# 123 "file.cu" flags` present). Output: the same text, byte for byte, except
 * for CUDA's own syntax, which the host compiler cannot parse:
 *
 *   E<<<c1, c2[, c3[, c4]]>>>(args)   a launch: a call of ::shmemu_cuda::launch with a
 *                                     lambda that calls E (cudafe_rw.c says the form)
 *   extern __shared__ T name[];       T *const name = ::shmemu_cuda::dynamic_shared<T>();
 *   __shared__                        static thread_local (one copy per block)
 *   __global__                        removed; a namespace-scope kernel definition is
 *                                     registered by name after its closing brace
 *   __device__, __host__              removed (shmemu_cuda/qualifiers.h leaves them to the
 *                                     rewriter when __SHMEMU_CUDAFE__ is defined, as
 *                                     shmemu-nvcc does for a .cu file)
 *
 * Device-only calls fail to compile, as with nvcc. With
 * CUDAFE_CHECK_DEVICE_ONLY (shmemu-cudafe always sets it), a call `name(` of a name that
 * NVSHMEM declares __device__ only (pgas/src/device_only_names.h: put-with-signal,
 * nvshmem_signal_fetch, nvshmem_signal_wait_until, nvshmem_TYPE_wait_until*, _test*) in host
 * code of the user's files is refused with nvcc's message:
 *   FILE:LINE:COL: error: calling a __device__ function("N") from a __host__ function("F")
 *   is not allowed
 * (the first one only; F is the enclosing function, for a lambda the function it is written
 * in, "operator()" for a lambda outside any function, "<initializer>" outside functions;
 * COL counts in the preprocessed line, which for a macro's use is its expansion's). Then a
 * line "FILE:LINE: shmemu-cudafe: " saying what to do. Device code is the body of a
 * function whose head (the tokens since the previous `;`, `{` or `}`) holds __global__ or
 * __device__, a lambda with __device__ (`[..] __device__ (..) {`), and every brace nested
 * in device code (lambdas included). A __host__ __device__ function counts as device code:
 * nvcc refuses such a call there only in some cases (not in an uninstantiated template), so
 * shmemu allows it. Host code is every other function body, and at namespace or class scope
 * an initializer (`= ... N(`, a default argument too) of a declaration without __device__. The user's files are those of the line markers that are
 * neither system headers nor under /usr/, cuda/include/, pgas/include/, emu/include/ or
 * include/shmemu/ (shmemu's own headers); a macro's expansion counts at its use. Not seen
 * here, left to the run-time check (SHMEMU_STRICT_DEVICE, pgas/src/device_only.c): calls
 * through a function pointer or a reference, calls written in a constructor's member
 * initializers, and in headers of shmemu's.
 *
 * Every rewrite keeps the line count of what it replaces (or ends in a line marker), so
 * that the compiler's messages and debug information name the user's .cu lines.
 *
 * Two parts: cudafe_lex.c turns the text into tokens (with their user-file lines), and
 * cudafe_rw.c finds the CUDA constructs among them and writes the output. cudafe.c is
 * the program; fuzz/fuzz_cudafe.c calls cudafe_rewrite directly.
 */
#ifndef SHMEMU_CUDAFE_H
#define SHMEMU_CUDAFE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- tokens (cudafe_lex.c) ---- */

typedef enum {
    CUDAFE_IDENT,  /* identifier or keyword */
    CUDAFE_NUMBER, /* pp-number */
    CUDAFE_STRING, /* string literal, any prefix, raw included */
    CUDAFE_CHAR,   /* character literal */
    CUDAFE_PUNCT,  /* punctuator (punct says which) */
    CUDAFE_OTHER   /* a byte no token starts with (stray `\`, `@`, control bytes) */
} cudafe_kind;

/* The punctuators the rewriter tells apart; every other one is CUDAFE_P_OTHER. Digraphs
 * are their equivalents (`<:` is CUDAFE_P_LBRACKET). */
typedef enum {
    CUDAFE_P_OTHER,
    CUDAFE_P_LPAREN, CUDAFE_P_RPAREN, CUDAFE_P_LBRACKET, CUDAFE_P_RBRACKET,
    CUDAFE_P_LBRACE, CUDAFE_P_RBRACE,
    CUDAFE_P_LT, CUDAFE_P_GT, CUDAFE_P_SHR, /* >> */
    CUDAFE_P_LAUNCH_OPEN,                   /* <<< (not after `operator`) */
    CUDAFE_P_GT3,                           /* >>> (a launch's close, or three >) */
    CUDAFE_P_SHL,                           /* << */
    CUDAFE_P_SCOPE,                         /* :: */
    CUDAFE_P_DOT, CUDAFE_P_ARROW,
    CUDAFE_P_COMMA, CUDAFE_P_SEMI, CUDAFE_P_COLON, CUDAFE_P_ASSIGN,
    CUDAFE_P_STAR, CUDAFE_P_AMP, CUDAFE_P_TILDE
} cudafe_punct;

typedef struct {
    uint32_t off, len;  /* its bytes in the input */
    uint32_t line;      /* its first byte's line in the user's file (line markers applied) */
    uint32_t file;      /* index into cudafe_lexed.files */
    uint8_t kind;       /* cudafe_kind */
    uint8_t punct;      /* cudafe_punct, for CUDAFE_PUNCT */
    uint8_t nl;         /* it holds a newline (a raw string or a spliced line) */
} cudafe_tok;

/* A file a line marker named: its name as the marker spells it (escaped, between the
 * quotes: ready to be written back into a string literal), and its flag 3 (system header)
 * and 4 (extern "C"), which a line marker written after a rewrite repeats. */
typedef struct {
    const char *name; /* not NUL-terminated: name_len bytes */
    uint32_t name_len;
    uint8_t sys, externc;
} cudafe_file;

typedef struct {
    cudafe_tok *toks;
    size_t ntoks;
    cudafe_file *files; /* files[0] is the input's own name, until a marker says otherwise */
    size_t nfiles;
    uint32_t *dirs;     /* offsets of directive lines (line markers, #pragma), ascending */
    size_t ndirs;
    char *fallback;     /* files[0]'s name, escaped (owned) */
} cudafe_lexed;

/* Tokenizes src[0..n). 0 on success; -1 with a message "FILE:LINE: shmemu-cudafe: what;
 * what to do" in err (an unterminated comment or literal, a bad raw-string delimiter, an
 * input of 4 GiB or more). name is the input's name, used until a line marker names one.
 * cudafe_lex_free releases what a successful or failed call allocated. */
int cudafe_lex(const char *src, size_t n, const char *name, cudafe_lexed *lx, char *err,
               size_t errlen);
void cudafe_lex_free(cudafe_lexed *lx);
/* Writes "FILE:LINE: shmemu-cudafe: " and the formatted rest into err (cut to errlen). */
void cudafe_vmessage(char *err, size_t errlen, const cudafe_file *f, uint32_t line,
                     const char *fmt, va_list ap);
/* Whether the token is this identifier. */
int cudafe_is_ident(const char *src, const cudafe_tok *t, const char *word);
/* Whether an identifier token is a C++ keyword (alternative tokens `and`, `or`... too). */
int cudafe_is_keyword(const char *src, const cudafe_tok *t);

/* ---- the rewrite (cudafe_rw.c) ---- */

/* cudafe_rewrite's flags. CUDAFE_CHECK_DEVICE_ONLY: a call of a device-only NVSHMEM name in
 * host code of the user's is an error (see above). It reads __device__ and __global__, which
 * the rewrite removes: check the preprocessed input, never a rewritten output. */
enum { CUDAFE_CHECK_DEVICE_ONLY = 1u };

/* Rewrites src[0..n) (see above). 0 on success, *out (malloc'ed, *out_len bytes, plus a
 * NUL not counted) the result; -1 on malformed input, a message in err as for cudafe_lex
 * (a device-only call: nvcc's message, then a line as for cudafe_lex), *out NULL. */
int cudafe_rewrite(const char *src, size_t n, const char *name, unsigned flags, char **out,
                   size_t *out_len, char *err, size_t errlen);

#endif
