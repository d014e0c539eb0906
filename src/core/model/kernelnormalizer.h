#pragma once

#include <QString>

// What makes two kernels "the same" for selection (docs/architecture.md, "One optimization", steps 4 and 6)
// and for de-duplicating experiences. LLMs often return an unchanged kernel with a new comment or docstring;
// counting that as a new candidate would fill the beam with copies. normalize() therefore removes, outside
// string literals: - comments (`#` to the end of the line), - docstrings, i.e. any string literal that is a
// statement on its own (at bracket depth 0, at the start of a logical line, with nothing but a comment after
// it): it has no effect on what the kernel computes, - trailing white space on every line, and blank lines.
// Indentation and everything else, string literals used as values included, are kept as they are. The result
// is for comparing, not for running (a body that was only a docstring becomes empty). hash() is the hex
// SHA-256 of the normalized text's UTF-8.
class KernelNormalizer
{
public:
    static QString normalize(const QString &source);
    static QString hash(const QString &source);
};
