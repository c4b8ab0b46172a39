/* common.h — what the fuzz targets share: a scratch file per process, the
 * repository's fixtures, quiet warnings. Every target is built twice: for
 * libFuzzer (make fuzz: build/fuzz/fuzz-NAME) and with replay.c as a plain
 * program that runs given inputs once (make check: build/tests/fuzz/fuzz-NAME),
 * so the seed corpora and the regression inputs are replayed by the tests. */
#ifndef OCREC_FUZZ_COMMON_H
#define OCREC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Write data to this process's scratch file NAME (created once under a
 * private temporary directory, removed at exit); returns its path. */
const char *fuzz_file(const char *name, const void *data, size_t size);
/* The path of scratch file NAME (as fuzz_file gives it). */
const char *fuzz_file_path(const char *name);
/* The private temporary directory (for targets that build a tree). */
const char *fuzz_dir(void);
/* data as a NUL-terminated string (freed by the next call). */
const char *fuzz_text(const uint8_t *data, size_t size);
/* A file of the repository (tests/fixtures/...): $OCREC_ROOT, else the
 * checkout the target was built from. Returned string is static storage
 * valid until the next call. */
const char *fuzz_repo_path(const char *rel);
/* /dev/null, for the output of the consumers (opened once). */
FILE *fuzz_devnull(void);
/* Drop ocrec's warnings (a fuzzer would print millions). */
void fuzz_quiet(void);
/* Abort (a finding) with a message: a property the target checks failed. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
