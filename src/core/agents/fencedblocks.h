#pragma once

#include <QList>
#include <QString>

// The fenced code blocks (``` or ~~~) of a Markdown reply, in order. A block still open at the end of the
// text is reported with closed = false: that is how a reply cut off by max_tokens looks.
struct FencedBlock
{
    QString info; // the word after the opening fence, lower-cased: "python", "py", "" ...
    QString code;
    int line = 0; // 1-based line of the opening fence
    bool closed = true;
};

namespace FencedBlocks {
QList<FencedBlock> scan(const QString &markdown);
// Text outside any fence (for the prose parts of a reply).
QString prose(const QString &markdown);
bool isPython(const FencedBlock &block);
} // namespace FencedBlocks
