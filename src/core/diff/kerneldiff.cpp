#include "diff/kerneldiff.h"

#include <QJsonArray>

#include <dtl/dtl.hpp>

#include <algorithm>
#include <vector>

namespace {

// Consecutive positions as spans, widened so none splits a character outside the BMP (a surrogate pair).
QList<KernelDiff::Span> spansOf(const std::vector<int> &positions, const QString &line)
{
    QList<KernelDiff::Span> spans;
    for (int p : positions) {
        if (!spans.isEmpty() && spans.last().start + spans.last().length >= p) {
            spans.last().length = std::max(spans.last().length, p + 1 - spans.last().start);
            continue;
        }
        spans.append({p, 1});
    }
    for (KernelDiff::Span &s : spans) {
        if (s.start > 0 && line.at(s.start).isLowSurrogate())
            --s.start, ++s.length;
        const int end = s.start + s.length;
        if (end < line.size() && line.at(end - 1).isHighSurrogate())
            ++s.length;
    }
    // Widening may make neighbours touch: merge them.
    QList<KernelDiff::Span> merged;
    for (const KernelDiff::Span &s : spans) {
        if (!merged.isEmpty() && merged.last().start + merged.last().length >= s.start)
            merged.last().length = std::max(merged.last().length, s.start + s.length - merged.last().start);
        else
            merged.append(s);
    }
    return merged;
}

// The characters that differ inside a changed line pair. A pair with little in common is marked whole: a
// scatter of single characters would only be noise.
void markCharacters(const QString &left, const QString &right, KernelDiff::Row &row)
{
    const std::vector<QChar> a(left.cbegin(), left.cend());
    const std::vector<QChar> b(right.cbegin(), right.cend());
    dtl::Diff<QChar, std::vector<QChar>> d(a, b);
    d.compose();
    std::vector<int> removed, added;
    int i = 0, j = 0, common = 0;
    for (const auto &e : d.getSes().getSequence()) {
        switch (e.second.type) {
        case dtl::SES_COMMON:
            ++i, ++j, ++common;
            break;
        case dtl::SES_DELETE:
            removed.push_back(i++);
            break;
        case dtl::SES_ADD:
            added.push_back(j++);
            break;
        }
    }
    const qsizetype longest = std::max(left.size(), right.size());
    if (longest > 0 && common * 10 < longest * 4) {
        if (!left.isEmpty())
            row.leftSpans = {{0, int(left.size())}};
        if (!right.isEmpty())
            row.rightSpans = {{0, int(right.size())}};
        return;
    }
    row.leftSpans = spansOf(removed, left);
    row.rightSpans = spansOf(added, right);
}

} // namespace

QStringList KernelDiff::lines(const QString &text, bool *crlf)
{
    QStringList out = text.split(u'\n');
    if (!out.isEmpty() && out.last().isEmpty())
        out.removeLast(); // the final newline ends the last line; it does not start another
    bool anyCr = false;
    for (QString &line : out)
        if (line.endsWith(u'\r')) {
            line.chop(1);
            anyCr = true;
        }
    if (crlf)
        *crlf = anyCr;
    return out;
}

KernelDiff::Result KernelDiff::compute(const QString &left, const QString &right)
{
    Result r;
    bool leftCrlf = false, rightCrlf = false;
    r.leftLines = lines(left, &leftCrlf);
    r.rightLines = lines(right, &rightCrlf);
    r.lineEndingsDiffer = leftCrlf != rightCrlf;

    const std::vector<QString> a(r.leftLines.cbegin(), r.leftLines.cend());
    const std::vector<QString> b(r.rightLines.cbegin(), r.rightLines.cend());
    dtl::Diff<QString, std::vector<QString>> d(a, b);
    if (a.size() + b.size() > 20000)
        d.onHuge(); // dtl's guard against quadratic memory on very long, very different texts
    d.compose();

    // Walk the edit script; the deletions and additions between two common lines form one block, whose
    // lines are paired in order as changed lines, the surplus staying removed or added.
    std::vector<int> deleted, inserted;
    int i = 0, j = 0;
    auto flush = [&] {
        if (deleted.empty() && inserted.empty())
            return;
        r.changes.append(int(r.rows.size()));
        const size_t paired = std::min(deleted.size(), inserted.size());
        for (size_t k = 0; k < paired; ++k) {
            Row row;
            row.kind = Kind::Changed;
            row.left = deleted[k];
            row.right = inserted[k];
            markCharacters(r.leftLines.at(row.left), r.rightLines.at(row.right), row);
            r.rows.append(row);
            ++r.changed;
        }
        for (size_t k = paired; k < deleted.size(); ++k) {
            r.rows.append(Row{Kind::Removed, deleted[k], -1, {}, {}});
            ++r.removed;
        }
        for (size_t k = paired; k < inserted.size(); ++k) {
            r.rows.append(Row{Kind::Added, -1, inserted[k], {}, {}});
            ++r.added;
        }
        deleted.clear();
        inserted.clear();
    };
    for (const auto &e : d.getSes().getSequence()) {
        switch (e.second.type) {
        case dtl::SES_COMMON:
            flush();
            r.rows.append(Row{Kind::Same, i++, j++, {}, {}});
            break;
        case dtl::SES_DELETE:
            deleted.push_back(i++);
            break;
        case dtl::SES_ADD:
            inserted.push_back(j++);
            break;
        }
    }
    flush();
    return r;
}

QList<KernelDiff::Hunk> KernelDiff::Result::hunks(int context) const
{
    context = std::max(0, context);
    QList<Hunk> out;
    const int n = int(rows.size());
    int row = 0;
    while (row < n) {
        if (rows.at(row).kind == Kind::Same) {
            ++row;
            continue;
        }
        // A run of changes, extended while the next change is within 2 x context unchanged rows.
        int last = row;
        int scan = row;
        while (scan < n) {
            if (rows.at(scan).kind != Kind::Same) {
                last = scan;
                ++scan;
                continue;
            }
            int gap = scan;
            while (gap < n && rows.at(gap).kind == Kind::Same)
                ++gap;
            if (gap < n && gap - scan <= 2 * context) {
                scan = gap;
                continue;
            }
            break;
        }
        Hunk h;
        h.firstRow = std::max(0, row - context);
        const int end = std::min(n, last + 1 + context);
        h.rowCount = end - h.firstRow;
        int leftFirst = -1, rightFirst = -1, leftBefore = 0, rightBefore = 0;
        for (int k = 0; k < h.firstRow; ++k) { // lines of each side above the hunk
            leftBefore += rows.at(k).left >= 0 ? 1 : 0;
            rightBefore += rows.at(k).right >= 0 ? 1 : 0;
        }
        for (int k = h.firstRow; k < end; ++k) {
            const Row &x = rows.at(k);
            if (x.left >= 0) {
                ++h.leftCount;
                if (leftFirst < 0)
                    leftFirst = x.left;
            }
            if (x.right >= 0) {
                ++h.rightCount;
                if (rightFirst < 0)
                    rightFirst = x.right;
            }
        }
        // An empty side is written as the line before it (0 at the very top), as diff -u does.
        h.leftStart = h.leftCount > 0 ? leftFirst + 1 : leftBefore;
        h.rightStart = h.rightCount > 0 ? rightFirst + 1 : rightBefore;
        out.append(h);
        row = end;
    }
    return out;
}

namespace {
// A hunk's lines as diff -u writes them: within a run of changes, every removed line, then every added one.
QStringList hunkLines(const KernelDiff::Result &r, const KernelDiff::Hunk &h)
{
    QStringList out, minus, plus;
    auto flush = [&] {
        out += minus;
        out += plus;
        minus.clear();
        plus.clear();
    };
    for (int k = h.firstRow; k < h.firstRow + h.rowCount; ++k) {
        const KernelDiff::Row &x = r.rows.at(k);
        if (x.kind == KernelDiff::Kind::Same) {
            flush();
            out << u' ' + r.leftLines.at(x.left);
            continue;
        }
        if (x.left >= 0)
            minus << u'-' + r.leftLines.at(x.left);
        if (x.right >= 0)
            plus << u'+' + r.rightLines.at(x.right);
    }
    flush();
    return out;
}

QString range(int start, int count)
{
    return count == 1 ? QString::number(start) : QStringLiteral("%1,%2").arg(start).arg(count);
}
} // namespace

QString KernelDiff::Result::unified(const QString &leftName, const QString &rightName, int context) const
{
    if (identical())
        return {};
    QString out = QStringLiteral("--- %1\n+++ %2\n").arg(leftName, rightName);
    for (const Hunk &h : hunks(context)) {
        out += QStringLiteral("@@ -%1 +%2 @@\n").arg(range(h.leftStart, h.leftCount), range(h.rightStart, h.rightCount));
        for (const QString &line : hunkLines(*this, h))
            out += line + u'\n';
    }
    return out;
}

QJsonObject KernelDiff::Result::toJson(int context) const
{
    QJsonArray list;
    for (const Hunk &h : hunks(context))
        list.append(QJsonObject{{QStringLiteral("left_start"), h.leftStart},
                                {QStringLiteral("left_count"), h.leftCount},
                                {QStringLiteral("right_start"), h.rightStart},
                                {QStringLiteral("right_count"), h.rightCount},
                                {QStringLiteral("lines"), QJsonArray::fromStringList(hunkLines(*this, h))}});
    return {{QStringLiteral("identical"), identical()},
            {QStringLiteral("added"), added},
            {QStringLiteral("removed"), removed},
            {QStringLiteral("changed"), changed},
            {QStringLiteral("line_endings_differ"), lineEndingsDiffer},
            {QStringLiteral("hunks"), list}};
}
