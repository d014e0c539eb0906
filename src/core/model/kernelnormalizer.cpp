#include "model/kernelnormalizer.h"

#include <QCryptographicHash>
#include <QStringList>

namespace {
bool isIdentChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

bool isPrefixLetter(QChar c)
{
    return QStringLiteral("rRbBuUfF").contains(c);
}

// Length of the string literal starting at `start` (prefix letters included), or 0 if none starts there.
qsizetype literalLength(const QString &s, qsizetype start)
{
    qsizetype q = start;
    if (isPrefixLetter(s.at(q))) {
        if (start > 0 && isIdentChar(s.at(start - 1)))
            return 0;
        while (q < s.size() && q - start < 2 && isPrefixLetter(s.at(q)))
            ++q;
    }
    if (q >= s.size() || (s.at(q) != u'"' && s.at(q) != u'\''))
        return 0;
    const QChar quote = s.at(q);
    const bool triple = s.mid(q, 3) == QString(3, quote);
    qsizetype j = q + (triple ? 3 : 1);
    while (j < s.size()) {
        const QChar c = s.at(j);
        if (c == u'\\') {
            j += 2;
            continue;
        }
        if (triple && s.mid(j, 3) == QString(3, quote))
            return j + 3 - start;
        if (!triple && c == quote)
            return j + 1 - start;
        if (!triple && c == u'\n')
            return j -
                   start; // unterminated: stop at the line end, as Python's tokenizer would complain there
        ++j;
    }
    return s.size() - start;
}

// True when only blanks and perhaps a comment follow `pos` up to the end of the line.
bool restOfLineIsEmpty(const QString &s, qsizetype pos)
{
    while (pos < s.size() && (s.at(pos) == u' ' || s.at(pos) == u'\t'))
        ++pos;
    return pos >= s.size() || s.at(pos) == u'\n' || s.at(pos) == u'\r' || s.at(pos) == u'#';
}
} // namespace

QString KernelNormalizer::normalize(const QString &source)
{
    QString out;
    out.reserve(source.size());
    int depth = 0;              // bracket depth: inside brackets a new line does not start a statement
    bool statementStart = true; // nothing but blanks seen since the start of the logical line
    qsizetype i = 0;
    while (i < source.size()) {
        const QChar c = source.at(i);
        if (c == u'#') {
            while (i < source.size() && source.at(i) != u'\n')
                ++i;
            continue;
        }
        if (const qsizetype len = literalLength(source, i); len > 0) {
            const bool docstring = depth == 0 && statementStart && restOfLineIsEmpty(source, i + len);
            if (!docstring)
                out += QStringView(source).mid(i, len);
            statementStart = false;
            i += len;
            continue;
        }
        if (c == u'\\' && i + 1 < source.size() && source.at(i + 1) == u'\n') {
            out += QStringLiteral("\\\n");
            i += 2;
            continue;
        }
        if (c == u'\n') {
            statementStart = depth == 0;
        } else if (c == u'(' || c == u'[' || c == u'{') {
            ++depth;
        } else if (c == u')' || c == u']' || c == u'}') {
            depth = depth > 0 ? depth - 1 : 0;
        }
        if (!c.isSpace())
            statementStart = false;
        out += c;
        ++i;
    }
    QStringList lines;
    for (QStringView line : QStringView(out).split(u'\n')) {
        while (!line.isEmpty() && line.back().isSpace())
            line.chop(1);
        if (!line.isEmpty())
            lines.append(line.toString());
    }
    return lines.join(u'\n');
}

QString KernelNormalizer::hash(const QString &source)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(normalize(source).toUtf8(), QCryptographicHash::Sha256).toHex());
}
