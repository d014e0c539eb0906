#pragma once

#include "diff/kerneldiff.h"
#include "kerneleditor.h"

#include <Qsci/qscistyle.h>

#include <QList>

// One pane of the Compare view, read-only: the left or the right kernel laid out row by row (a filler line
// where the other side has a line this one has not, so row i is line i in both panes and they scroll
// together), or both kernels as one unified listing. Line numbers are the kernels' own, in a text margin;
// removed and added lines have tinted backgrounds and the changed characters inside them a stronger tint;
// runs of unchanged rows farther than `context` from a change can be folded away, leaving a note of how many
// lines are hidden.
class DiffPane : public KernelEditor
{
    Q_OBJECT
public:
    enum class Layout
    {
        Left,
        Right,
        Unified
    };
    enum Marker // Scintilla marker numbers; KernelEditor uses 1
    {
        RemovedMarker = 2,
        AddedMarker = 3,
        FillerMarker = 4,
    };

    explicit DiffPane(Layout layout, QWidget *parent = nullptr);

    void setDiff(const KernelDiff::Result *diff); // not owned; must outlive the pane or be replaced
    // Hides unchanged rows more than `context` rows from a change (fold) or shows every row.
    void setFolded(bool folded, int context);
    Layout layout() const { return m_layout; }

    int lineOfRow(int row) const; // the first line of the row in this pane
    int rowOfLine(int line) const;
    void goToRow(int row);         // the caret on the row's line, scrolled to show it near the top third
    // For tests and the Compare view's ruler: which lines carry a marker, and the changed character ranges of
    // a line as (start, length) in UTF-16 code units of the line's text.
    bool hasMarker(int line, Marker marker) const;
    QList<QPair<int, int>> changedRanges(int line) const;
    QString marginText(int line) const;
    int hiddenLines() const; // lines folded away

protected:
    void updateMarginWidth() override;

private:
    struct Line
    {
        int row = -1;
        int leftNumber = 0; // 1-based; 0: none on that side
        int rightNumber = 0;
        Marker marker = FillerMarker;
        bool tinted = false; // has a marker
        QList<KernelDiff::Span> spans;
    };
    void layOut();
    void fill();
    void markSpans(int line, const QList<KernelDiff::Span> &spans);

    Layout m_layout;
    const KernelDiff::Result *m_diff = nullptr;
    QList<Line> m_lines;
    QList<int> m_firstLineOfRow;
    QList<QList<QPair<int, int>>> m_ranges; // per line
    QString m_marginSample;                  // the widest margin text, for its width
    int m_hidden = 0;
    QsciStyle m_noteStyle;
    int m_removedChars = -1; // indicators
    int m_addedChars = -1;
};
