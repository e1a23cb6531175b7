/* spreadsheet.c — the formula test of a CSV cell (see spreadsheet.h). */
#include <string.h>

#include "core/spreadsheet.h"

/* Code points a spreadsheet may skip before a formula: the Unicode
 * categories Zs, Zl, Zp (spaces), Cf (format characters) and Cc
 * (controls), Unicode 15. */
static bool is_blank_code_point(unsigned long cp)
{
    static const unsigned long ranges[][2] = {
        {0x00, 0x20},       {0x7F, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},
        {0x61C, 0x61C},     {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},
        {0x8E2, 0x8E2},     {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},
        {0x2028, 0x202F},   {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},
        {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
        {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
        {0xE0020, 0xE007F},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1])
            return true;
    return false;
}

/* The bytes of the blank code points (is_blank_code_point) that open s. */
static size_t leading_blanks(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t n = s[i] < 0x80 ? 1 : s[i] >= 0xF0 ? 4 : s[i] >= 0xE0 ? 3 : s[i] >= 0xC0 ? 2 : 0;
        if (n == 0 || i + n > len)
            return i; /* not UTF-8 here: not a blank */
        unsigned long cp = n == 1 ? s[i] : s[i] & (0x7Fu >> n);
        for (size_t k = 1; k < n; k++)
            cp = (cp << 6) | (s[i + k] & 0x3F);
        if (!is_blank_code_point(cp))
            return i;
        i += n;
    }
    return i;
}

bool spreadsheet_formula_start(const char *text, size_t len, size_t *at, size_t *width)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = leading_blanks(s, len);
    if (i < len && s[i] && strchr("=+-@", s[i])) {
        *at = i;
        *width = 1;
        return true;
    }
    if (i + 3 <= len && s[i] == 0xEF && s[i + 1] == 0xBC &&
        (s[i + 2] == 0x9D || s[i + 2] == 0x8B || s[i + 2] == 0x8D || s[i + 2] == 0xA0)) {
        *at = i;
        *width = 3;
        return true;
    }
    return false;
}
