/* test_checkpoint.c — what planeval reads back is what it wrote: a
 * checkpoint is refused after any damage (its CRC-32 line); the ranking of a
 * large run gives up on a stop request and otherwise equals rank_sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/checkpoint.h"
#include "output/digest.h"
#include "output/report.h"
#include "sweep/rank.h"

/* ------------------------------------------------------------ checkpoints */

static char dir[64];
static char path[128];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/planeval-test-integrity-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/s.checkpoint", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    remove(path);
    return rmdir(dir);
}

/* A checkpoint of every field, with three kept rows: counts that add up
 * to the done prefix [100, 3276800), rows inside it. */
static void sample(pe_checkpoint *c, uint64_t rows[3])
{
    rows[0] = 117, rows[1] = 4242, rows[2] = 900001;
    *c = (pe_checkpoint){.fingerprint = 0x1234abcdu, .first = 100, .last = 5000000,
                         .next = 3276800, .top_k = 5, .rows = rows, .row_count = 3};
    for (int i = 0; i < 4; i++) {
        c->counts.by_status[i] = (uint64_t)(i * 30864 + 7);
        c->counts.evaluated += c->counts.by_status[i]; /* 185212 */
    }
    uint64_t skipped = 0;
    for (int i = 1; i < PE_SKIP_COUNT - 1; i++)
        skipped += c->counts.skipped[i] = (uint64_t)(i * 1111);
    c->counts.skipped[PE_SKIP_COUNT - 1] = c->next - c->first - c->counts.evaluated - skipped;
    for (int i = 0; i < 8; i++)
        c->counts.by_rule[i] = (uint64_t)(i * 99);
}

static void write_sample(void)
{
    uint64_t rows[3];
    pe_checkpoint c;
    sample(&c, rows);
    pe_error err = {0};
    assert_int_equal(checkpoint_write(path, &c, &err), PE_OK);
}

static char *read_all(size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[8192];
    *len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    char *copy = malloc(*len + 1);
    memcpy(copy, buf, *len);
    copy[*len] = '\0';
    return copy;
}

static void write_all(const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
}

/* The damaged text must be refused with PE_BAD_INPUT and a clear message. */
static void expect_refused(const char *text, size_t len, const char *what)
{
    write_all(text, len);
    pe_checkpoint c;
    pe_error err = {0};
    pe_status st = checkpoint_read(path, &c, &err);
    if (st != PE_BAD_INPUT)
        fail_msg("%s: accepted (status %d)", what, st);
    assert_non_null(strstr(err.msg, "damaged checkpoint"));
}

static void test_round_trip(void **state)
{
    (void)state;
    write_sample();
    pe_checkpoint c;
    pe_error err = {0};
    assert_int_equal(checkpoint_read(path, &c, &err), PE_OK);
    assert_int_equal(c.fingerprint, 0x1234abcdu);
    assert_int_equal(c.first, 100);
    assert_int_equal(c.next, 3276800);
    assert_int_equal(c.counts.evaluated, 185212);
    assert_int_equal(c.counts.by_rule[7], 693);
    assert_int_equal(c.row_count, 3);
    assert_int_equal(c.rows[2], 900001);
    checkpoint_free(&c);
    /* the last line is the CRC-32 of everything before it */
    size_t len;
    char *text = read_all(&len);
    char want[32];
    snprintf(want, sizeof want, "crc32 %08x\n", (unsigned)digest_crc32(0, text, len - 15));
    assert_string_equal(text + len - 15, want);
    free(text);
}

static void test_every_line_dropped(void **state)
{
    (void)state;
    write_sample();
    size_t len;
    char *text = read_all(&len);
    char *damaged = malloc(len);
    int lines = 0;
    for (size_t start = 0; start < len; lines++) {
        size_t end = start;
        while (text[end] != '\n')
            end++;
        end++; /* the line with its newline */
        memcpy(damaged, text, start);
        memcpy(damaged + start, text + end, len - end);
        char what[64];
        snprintf(what, sizeof what, "line %d dropped", lines + 1);
        expect_refused(damaged, len - (end - start), what);
        start = end;
    }
    assert_true(lines >= 15); /* magic … rows, three rows, crc32 */
    free(damaged);
    free(text);
}

static void test_every_digit_changed(void **state)
{
    (void)state;
    write_sample();
    size_t len;
    char *text = read_all(&len);
    int changed = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            continue;
        for (int d = 1; d <= 9; d += 4) { /* three other digits at each place */
            char keep = text[i];
            text[i] = (char)('0' + (keep - '0' + d) % 10);
            char what[64];
            snprintf(what, sizeof what, "byte %zu '%c' -> '%c'", i, keep, text[i]);
            expect_refused(text, len, what);
            text[i] = keep;
            changed++;
        }
    }
    assert_true(changed > 100);
    free(text);
}

static void test_truncated_and_repeated(void **state)
{
    (void)state;
    write_sample();
    size_t len;
    char *text = read_all(&len);
    for (size_t cut = 0; cut < len; cut++) {
        char what[64];
        snprintf(what, sizeof what, "cut to %zu of %zu bytes", cut, len);
        expect_refused(text, cut, what);
    }
    /* a row line repeated */
    char *longer = malloc(len + 16);
    const char *row = strstr(text, "\n4242\n") + 1;
    size_t at = (size_t)(row - text);
    memcpy(longer, text, at);
    memcpy(longer + at, "4242\n", 5);
    memcpy(longer + at + 5, text + at, len - at);
    expect_refused(longer, len + 5, "a row repeated");
    /* text after the checksum line */
    memcpy(longer, text, len);
    memcpy(longer + len, "1\n", 2);
    expect_refused(longer, len + 2, "a line after the checksum");
    /* an old checkpoint without a checksum */
    const char *old = "planeval-checkpoint 1\nfingerprint 0000000000000001\n";
    expect_refused(old, strlen(old), "version 1");
    /* another format with a good checksum: refused as another planeval's */
    const char *body2 = "planeval-checkpoint 2\nfingerprint 00000001\n";
    char two[128];
    snprintf(two, sizeof two, "%scrc32 %08x\n", body2,
             (unsigned)digest_crc32(0, body2, strlen(body2)));
    write_all(two, strlen(two));
    pe_checkpoint c2;
    pe_error err2 = {0};
    assert_int_equal(checkpoint_read(path, &c2, &err2), PE_BAD_INPUT);
    assert_non_null(strstr(err2.msg, "damaged checkpoint: it is another planeval's (format 2, "
                                     "this one reads 3); remove it to start over"));
    /* a good checksum over a first line that is no format number (trailing
     * words, a NUL, escape bytes, more than 8 digits, none): not named as
     * another planeval's format, whose message would quote those bytes */
    static const char *const odd[] = {"planeval-checkpoint 3 extra\n",
                                      "planeval-checkpoint 3\0junk\n",
                                      "planeval-checkpoint \x1b[31m\n",
                                      "planeval-checkpoint 123456789\n",
                                      "planeval-checkpoint \n"};
    static const size_t odd_len[] = {28, 27, 26, 30, 21};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        char buf[128];
        memcpy(buf, odd[i], odd_len[i]);
        snprintf(buf + odd_len[i], sizeof buf - odd_len[i], "crc32 %08x\n",
                 (unsigned)digest_crc32(0, odd[i], odd_len[i]));
        write_all(buf, odd_len[i] + 15);
        assert_int_equal(checkpoint_read(path, &c2, &err2), PE_BAD_INPUT);
        if (strstr(err2.msg, "another planeval's") || !strstr(err2.msg, "damaged checkpoint"))
            fail_msg("first line %zu: %s", i, err2.msg);
    }
    free(longer);
    free(text);
}

/* A checksum only proves who wrote the file: a checkpoint signed anew
 * after its rows or counts were changed is refused all the same. */
static void test_signed_but_inconsistent(void **state)
{
    (void)state;
    static const struct {
        uint64_t row1, evaluated_extra, skipped0;
        const char *message;
    } cases[] = {
        {99, 0, 0, "damaged checkpoint: kept row 99 lies outside the plan indices done [100, "
                   "3276800); remove it to start over"},
        {3276800, 0, 0, "damaged checkpoint: kept row 3276800 lies outside the plan indices "
                        "done [100, 3276800); remove it to start over"},
        {117, 0, 0, "damaged checkpoint: kept row 117 appears twice; remove it to start over"},
        {4242, 1, 0, "damaged checkpoint: its counts (185213 plans evaluated, 3091488 skipped, "
                     "185212 by status) do not add up to the 3276700 plan indices done; "
                     "remove it to start over"},
        {4242, 0, 1, "damaged checkpoint: its counts (185212 plans evaluated, 3091488 skipped, "
                     "185212 by status) do not add up to the 3276700 plan indices done; "
                     "remove it to start over"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t rows[3];
        pe_checkpoint c;
        sample(&c, rows);
        rows[1] = cases[i].row1;
        c.counts.evaluated += cases[i].evaluated_extra;
        c.counts.skipped[0] += cases[i].skipped0;
        pe_error err = {0};
        assert_int_equal(checkpoint_write(path, &c, &err), PE_OK);
        pe_checkpoint back;
        assert_int_equal(checkpoint_read(path, &back, &err), PE_BAD_INPUT);
        assert_string_equal(err.msg, cases[i].message);
        assert_null(back.rows);
    }
}

/* ------------------------------------------------------------ reports */

static bool file_has(const char *file, const char *text)
{
    FILE *fp = fopen(file, "rb");
    if (!fp)
        return false;
    char buf[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return strcmp(buf, text) == 0;
}

static int files_in_dir(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

/* A report and its summary commit together: when the second cannot be
 * written in full (here: a file-size limit, as a full disk), the first is
 * not renamed either and the old pair stays, with no temporary file. */
static void test_pair_commits_together(void **state)
{
    (void)state;
    char report[160], summary[160];
    snprintf(report, sizeof report, "%s/r.csv", dir);
    snprintf(summary, sizeof summary, "%s/r.summary.csv", dir);
    remove(path); /* the other tests' checkpoint */
    FILE *fp = fopen(report, "w");
    fputs("old report\n", fp);
    fclose(fp);
    fp = fopen(summary, "w");
    fputs("old summary\n", fp);
    fclose(fp);

    struct rlimit old, small = {1024, 1024};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    static const char *const header[] = {"a"};
    pe_report *a = NULL, *b = NULL;
    pe_error err = {0};
    assert_int_equal(report_open_cells(report, header, 1, &a, &err), PE_OK);
    assert_int_equal(report_open_cells(summary, header, 1, &b, &err), PE_OK);
    /* 3000 bytes stay in stdio's buffer until report_commit_pair flushes
     * them: the failure comes from finishing the second file */
    static char big[3000];
    memset(big, 'x', sizeof big - 1);
    const char *cells[] = {big};
    assert_int_equal(report_write_cells(b, cells, 1, &err), PE_OK);
    pe_status st = report_commit_pair(a, b, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(st, PE_INTERNAL);
    assert_true(file_has(report, "old report\n"));
    assert_true(file_has(summary, "old summary\n"));
    assert_int_equal(files_in_dir(), 2); /* no temporary file left */

    /* and when both can be written, both are replaced */
    assert_int_equal(report_open_cells(report, header, 1, &a, &err), PE_OK);
    assert_int_equal(report_open_cells(summary, header, 1, &b, &err), PE_OK);
    assert_int_equal(report_commit_pair(a, b, &err), PE_OK);
    assert_true(file_has(report, "a\n"));
    assert_true(file_has(summary, "a\n"));
    remove(report);
    remove(summary);
}

/* ------------------------------------------------------------ ranking */

static pe_row *random_rows(size_t n, unsigned seed)
{
    pe_row *rows = calloc(n, sizeof *rows);
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        pe_plan_status st = (pe_plan_status)(rand() % 4);
        rows[i].result.status = st;
        rows[i].key.status = st;
        rows[i].key.key[0] = (double)(rand() % 1000) / 7.0; /* many ties */
        snprintf(rows[i].canon, sizeof rows[i].canon, "dp%d-tp%d", rand() % 50, rand() % 8);
        rows[i].index = i;
    }
    return rows;
}

static int cmp_rows(const void *a, const void *b) { return rank_compare(a, b); }

static void test_sort_until_equals_qsort(void **state)
{
    (void)state;
    const size_t n = 20011; /* several runs and merge passes, an odd tail */
    pe_row *a = random_rows(n, 7), *b = random_rows(n, 7);
    volatile sig_atomic_t stop = 0;
    assert_true(rank_sort_until(a, n, &stop));
    qsort(b, n, sizeof *b, cmp_rows);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i].index, b[i].index);
    free(a);
    free(b);
}

static void test_sort_until_stops(void **state)
{
    (void)state;
    const size_t n = 9000;
    pe_row *a = random_rows(n, 11);
    volatile sig_atomic_t stop = 2; /* SIGINT arrived */
    assert_false(rank_sort_until(a, n, &stop));
    /* every row is still there, once */
    char *seen = calloc(n, 1);
    for (size_t i = 0; i < n; i++)
        seen[a[i].index]++;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_every_line_dropped),
        cmocka_unit_test(test_every_digit_changed),
        cmocka_unit_test(test_truncated_and_repeated),
        cmocka_unit_test(test_signed_but_inconsistent),
        cmocka_unit_test(test_pair_commits_together),
        cmocka_unit_test(test_sort_until_equals_qsort),
        cmocka_unit_test(test_sort_until_stops),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
