#include "diffpane.h"

#include "theme.h"

#include <Qsci/qscistyle.h>

namespace {
constexpr int lineNumberStyle = 33; // STYLE_LINENUMBER: the margin's own colours

struct Tints
{
    QColor removed, added, filler, removedChars, addedChars, note;
};

Tints tints()
{
    if (Theme::current() == Theme::Kind::Dark)
        return {QColor(0x4a, 0x24, 0x27), QColor(0x1f, 0x3b, 0x26), QColor(0x2b, 0x2b, 0x2b),
                QColor(0xa3, 0x3a, 0x3f), QColor(0x2f, 0x85, 0x45), QColor(0x9a, 0x9a, 0x9a)};
    return {QColor(0xfd, 0xe7, 0xe7), QColor(0xe3, 0xf7, 0xe5), QColor(0xe2, 0xe2, 0xe2),
            QColor(0xf2, 0x9c, 0x9c), QColor(0x8e, 0xd9, 0x9b), QColor(0x70, 0x70, 0x70)};
}
} // namespace

DiffPane::DiffPane(Layout layout, QWidget *parent) : KernelEditor(parent), m_layout(layout)
{
    // One style number for the fold notes, taken once: QsciStyle(-1) allocates a new number on every call.
    m_noteStyle = QsciStyle(-1, QStringLiteral("folded"), tints().note, paper(), font());
    setReadOnly(true);
    setFolding(QsciScintilla::NoFoldStyle);
    setCaretLineVisible(false);
    setEdgeMode(QsciScintilla::EdgeNone);
    setMarginType(0, QsciScintilla::TextMargin);
    setMarginWidth(1, 0);
    const Tints t = tints();
    for (const auto &[marker, color] :
         {std::pair{RemovedMarker, t.removed}, std::pair{AddedMarker, t.added}, std::pair{FillerMarker, t.filler}}) {
        markerDefine(QsciScintilla::Background, marker);
        setMarkerBackgroundColor(color, marker);
    }
    setAnnotationDisplay(QsciScintilla::AnnotationStandard);
    for (auto [indicator, color] : {std::pair{&m_removedChars, t.removedChars}, std::pair{&m_addedChars, t.addedChars}}) {
        *indicator = indicatorDefine(QsciScintilla::StraightBoxIndicator);
        setIndicatorForegroundColor(color, *indicator);
        setIndicatorDrawUnder(true, *indicator);
        SendScintilla(SCI_INDICSETALPHA, static_cast<unsigned long>(*indicator), 160L);
        SendScintilla(SCI_INDICSETOUTLINEALPHA, static_cast<unsigned long>(*indicator), 0L);
    }
}

void DiffPane::setDiff(const KernelDiff::Result *diff)
{
    m_diff = diff;
    layOut();
    fill();
}

void DiffPane::layOut()
{
    m_lines.clear();
    m_firstLineOfRow.clear();
    if (!m_diff)
        return;
    const QList<KernelDiff::Row> &rows = m_diff->rows;
    m_firstLineOfRow.fill(-1, rows.size());
    using Kind = KernelDiff::Kind;
    const auto add = [this](int row, const Line &line) {
        if (m_firstLineOfRow.at(row) < 0)
            m_firstLineOfRow[row] = int(m_lines.size());
        m_lines.append(line);
    };
    if (m_layout != Layout::Unified) {
        const bool left = m_layout == Layout::Left;
        for (int i = 0; i < rows.size(); ++i) {
            const KernelDiff::Row &r = rows.at(i);
            Line line;
            line.row = i;
            line.leftNumber = r.left + 1;
            line.rightNumber = r.right + 1;
            const bool present = left ? r.left >= 0 : r.right >= 0;
            line.tinted = r.kind != Kind::Same;
            line.marker = !present ? FillerMarker : left ? RemovedMarker : AddedMarker;
            line.spans = left ? r.leftSpans : r.rightSpans;
            add(i, line);
        }
        return;
    }
    // Unified: a run of changes lists its left lines, then its right lines, as `diff -u` does.
    for (int i = 0; i < rows.size();) {
        if (rows.at(i).kind == Kind::Same) {
            add(i, Line{i, rows.at(i).left + 1, rows.at(i).right + 1, FillerMarker, false, {}});
            ++i;
            continue;
        }
        int end = i;
        while (end < rows.size() && rows.at(end).kind != Kind::Same)
            ++end;
        for (int k = i; k < end; ++k)
            if (rows.at(k).left >= 0)
                add(k, Line{k, rows.at(k).left + 1, 0, RemovedMarker, true, rows.at(k).leftSpans});
        for (int k = i; k < end; ++k)
            if (rows.at(k).right >= 0)
                add(k, Line{k, 0, rows.at(k).right + 1, AddedMarker, true, rows.at(k).rightSpans});
        i = end;
    }
}

void DiffPane::fill()
{
    QStringList text;
    text.reserve(m_lines.size());
    for (const Line &line : std::as_const(m_lines)) {
        if (m_layout == Layout::Right)
            text << (line.rightNumber > 0 ? m_diff->rightLines.at(line.rightNumber - 1) : QString());
        else if (line.leftNumber > 0)
            text << m_diff->leftLines.at(line.leftNumber - 1);
        else if (m_layout == Layout::Unified && line.rightNumber > 0)
            text << m_diff->rightLines.at(line.rightNumber - 1);
        else
            text << QString(); // a filler facing the other side's line
    }
    setReadOnly(false);
    setText(text.join(u'\n'));
    setReadOnly(true);
    markerDeleteAll();
    clearMarginText();
    clearAnnotations();
    m_ranges.clear();
    m_ranges.resize(m_lines.size());

    const qsizetype longest = m_diff ? qMax(m_diff->leftLines.size(), m_diff->rightLines.size()) : 0;
    const int digits = int(QString::number(longest).size());
    const auto number = [digits](int n) {
        return n > 0 ? QStringLiteral("%1").arg(n, digits) : QString(digits, u' ');
    };
    for (int i = 0; i < m_lines.size(); ++i) {
        const Line &line = m_lines.at(i);
        QString margin;
        switch (m_layout) {
        case Layout::Left:
            margin = number(line.leftNumber);
            break;
        case Layout::Right:
            margin = number(line.rightNumber);
            break;
        case Layout::Unified:
            margin = number(line.leftNumber) + u' ' + number(line.rightNumber) + u' ' +
                     (!line.tinted ? u' ' : line.marker == RemovedMarker ? u'-' : u'+');
            break;
        }
        setMarginText(i, margin, lineNumberStyle);
        if (line.tinted)
            markerAdd(i, line.marker);
        if (!line.spans.isEmpty())
            markSpans(i, line.spans);
    }
    m_marginSample = m_layout == Layout::Unified ? QString(2 * digits + 3, u'9') : QString(digits, u'9');
    updateMarginWidth();
    m_hidden = 0;
}

void DiffPane::markSpans(int line, const QList<KernelDiff::Span> &spans)
{
    SendScintilla(SCI_SETINDICATORCURRENT,
                  m_lines.at(line).marker == AddedMarker ? m_addedChars : m_removedChars);
    // Spans count UTF-16 code units; Scintilla counts UTF-8 bytes.
    const QString lineText = text(line);
    const long start = SendScintilla(SCI_POSITIONFROMLINE, line);
    for (const KernelDiff::Span &s : spans) {
        const long from = start + lineText.left(s.start).toUtf8().size();
        const long length = lineText.mid(s.start, s.length).toUtf8().size();
        SendScintilla(SCI_INDICATORFILLRANGE, from, length);
        m_ranges[line].append({s.start, s.length});
    }
}

void DiffPane::setFolded(bool folded, int context)
{
    if (lines() > 0)
        SendScintilla(SCI_SHOWLINES, 0, lines() - 1);
    clearAnnotations();
    m_hidden = 0;
    if (!folded || !m_diff)
        return;
    const QList<KernelDiff::Row> &rows = m_diff->rows;
    for (int i = 0; i < rows.size();) {
        if (rows.at(i).kind != KernelDiff::Kind::Same) {
            ++i;
            continue;
        }
        int end = i;
        while (end < rows.size() && rows.at(end).kind == KernelDiff::Kind::Same)
            ++end;
        // Keep `context` rows next to each change; fold the middle when it spares more than one line.
        const int first = i + (i > 0 ? context : 0);
        const int last = end - 1 - (end < rows.size() ? context : 0);
        if (last - first >= 2) {
            const int keep = lineOfRow(first);
            SendScintilla(SCI_HIDELINES, keep + 1, lineOfRow(last));
            m_hidden += last - first;
            const int n = last - first;
            annotate(keep, n == 1 ? tr("⋯ 1 unchanged line folded") : tr("⋯ %1 unchanged lines folded").arg(n),
                     m_noteStyle);
        }
        i = end;
    }
}

int DiffPane::lineOfRow(int row) const
{
    return row >= 0 && row < m_firstLineOfRow.size() ? m_firstLineOfRow.at(row) : -1;
}

int DiffPane::rowOfLine(int line) const
{
    return line >= 0 && line < m_lines.size() ? m_lines.at(line).row : -1;
}

void DiffPane::goToRow(int row)
{
    const int line = lineOfRow(row);
    if (line < 0)
        return;
    setCursorPosition(line, 0);
    const long display = SendScintilla(SCI_VISIBLEFROMDOCLINE, line);
    const long onScreen = SendScintilla(SCI_LINESONSCREEN);
    SendScintilla(SCI_SETFIRSTVISIBLELINE, qMax(0L, display - onScreen / 3));
}

bool DiffPane::hasMarker(int line, Marker marker) const
{
    return (const_cast<DiffPane *>(this)->markersAtLine(line) & (1u << marker)) != 0;
}

QList<QPair<int, int>> DiffPane::changedRanges(int line) const
{
    return line >= 0 && line < m_ranges.size() ? m_ranges.at(line) : QList<QPair<int, int>>{};
}

QString DiffPane::marginText(int line) const
{
    if (line < 0 || line >= m_lines.size())
        return {};
    const long length = const_cast<DiffPane *>(this)->SendScintilla(SCI_MARGINGETTEXT, line, static_cast<const char *>(nullptr));
    QByteArray buffer(length + 1, '\0');
    const_cast<DiffPane *>(this)->SendScintilla(SCI_MARGINGETTEXT, line, buffer.data());
    return QString::fromUtf8(buffer.constData());
}

int DiffPane::hiddenLines() const
{
    return m_hidden;
}

void DiffPane::updateMarginWidth()
{
    setMarginWidth(0, m_marginSample + QStringLiteral("  "));
}
