#include "agents/fencedblocks.h"

#include <QRegularExpression>

namespace {
struct Fence
{
    QChar ch;
    qsizetype length = 0;
    QString info;
};

std::optional<Fence> openingFence(const QString &line)
{
    static const QRegularExpression re(QStringLiteral("^ {0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$"));
    const auto m = re.match(line);
    if (!m.hasMatch())
        return std::nullopt;
    return Fence{m.captured(1).at(0), m.capturedLength(1), m.captured(2).toLower()};
}

bool closes(const QString &line, const Fence &fence)
{
    const QString t = line.trimmed();
    return t.size() >= fence.length && t.count(fence.ch) == t.size();
}

template<typename OnBlock, typename OnProse>
void walk(const QString &markdown, OnBlock onBlock, OnProse onProse)
{
    const QStringList lines = markdown.split(u'\n');
    std::optional<Fence> open;
    FencedBlock block;
    QStringList body;
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (!open) {
            if ((open = openingFence(line))) {
                block = FencedBlock{open->info, QString(), i + 1, true};
                body.clear();
            } else {
                onProse(line);
            }
        } else if (closes(line, *open)) {
            block.code = body.join(u'\n');
            onBlock(block);
            open.reset();
        } else {
            body << line;
        }
    }
    if (open) {
        block.code = body.join(u'\n');
        block.closed = false;
        onBlock(block);
    }
}
} // namespace

QList<FencedBlock> FencedBlocks::scan(const QString &markdown)
{
    QList<FencedBlock> blocks;
    walk(
        markdown, [&](const FencedBlock &b) { blocks.append(b); }, [](const QString &) {});
    return blocks;
}

QString FencedBlocks::prose(const QString &markdown)
{
    QStringList lines;
    walk(
        markdown, [](const FencedBlock &) {}, [&](const QString &line) { lines << line; });
    return lines.join(u'\n');
}

bool FencedBlocks::isPython(const FencedBlock &block)
{
    return block.info.isEmpty() || block.info == QStringLiteral("python") ||
           block.info == QStringLiteral("py") || block.info == QStringLiteral("python3");
}
