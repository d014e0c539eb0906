#include "terminaltext.h"

#include <QList>

namespace {

bool unsafe(char32_t c, bool keepLines)
{
    if (keepLines && (c == u'\n' || c == u'\t'))
        return false;
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) // C0, DEL, C1 (0x9b is a one-byte CSI)
           || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) // bidirectional embeddings/isolates
           || c == 0x200e || c == 0x200f || c == 0x061c; // direction marks
}

QString escaped(const QString &text, bool keepLines)
{
    QString out;
    out.reserve(text.size());
    for (const char32_t c : text.toUcs4()) {
        if (!unsafe(c, keepLines))
            out.append(QString::fromUcs4(&c, 1));
        else if (c < 0x100)
            out.append(QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0')));
        else
            out.append(QStringLiteral("\\u%1").arg(uint(c), 4, 16, QLatin1Char('0')));
    }
    return out;
}

} // namespace

QString TerminalText::line(const QString &text)
{
    return escaped(text, false);
}

QString TerminalText::block(const QString &text)
{
    return escaped(text, true);
}
